#pragma once

// A real runbox-agent for the console's GUI tests: started on a free port with a temporary state
// directory (docs/contracts.md "Processes and start-up"), stopped with SIGTERM at the end.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <memory>

#include <csignal>
#include <sys/prctl.h>

class AgentFixture final {
public:
    AgentFixture() = default;
    AgentFixture(const AgentFixture&) = delete;
    AgentFixture& operator=(const AgentFixture&) = delete;
    ~AgentFixture() { stop(); }

    /// Starts the agent; false with @p error when it does not come up within 30 s.
    bool start(QString* error) {
        if (!m_dir.isValid()) {
            *error = QStringLiteral("no temporary directory");
            return false;
        }
        const QString binary = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
        if (!QFile::exists(binary)) {
            *error = QStringLiteral("%1 is not built").arg(binary);
            return false;
        }
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        // The agent dies with the test, even when the test crashes.
        m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_process->start(binary, {QStringLiteral("--state-dir"), m_dir.path(),
                                  QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
        if (!m_process->waitForStarted(10000)) {
            *error = m_process->errorString();
            return false;
        }
        const QString urlFile = m_dir.filePath(QStringLiteral("agent.url"));
        if (!QTest::qWaitFor(
                [&] {
                    return QFile::exists(urlFile) || m_process->state() == QProcess::NotRunning;
                },
                30000) ||
            !QFile::exists(urlFile)) {
            *error = QStringLiteral("the agent did not write agent.url: ") +
                     QString::fromUtf8(m_process->readAll());
            return false;
        }
        QFile u(urlFile), t(m_dir.filePath(QStringLiteral("agent.token")));
        if (!u.open(QIODevice::ReadOnly) || !t.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read agent.url / agent.token");
            return false;
        }
        url = QUrl(QString::fromUtf8(u.readAll().trimmed()));
        token = t.readAll().trimmed();
        return url.isValid() && !token.isEmpty();
    }

    void stop() {
        if (!m_process || m_process->state() == QProcess::NotRunning)
            return;
        m_process->terminate();
        if (!m_process->waitForFinished(15000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }

    QString stateDir() const { return m_dir.path(); }
    QString output() const {
        return m_process ? QString::fromUtf8(m_process->readAll()) : QString();
    }

    QUrl url;
    QByteArray token;

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
};
