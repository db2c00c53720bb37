#include "console/connection/SshTunnel.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#endif

namespace runbox::console {

namespace {
constexpr int kProbeIntervalMs = 150;
constexpr int kStderrKeepBytes = 8192;

// A loopback port nothing listens on now (ssh binds it a moment later; a race lost to another
// program ends in ExitOnForwardFailure and the next start picks another).
quint16 freeLoopbackPort() {
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = server.serverPort();
    server.close();
    return port;
}
} // namespace

SshTunnel::SshTunnel(const AgentProfile& profile, const QString& sshProgram, QObject* parent)
    : QObject(parent), m_profile(profile),
      m_program(sshProgram.isEmpty() ? QStringLiteral("ssh") : sshProgram) {
    m_probeTimer.setInterval(kProbeIntervalMs);
    connect(&m_probeTimer, &QTimer::timeout, this, &SshTunnel::probePort);
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        const QString tail = stderrTail(m_stderr);
        fail(tail.isEmpty() ? tr("ssh did not open the local port within %n s.", nullptr,
                                 m_readyTimeoutMs / 1000)
                            : tail);
    });
}

SshTunnel::~SshTunnel() {
    stop(1000);
}

QUrl SshTunnel::url() const {
    if (m_state != State::Ready)
        return {};
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_localPort));
}

QStringList SshTunnel::arguments(quint16 localPort) const {
    QStringList args{
        QStringLiteral("-N"),
        QStringLiteral("-o"),
        QStringLiteral("BatchMode=yes"),
        QStringLiteral("-o"),
        QStringLiteral("ExitOnForwardFailure=yes"),
        QStringLiteral("-L"),
        QStringLiteral("127.0.0.1:%1:%2").arg(localPort).arg(m_profile.sshRemoteOrDefault())};
    if (!m_profile.sshUser.trimmed().isEmpty())
        args << QStringLiteral("-l") << m_profile.sshUser.trimmed();
    if (m_profile.sshPort > 0)
        args << QStringLiteral("-p") << QString::number(m_profile.sshPort);
    args << QStringLiteral("--") << m_profile.sshHost.trimmed();
    return args;
}

void SshTunnel::setState(State state) {
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void SshTunnel::start() {
    stop();
    m_stderr.clear();
    m_stderrAtReady = -1;
    m_error.clear();
    m_failedForGood = false;
    m_localPort = freeLoopbackPort();
    if (m_localPort == 0) {
        fail(tr("No free local port for the SSH tunnel."));
        return;
    }
    m_process = new QProcess(this);
    m_process->setProgram(m_program);
    m_process->setArguments(arguments(m_localPort));
    m_process->setStandardInputFile(QProcess::nullDevice()); // never a prompt
    m_process->setStandardOutputFile(QProcess::nullDevice());
#ifdef Q_OS_LINUX
    // ssh ends with the console, even when the console crashes.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
#endif
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_stderr += m_process->readAllStandardError();
        if (m_stderr.size() > kStderrKeepBytes) {
            const int drop = int(m_stderr.size()) - kStderrKeepBytes;
            m_stderr = m_stderr.right(kStderrKeepBytes);
            if (m_stderrAtReady >= 0)
                m_stderrAtReady = std::max(0, m_stderrAtReady - drop);
        }
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            fail(tr("Cannot run %1: %2").arg(m_program, m_process->errorString()), true);
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_stderr += m_process->readAllStandardError();
        const QString tail = stderrTail(m_stderr);
        if (!tail.isEmpty())
            fail(tail, isPermanentFailure(QString::fromUtf8(m_stderr)));
        else if (status == QProcess::CrashExit)
            fail(tr("ssh was killed."));
        else
            fail(tr("ssh exited with status %1.").arg(code));
    });
    setState(State::Starting);
    m_process->start();
    m_deadline.start(m_readyTimeoutMs);
    m_probeTimer.start();
}

void SshTunnel::probePort() {
    if (m_state != State::Starting || m_probe)
        return;
    m_probe = new QTcpSocket(this);
    connect(m_probe, &QTcpSocket::connected, this, [this] {
        m_probe->abort();
        m_probe->deleteLater();
        m_probe = nullptr;
        m_probeTimer.stop();
        m_deadline.stop();
        if (m_state == State::Starting) {
            m_stderrAtReady = int(m_stderr.size());
            setState(State::Ready);
        }
    });
    connect(m_probe, &QTcpSocket::errorOccurred, this, [this] {
        m_probe->deleteLater();
        m_probe = nullptr;
    });
    m_probe->connectToHost(QHostAddress::LocalHost, m_localPort);
}

bool SshTunnel::isPermanentFailure(const QString& text) {
    static const char* const kForGood[] = {
        "Permission denied",                      // every authentication method refused
        "Too many authentication failures",       // MaxAuthTries
        "Host key verification failed",           // StrictHostKeyChecking with BatchMode
        "REMOTE HOST IDENTIFICATION HAS CHANGED", // known_hosts names another key
        "No matching host key type found",        // nothing to agree on: a config change
        "Unable to negotiate",
        "Bad configuration option",
        "Bad owner or permissions", // on ~/.ssh/config
        "terminating, ",            // "… line N: terminating, 1 bad configuration options"
    };
    for (const char* needle : kForGood)
        if (text.contains(QLatin1String(needle), Qt::CaseInsensitive))
            return true;
    return false;
}

void SshTunnel::fail(const QString& why, bool forGood) {
    m_probeTimer.stop();
    m_deadline.stop();
    if (m_state == State::Stopped || m_state == State::Failed)
        return;
    m_error = why;
    m_failedForGood = forGood;
    endProcess(3000); // a tunnel that never got ready: ssh is stopped before saying so
    setState(State::Failed);
}

void SshTunnel::stop(int graceMs) {
    endProcess(graceMs);
    setState(State::Stopped);
}

void SshTunnel::endProcess(int graceMs) {
    m_probeTimer.stop();
    m_deadline.stop();
    if (m_probe) {
        m_probe->abort();
        m_probe->deleteLater();
        m_probe = nullptr;
    }
    if (m_process) {
        QProcess* p = m_process;
        m_process = nullptr;
        p->disconnect(this);
        if (p->state() != QProcess::NotRunning) {
            p->terminate();
            if (!p->waitForFinished(graceMs)) {
                p->kill();
                p->waitForFinished(1000);
            }
        }
        p->deleteLater();
    }
}

QString SshTunnel::lastMessage() const {
    if (m_state != State::Ready || m_stderrAtReady < 0 || m_stderrAtReady > m_stderr.size())
        return {};
    return stderrTail(m_stderr.mid(m_stderrAtReady), 1);
}

QString SshTunnel::stderrTail(const QByteArray& bytes, int maxLines) {
    const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList kept;
    for (auto it = lines.crbegin(); it != lines.crend() && kept.size() < maxLines; ++it) {
        const QString line = it->trimmed();
        // The banner of a changed host key is '@' lines; its gist is in the lines that follow.
        if (!line.isEmpty() && !line.startsWith(u'@'))
            kept.prepend(line);
    }
    return kept.join(QLatin1Char(' '));
}

} // namespace runbox::console
