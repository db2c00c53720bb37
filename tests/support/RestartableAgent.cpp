#include "support/RestartableAgent.h"

#include "shared/ApiClient.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcessEnvironment>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::testsupport {

namespace {
constexpr char kSetpriv[] = "/usr/bin/setpriv";
const QString kAgentPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
} // namespace

RestartableAgent::RestartableAgent(QObject* parent)
    : QObject(parent), m_stateDir(QDir::tempPath() + QStringLiteral("/runbox-itest-XXXXXX")) {
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    connect(&m_process, &QProcess::readyRead, this, [this] { m_log += m_process.readAll(); });
}

RestartableAgent::~RestartableAgent() {
    if (isRunning())
        stop();
    m_client.reset();
}

bool RestartableAgent::runningAsRoot() {
    return ::geteuid() == 0;
}

bool RestartableAgent::fail(const QString& message) {
    m_error = message;
    return false;
}

QString RestartableAgent::log() {
    m_log += m_process.readAll();
    return QString::fromUtf8(m_log);
}

bool RestartableAgent::start(const RestartableAgentOptions& options) {
    if (isRunning())
        return fail(QStringLiteral("the agent is already running"));
    if (!m_stateDir.isValid())
        return fail(QStringLiteral("cannot create a temporary state directory"));
    m_error.clear();
    m_client.reset();
    m_uid = runningAsRoot() ? kUnprivilegedUid : ::geteuid();
    const QByteArray state = QFile::encodeName(m_stateDir.path());
    if (runningAsRoot() && ::chown(state.constData(), m_uid, m_uid) != 0)
        return fail(QStringLiteral("cannot chown %1 to %2").arg(m_stateDir.path()).arg(m_uid));
    ::chmod(state.constData(), 0700);
    // A previous run's URL (the agent was killed) must not be mistaken for readiness.
    const QString urlPath = m_stateDir.filePath(QStringLiteral("agent.url"));
    QFile::remove(urlPath);

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& key : env.keys())
        if (key.startsWith(QLatin1String("RUNBOX_")))
            env.remove(key);
    env.insert(QStringLiteral("HOME"), m_stateDir.path());
    for (auto it = options.extraEnv.begin(); it != options.extraEnv.end(); ++it)
        env.insert(it.key(), it.value());
    m_process.setProcessEnvironment(env);
    m_process.setWorkingDirectory(m_stateDir.path());
    QStringList args{QStringLiteral("--state-dir"), m_stateDir.path(), QStringLiteral("--listen"),
                     QStringLiteral("127.0.0.1:0")};
    args << options.extraArgs;
    if (runningAsRoot()) {
        // --pdeathsig is applied after the credential change (which clears it, prctl(2)).
        m_process.start(QLatin1String(kSetpriv),
                        QStringList{QStringLiteral("--reuid=%1").arg(m_uid),
                                    QStringLiteral("--regid=%1").arg(m_uid),
                                    QStringLiteral("--clear-groups"), QStringLiteral("--pdeathsig"),
                                    QStringLiteral("KILL"), QStringLiteral("--"), kAgentPath}
                            << args);
    } else {
        m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        m_process.start(kAgentPath, args);
    }
    if (!m_process.waitForStarted(10000))
        return fail(QStringLiteral("cannot start %1: %2").arg(kAgentPath, m_process.errorString()));

    QDeadlineTimer deadline(options.startTimeoutMs);
    while (!QFile::exists(urlPath)) {
        if (!isRunning())
            return fail(QStringLiteral("the agent exited during start-up (code %1): %2")
                            .arg(m_process.exitCode())
                            .arg(log()));
        if (deadline.hasExpired())
            return fail(QStringLiteral("agent.url did not appear within %1 ms: %2")
                            .arg(options.startTimeoutMs)
                            .arg(log()));
        QTest::qWait(20);
    }
    QFile urlFile(urlPath);
    QFile tokenFile(m_stateDir.filePath(QStringLiteral("agent.token")));
    if (!urlFile.open(QIODevice::ReadOnly) || !tokenFile.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read agent.url / agent.token"));
    m_url = QUrl(QString::fromUtf8(urlFile.readAll().trimmed()));
    m_token = tokenFile.readAll().trimmed();
    if (!m_url.isValid() || m_url.port() <= 0 || m_token.isEmpty())
        return fail(QStringLiteral("agent.url or agent.token is malformed"));
    m_client = std::make_unique<ApiClient>(m_url, m_token);
    return true;
}

bool RestartableAgent::stop(int timeoutMs) {
    if (!isRunning())
        return false;
    m_process.terminate();
    if (!m_process.waitForFinished(timeoutMs)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return false;
    }
    log();
    return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
}

void RestartableAgent::kill() {
    if (!isRunning())
        return;
    ::kill(pid_t(m_process.processId()), SIGKILL);
    m_process.waitForFinished(10000);
    log();
}

QString RestartableAgent::workspaceDir(const QString& workspaceId) const {
    return m_stateDir.filePath(QStringLiteral("workspaces/") + workspaceId);
}

QString RestartableAgent::createWorkspace() {
    if (!m_client) {
        fail(QStringLiteral("the agent is not running"));
        return {};
    }
    const ApiResponse r =
        m_client->call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
    if (r.status != 201) {
        fail(QStringLiteral("POST /v1/workspaces: %1 %2").arg(r.status).arg(r.errorMessage()));
        return {};
    }
    return r.json()
        .value(QLatin1String("workspaces"))
        .toArray()
        .first()
        .toObject()
        .value(QLatin1String("id"))
        .toString();
}

qint64 RestartableAgent::rssKiB() const {
    QFile status(QStringLiteral("/proc/%1/status").arg(m_process.processId()));
    if (m_process.processId() <= 0 || !status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

QString RestartableAgent::cliPath() {
    return QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox");
}

QStringList RestartableAgent::cliConnectionArgs() const {
    return {QStringLiteral("--url"), m_url.toString(), QStringLiteral("--token"),
            QString::fromLatin1(m_token)};
}

} // namespace runbox::testsupport
