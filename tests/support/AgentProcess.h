#pragma once

#include "support/ExecStream.h"

#include <QByteArray>
#include <QJsonObject>
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
struct AgentOptions {
    QStringList extraArgs;           ///< appended to `--state-dir DIR --listen 127.0.0.1:0`
    QMap<QString, QString> extraEnv; ///< added to the agent's environment (RUNBOX_* overrides)
    /// The uid/gid the agent runs as when the test runs as root (CODING_GUIDELINES.md "Tests":
    /// integration tests run the agent unprivileged). 65534 is `nobody`.
    uid_t unprivilegedUid = 65534;
    /// When the test runs as root: run the agent as root too (a privileged agent, as the light
    /// tier needs: its strong sandboxes must then run as workspace uids, never as root).
    bool runAsRoot = false;
    int startTimeoutMs = 30000; ///< until agent.url appears
    /// Where the first start makes the state directory (empty: QDir::tempPath()), e.g. on a
    /// filesystem the test mounted.
    QString stateParentDir;
    /// When the agent drops to unprivilegedUid: more setpriv(1) arguments, placed before its
    /// `--`, e.g. `--inh-caps +setuid --ambient-caps +setuid --bounding-set -all,+setuid` to
    /// give it capabilities as systemd's AmbientCapabilities= would (docs/service.md).
    QStringList setprivArgs;
    /// A command (program and arguments) that runs first and execs the agent's command line,
    /// appended to it: e.g. `unshare -m layout.sh …` to start it under other mounts.
    QStringList launchWrapper;
    /// Also listen with TLS on 127.0.0.1:0 (`--listen-tls`; tlsUrl() after start()).
    bool tls = false;
    /// Another build's `runbox-agent` (bench/ab-compare runs one benchmark driver against two
    /// builds' agents); empty: this build's.
    QString agentPath;
};

/// The real `runbox-agent` binary of this build, started on a free loopback port with a fresh
/// temporary state directory (docs/contracts.md "Processes and start-up": waits for `agent.url`,
/// reads `agent.token`). The state directory lives as long as this object: the agent can be stopped
/// or SIGKILLed (kill(), as a crash would) and started again on the same state. When the test runs
/// as root the agent runs as an unprivileged user
/// (`setpriv --reuid --regid --clear-groups`), and the state directory is chowned to it.
/// The destructor stops the agent (SIGTERM, then SIGKILL after 10 s) and removes the state dir.
class AgentProcess final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentProcess)
public:
    explicit AgentProcess(QObject* parent = nullptr);
    ~AgentProcess() override;

    /// Starts the agent (again, after stop() or kill(), on the same state directory) and waits
    /// until it is ready. On failure returns false; errorString() and log() say why.
    bool start(const AgentOptions& options = {});
    /// SIGTERM, then waits up to @p timeoutMs (SIGKILL after that). True when it exited with 0.
    bool stop(int timeoutMs = 10000);
    /// SIGKILL, as a crash would; returns once the process is reaped.
    void kill();
    bool isRunning() const;

    QString errorString() const { return m_error; }
    /// The agent's stdout + stderr so far, of every run (its log lines).
    QString log();
    /// Host pid of the agent process (setpriv execs it, so it is the agent itself).
    qint64 pid() const;
    /// The uid the agent runs as (the unprivileged uid as root unless runAsRoot, else our own).
    uid_t agentUid() const { return m_uid; }
    static bool runningAsRoot();

    QString stateDir() const { return m_stateDir ? m_stateDir->path() : QString(); }
    /// Host path of a workspace's directory (`<state>/workspaces/<id>`).
    QString workspaceDir(const QString& workspaceId) const;
    QUrl baseUrl() const { return m_url; }
    /// The TLS listener's URL (`agent.tls-url`) when started with AgentOptions::tls, else empty.
    QUrl tlsUrl() const { return m_tlsUrl; }
    /// The TLS certificate's fingerprint as `runbox-agent --print-fingerprint` prints it
    /// (AB:CD:…); empty when the state directory holds no certificate.
    QString tlsFingerprint() const;
    quint16 port() const { return quint16(m_url.port()); }
    QByteArray token() const { return m_token; }
    /// A client signed with the agent token (valid while the agent runs; replaced by start()).
    ApiClient* client() const { return m_client.get(); }

    /// `POST /v1/workspaces` (strong); returns the id, or an empty string (see errorString()).
    /// @p workspaceToken receives the scoped token when given.
    QString createWorkspace(QByteArray* workspaceToken = nullptr);
    /// Number of workspaces `GET /v1/workspaces` lists for the agent token (-1 on error).
    int workspaceCount();

    /// Runs one sync exec and collects its stream; gives up (and disconnects) after @p timeoutMs.
    ExecOutcome exec(const QString& workspaceId, const QJsonObject& body, int timeoutMs = 60000);
    /// `{"kind":"shell","code":code}` plus the fields of @p extra.
    ExecOutcome shell(const QString& workspaceId, const QString& code,
                      const QJsonObject& extra = {}, int timeoutMs = 60000);
    /// `{"kind":"python","code":code}` plus the fields of @p extra.
    ExecOutcome python(const QString& workspaceId, const QString& code,
                       const QJsonObject& extra = {}, int timeoutMs = 60000);
    /// Starts a sync exec whose events the test observes as they arrive. Owned by this object
    /// unless re-parented; delete it when done.
    ExecStream* execStreaming(const QString& workspaceId, const QJsonObject& body);

    /// The agent's resident set size in KiB (VmRSS of /proc/<pid>/status), -1 if unknown.
    qint64 rssKiB() const;

    /// The path of the `runbox` CLI of this build.
    static QString cliPath();
    /// `--url URL --token TOKEN`, to put before a CLI command.
    QStringList cliConnectionArgs() const;

private:
    bool fail(const QString& message);
    bool checkBinaryReachable(const QString& agentPath);

    std::unique_ptr<QTemporaryDir> m_stateDir;
    QProcess m_process;
    QByteArray m_log;
    QString m_error;
    QUrl m_url;
    QUrl m_tlsUrl;
    QByteArray m_token;
    uid_t m_uid = 0;
    std::unique_ptr<ApiClient> m_client;
};

} // namespace runbox::testsupport
