#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionBackend.h"
#include "agent/execution/OutputFramer.h"
#include "agent/execution/WorkspaceChanges.h"
#include "agent/execution/strong/SandboxProcess.h"
#include "agent/sandbox/SandboxLaunch.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>

namespace runbox::execution {

/// The strong tier's backend: runs one sandbox launch to its end, emitting every output byte
/// (output()) and then the result (finished()); ExecutionStream makes the events of it and
/// applies the output limit. Enforces the execution timeout and the set-up timeout by killing
/// the whole process group, and tells a sandbox that could not be built (bwrap's last line,
/// the egress bridge's status) from the command's own failure.
class ExecutionRunner final : public ExecutionBackend {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionRunner)
public:
    struct Options {
        QString executionId; ///< the agent's id of this execution
        QString workspaceId;
        qint64 timeoutMs = 0; ///< 0 = unlimited
        qint64 setupTimeoutMs = 10000;
        quint64 maxProcesses = 4096; ///< RLIMIT_NPROC of the sandbox
        QString guardPath;           ///< runbox-sandbox-guard (SandboxHost::guardPath); empty: none
        QByteArray stdinData;
        /// Called before start and after the end to compute the workspace changes.
        ChangeTracking tracking;
        /// Called once the sandbox is gone, right before finished(): the owner releases what the
        /// launch acquired (LaunchPlan::release), so that reports those releases cause (the
        /// egress gateway's last decisions) reach the stream before `exit`.
        std::function<void()> beforeExitEvent;
    };

    ExecutionRunner(sandbox::SandboxLaunch launch, Options options, QObject* parent = nullptr);

    void start() override;
    /// Kills the execution; it ends with @p status (cancelled, quota_exceeded, …) and @p reason.
    void stop(const QString& status, const QString& reason) override;
    /// Backpressure: stops reading the sandbox's output while the consumer is behind.
    void setPaused(bool paused) override;
    bool isFinished() const { return m_finished; }
    const sandbox::SandboxLaunch& launch() const { return m_launch; }

private:
    void onOutput(int stream, const QByteArray& data);
    void onProcessFinished(const ProcessExit& exit);
    void checkSetup();
    /// What the launch's set-up status channel reports (SandboxLaunch::readSetupStatus);
    /// std::nullopt without a channel or when the set-up succeeded.
    std::optional<sandbox::SetupFailure> setupFailure(const ProcessExit& exit) const;
    void finishWith(ExecutionResult result);

    sandbox::SandboxLaunch m_launch;
    Options m_options;
    SandboxProcess* m_process;
    qint64 m_streamBytes[2] = {0, 0}; ///< stdout, stderr bytes received
    QByteArray m_stderrHead;          ///< first bytes of stderr, to explain a failed set-up
    QString m_stopStatus, m_stopReason;
    QTimer m_timeout, m_setupTimer;
    QElapsedTimer m_clock;
    bool m_finished = false;
    bool m_setupTimedOut = false; ///< checkSetup() stopped it: its set-up ran out of time
};

} // namespace runbox::execution
