#pragma once

#include <QByteArray>
#include <QMap>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

#include <sys/types.h>

namespace runbox {
class ApiClient;
}

namespace runbox::testsupport {

/// How to start the agent under test.
struct RestartableAgentOptions {
    QStringList extraArgs;           ///< appended to `--state-dir DIR --listen 127.0.0.1:0`
    QMap<QString, QString> extraEnv; ///< added to its environment (e.g. RUNBOX_* quota seeds)
    int startTimeoutMs = 30000;      ///< until agent.url appears
};

/// The real `runbox-agent` of this build on a free loopback port (DESIGN.md §1 start-up
/// contract: `--state-dir DIR --listen 127.0.0.1:0`, ready once `DIR/agent.url` exists, token in
/// `DIR/agent.token`). The state directory is a fresh temporary one that lives as long as this
/// object, so the agent can be stopped or SIGKILLed and started again on the same state.
/// As root (DESIGN.md §5) the agent runs as `nobody` (65534) through
/// `setpriv --reuid --regid --clear-groups`, and the state directory is chowned to it. The agent
/// gets PR_SET_PDEATHSIG(SIGKILL) so it never outlives a crashed test. The destructor stops it.
class RestartableAgent final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RestartableAgent)
public:
    static constexpr uid_t kUnprivilegedUid = 65534;

    explicit RestartableAgent(QObject* parent = nullptr);
    ~RestartableAgent() override;

    /// Starts the agent (again, after stop()/kill(), on the same state directory) and waits
    /// until it is ready. False with errorString() (which includes its log) on failure.
    bool start(const RestartableAgentOptions& options = {});
    /// SIGTERM, then SIGKILL after @p timeoutMs. True when it exited by itself with status 0.
    bool stop(int timeoutMs = 10000);
    /// SIGKILL, as a crash would; returns once the process is reaped.
    void kill();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

    QString errorString() const { return m_error; }
    /// Everything the agent wrote to stdout and stderr so far (all runs).
    QString log();
    /// Host pid of the agent (setpriv execs it, so this is the agent itself); 0 when stopped.
    qint64 pid() const { return m_process.processId(); }
    /// The uid the agent runs as.
    uid_t agentUid() const { return m_uid; }
    static bool runningAsRoot();

    QString stateDir() const { return m_stateDir.path(); }
    /// Host path of a workspace's directory (`<state>/workspaces/<id>`).
    QString workspaceDir(const QString& workspaceId) const;
    QUrl baseUrl() const { return m_url; }
    QByteArray token() const { return m_token; }
    /// A client signed with the agent token (valid while the agent runs; replaced by start()).
    ApiClient* client() const { return m_client.get(); }

    /// `POST /v1/workspaces` (strong); the id, or empty (errorString() says why).
    QString createWorkspace();

    /// The agent's resident set size (VmRSS of /proc/<pid>/status) in KiB; -1 if unknown.
    qint64 rssKiB() const;

    /// The path of the `runbox` CLI of this build.
    static QString cliPath();
    /// `--url URL --token TOKEN`, to put before a CLI command.
    QStringList cliConnectionArgs() const;

private:
    bool fail(const QString& message);

    QTemporaryDir m_stateDir;
    QProcess m_process;
    QByteArray m_log;
    QString m_error;
    QUrl m_url;
    QByteArray m_token;
    uid_t m_uid = 0;
    std::unique_ptr<ApiClient> m_client;
};

} // namespace runbox::testsupport
