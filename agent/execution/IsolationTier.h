#pragma once

#include "agent/Error.h"
#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionBackend.h"
#include "agent/execution/LaunchPlanner.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

#include <sys/types.h>

namespace runbox::workspace {
struct Workspace;
class WorkspaceFs;
} // namespace runbox::workspace

namespace runbox::execution {

/// How the ExecutionScheduler admits one execution of a tier (docs/managed.md "Admission").
struct TierAdmission {
    /// The scheduler's lease key: the workspace id for a tier whose executions hold the
    /// workspace exclusively (strong), or a key of the execution's own for a tier that runs
    /// concurrent executions in one workspace (light: bounded by its rlimits).
    QString leaseKey;
    /// Whether it counts towards the global maxConcurrentExecutions.
    bool takesGlobalSlot = true;
};

/// One run (sync or managed) a tier makes a backend for; the request is validated already
/// (ExecRequest::parse, then IsolationTier::validate).
struct TierLaunch {
    QString executionId;
    QString workspaceId;
    QString workspaceDir; ///< host path of the workspace (light: the home)
    std::optional<uid_t> workspaceUid;
    std::shared_ptr<const workspace::WorkspaceFs> fs; ///< for createdFiles & co.
    ExecRequest request;
    PermissionEpoch epoch;
    /// A managed execution (docs/managed.md): its log is the record, its output never cut.
    bool managed = false;
};

/// What IsolationTier::createBackend hands back, once (possibly from within the call).
struct TierBackend {
    /// The backend (child of the given parent, not started: start() it), or nullptr on error.
    ExecutionBackend* backend = nullptr;
    /// The exact launch a managed record keeps (`{"env","cwd","argv",…}`; docs/managed.md).
    QJsonObject provenance;
    /// LaunchPlan::diskBoundedPaths of the launch.
    QStringList diskBoundedPaths;
    /// Why there is no backend. The execution ends setup_failed with its message.
    std::optional<Error> error;
    /// With @ref error: nothing ran and nothing needs to be streamed, so a sync exec answers
    /// @ref error as its HTTP status (404/409 a racing delete, 503 the tier unavailable) when it
    /// comes from within createBackend(), before the stream's headers went out; false:
    /// the set-up failed (a stage refused the launch), which a sync stream reports as a
    /// `started` and an `exit` setup_failed event (docs/contracts.md "Event stream").
    bool refused = false;
};

/// One isolation tier (docs/ARCHITECTURE.md "Isolation tiers"): everything the execution
/// pipeline needs to know about how a workspace's commands are isolated. ExecutionManager and
/// the sync route look the workspace's tier up by its isolation name (Workspace::isolation,
/// "strong", "light") and never branch on it; a new tier implements this interface and is
/// registered with ExecutionManager::addTier.
class IsolationTier {
public:
    virtual ~IsolationTier() = default;

    /// The isolation name it serves (Workspace::isolation).
    virtual QString name() const = 0;
    /// How execution @p executionId (a managed id, or a sync job id) of @p workspaceId is
    /// admitted.
    virtual TierAdmission admission(const QString& executionId,
                                    const QString& workspaceId) const = 0;
    /// Refusals specific to the tier of a request already parsed (e.g. InvalidArgument (400)
    /// `npu_unavailable`, Unavailable (503) `sandbox_unavailable` / `light_unavailable`); empty =
    /// it may run.
    virtual std::optional<Error> validate(const ExecRequest& request,
                                          const workspace::Workspace& workspace) = 0;
    /// At intake, after validate() and before the environment is resolved
    /// (EnvironmentService::resolveSelection): the tier may fix @p request's selection (light:
    /// the workspace's own revision, LightEnvironments::pin) or refuse it. Empty = go on.
    virtual std::optional<Error> pinEnvironment(const workspace::Workspace& workspace,
                                                ExecRequest* request) {
        Q_UNUSED(workspace);
        Q_UNUSED(request);
        return std::nullopt;
    }
    /// Called by ExecutionManager::submit right before a managed execution's record is inserted
    /// (light: the workspace's row is written first, the record refers to it); an error refuses
    /// the submission.
    virtual std::optional<Error> beforeRecord(const workspace::Workspace& workspace) {
        Q_UNUSED(workspace);
        return std::nullopt;
    }
    /// Whether its runs enter the execution cgroup BoundsHost makes (strong: BoundsStage), so
    /// that a CPU limit, which only cgroup v2 `cpu.max` enforces, can hold for them.
    virtual bool runsInExecutionCgroup() const { return false; }
    /// Fields the sync stream's `started` event carries besides type, executionId, workspace
    /// and startedAt (light: `{"isolation":"light"}`).
    virtual QJsonObject startedFields() const { return {}; }

    using BackendReady = std::function<void(TierBackend)>;
    /// Makes the backend of one run and calls @p ready once (possibly before returning, never
    /// after @p parent is gone). The backend owns what its launch acquired and releases it
    /// before it emits finished().
    virtual void createBackend(const TierLaunch& launch, QObject* parent, BackendReady ready) = 0;
    /// The run @p executionId whose createBackend() has not answered yet is given up: @p ready
    /// will not be called, and what was acquired for it is released.
    virtual void abandon(const QString& executionId) { Q_UNUSED(executionId); }
};

} // namespace runbox::execution
