#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionBackend.h"
#include "agent/execution/OutputFramer.h"
#include "agent/execution/SandboxProcess.h"
#include "agent/sandbox/SandboxLaunch.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>

namespace runbox::execution {

/// Runs one sandbox launch to its end and turns it into the event stream (docs/contracts.md "Event
/// stream"): `started`, `stdout`/`stderr` frames, `ping` after 15 s of silence, `exit` last (after
/// every byte of output). Enforces the execution timeout, the output limit and the set-up timeout
/// by killing the whole process group.
class ExecutionRunner final : public ExecutionBackend {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionRunner)
public:
    struct Options {
        QString executionId; ///< the agent's id of this execution
        QString workspaceId;
        qint64 timeoutMs = 0;      ///< 0 = unlimited
        qint64 maxOutputBytes = 0; ///< stdout + stderr; 0 = unlimited
        qint64 setupTimeoutMs = 10000;
        quint64 maxProcesses = 4096; ///< RLIMIT_NPROC of the sandbox
        QString guardPath;           ///< runbox-sandbox-guard (SandboxHost::guardPath); empty: none
        QByteArray stdinData;
        /// False: output is delivered only by the output() signal, no `stdout`/`stderr` events
        /// are framed (managed runs: the log is the record, and framing every byte as JSON
        /// cost a fifth of the agent's CPU while following `head -c 1G /dev/zero`).
        bool outputEvents = true;
        /// Called before start and after the end to compute the workspace changes.
        std::function<void()> snapshotBefore;
        std::function<FileChanges()> changesAfter;
        /// Called once the sandbox is gone, right before the `exit` event: the owner releases
        /// what the launch acquired (LaunchPlan::release), so that reports those releases cause
        /// (the egress gateway's last decisions) reach the stream before `exit`.
        std::function<void()> beforeExitEvent;
    };

    ExecutionRunner(sandbox::SandboxLaunch launch, Options options, QObject* parent = nullptr);

    void start() override;
    /// Kills the execution; it ends with @p status (cancelled, quota_exceeded, …) and @p reason.
    void stop(const QString& status, const QString& reason) override;
    /// Backpressure: stops reading the sandbox's output while the consumer is behind.
    void setPaused(bool paused);
    bool isFinished() const { return m_finished; }
    const sandbox::SandboxLaunch& launch() const { return m_launch; }

Q_SIGNALS:
    void event(const QJsonObject& event);

private:
    void onOutput(int stream, const QByteArray& data);
    /// Counts @p bytes and, with Options::outputEvents, frames them into events.
    void frameOutput(int stream, const QByteArray& bytes);
    void onProcessFinished(const ProcessExit& exit);
    void checkSetup();
    /// What the launch's set-up status channel reports (SandboxLaunch::readSetupStatus);
    /// std::nullopt without a channel or when the set-up succeeded.
    std::optional<sandbox::SetupFailure> setupFailure(const ProcessExit& exit) const;
    void sendEvent(const QJsonObject& ev);
    void finishWith(ExecutionResult result);

    sandbox::SandboxLaunch m_launch;
    Options m_options;
    SandboxProcess* m_process;
    OutputFramer m_framer;
    qint64 m_streamBytes[2] = {0, 0}; ///< stdout, stderr bytes received
    QByteArray m_stderrHead;          ///< first bytes of stderr, to explain a failed set-up
    qint64 m_outputBytes = 0;
    QString m_stopStatus, m_stopReason;
    QTimer m_timeout, m_setupTimer, m_ping;
    QElapsedTimer m_clock;
    bool m_finished = false;
};

} // namespace runbox::execution
