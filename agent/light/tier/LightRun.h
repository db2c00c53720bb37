#pragma once

#include "agent/Error.h"
#include "agent/execution/ExecRequest.h"
#include "agent/execution/IsolationTier.h"
#include "agent/execution/WorkspaceChanges.h"
#include "agent/light/LightExecution.h"

#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

namespace runbox::execution {
class ChildPipes;
}

namespace runbox::light {

class LightService;

/// One execution in a light workspace (docs/light-workspaces.md): the ExecutionBackend that
/// ManagedRun drives, so a managed execution's record, log, cancel, timeout and recovery are those
/// of a strong one; a sync exec (SyncExecSession, ExecutionStream) frames the same signals. The
/// command runs through LightWorkspaceHost::exec with three pipes; every output byte is emitted in
/// arrival order. finished() comes once the status is in and both pipes reached EOF, or, when a
/// background process of the workspace still holds a pipe, once what was buffered has been read and
/// a 1 s drain bound has passed. The timeout is the host's (the whole tree is SIGKILLed); stop()
/// kills the tree. While it runs the workspace counts as active (LightService::beginActivity):
/// never evicted as idle, and not watched between executions (LightBackgroundBounds: its own
/// bounds count the workspace's whole uid, background processes included; a memory_exceeded
/// reason says what those held when it started). Its epoch's maxProcesses is the RLIMIT_NPROC
/// of its tree (LightExecRequest::maxProcesses).
class LightRun final : public execution::ExecutionBackend {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LightRun)
public:
    LightRun(LightService* light, const execution::TierLaunch& launch, QObject* parent = nullptr);
    ~LightRun() override;

    /// Starts the command unless launch() did; an error from the host (the workspace was deleted
    /// meanwhile: 404/409) ends it at once as setup_failed.
    void start() override;
    void stop(const QString& status, const QString& reason) override;

    /// start() for a caller that answers errors itself: Unavailable (503) resources_exhausted
    /// (no pipes) or light_unavailable, or the host's error (404/409 racing delete, 400); then
    /// nothing ran, nothing is emitted and this object may be deleted.
    std::optional<Error> launch();
    /// Stops reading output while @p paused (the reader is slow); ignored once the command has
    /// ended, when everything it wrote is read whatever the reader's pace (bounded).
    void setPaused(bool paused) override;
    void skipFileChanges() override { m_tracking.changesAfter = nullptr; }

private:
    void onFinished(const LightExitStatus& status);
    void maybeEnd();
    void finishWith(execution::ExecutionResult result);

    QPointer<LightService> m_light; ///< may go first at agent shutdown
    QString m_executionId, m_workspaceId;
    execution::ExecRequest m_request;
    qint64 m_maxProcesses = 0;            ///< the epoch's maxProcesses (0 = the workspace's own)
    execution::ChangeTracking m_tracking; ///< snapshot before/after (file changes)
    std::shared_ptr<LightExecution> m_execution;
    execution::ChildPipes* m_pipes; ///< stdin, stdout, stderr (owned, child QObject)
    /// What processes left by earlier executions held when it started.
    int m_backgroundProcesses = 0;
    qint64 m_backgroundBytes = 0;
    QString m_stopStatus, m_stopReason;
    std::optional<LightExitStatus> m_status;
    QTimer m_drain;
    bool m_activity = false;
    bool m_running = false; ///< counted by LightBackgroundBounds
    bool m_ended = false;
};

} // namespace runbox::light
