#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionScheduler.h"
#include "agent/execution/IsolationTier.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/store/ExecutionRecord.h"
#include "shared/ApiError.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace runbox::store {
class Database;
class ExecutionRepository;
class LogStore;
class QuotaStore;
} // namespace runbox::store
namespace runbox::workspace {
struct Workspace;
class WorkspaceRegistry;
} // namespace runbox::workspace

namespace runbox::bounds {
class BoundsHost;
}

namespace runbox::execution {

class ManagedRun;

/// Owns every execution of the agent (docs/managed.md): admission through the ExecutionScheduler
/// (the lease key and global slot its workspace's IsolationTier says, global limit from the
/// quotas), managed executions with durable records and logs that outlive clients,
/// cancellation, the limits requests are validated against, and start-up recovery
/// (running/queued records → lost, unfinished logs closed, stray sandboxes killed). Sync
/// executions are admitted the same way but are not recorded. The tiers are registered by
/// isolation name (addTier); nothing here depends on which tier a workspace has.
class ExecutionManager final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionManager)
public:
    struct Dependencies {
        store::ExecutionRepository* repository = nullptr;
        store::LogStore* logs = nullptr;
        store::QuotaStore* quotas = nullptr;
        workspace::WorkspaceRegistry* workspaces = nullptr;
        const SandboxHost* host = nullptr;
        bool rAvailable = false;
        /// The resource bounds every tier's runs are put under (BoundedTier); may be null.
        bounds::BoundsHost* bounds = nullptr;
    };

    explicit ExecutionManager(Dependencies deps, QObject* parent = nullptr);
    ~ExecutionManager() override;

    /// Start-up: marks running/queued records lost, closes their logs, kills sandboxes a dead
    /// agent left behind. Returns the number of records marked lost.
    int recover();

    /// The limits requests are validated against now (quotas in force).
    ExecLimits limits() const;
    /// The permission epoch an execution created now gets: the quotas, then what each
    /// contributor records (the network policy in force, the request's chips, …).
    PermissionEpoch currentEpoch(const ExecRequest& request) const;
    /// A feature that records its section of every new permission epoch from the request and
    /// the agent's state (called on the agent's thread at creation: the snapshot is then fixed
    /// for the execution's whole life).
    using EpochContributor = std::function<void(const ExecRequest&, PermissionEpoch*)>;
    void addEpochContributor(EpochContributor contributor) {
        m_epochContributors.append(std::move(contributor));
    }
    /// Declares @p field a feature section of exec requests (ExecLimits::featureFields): kept
    /// as sent for its feature instead of being refused as unknown. @p check, when set, is the
    /// section's form check (ExecLimits::featureChecks), run on every request that has it.
    void addRequestFeature(const QString& field, ExecLimits::FeatureCheck check = {}) {
        m_featureFields.append(field);
        if (check)
            m_featureChecks.insert(field, std::move(check));
    }
    /// Publishes a feature's event of a running execution (e.g. `{"type":"egress",…}`) to the
    /// sync stream of that execution, if one is open (executionEvent()).
    void publishEvent(const QString& executionId, const QJsonObject& event) {
        Q_EMIT executionEvent(executionId, event);
    }
    /// Registers a tier for the workspaces whose Workspace::isolation is its name() (replacing
    /// one of the same name). Owned.
    void addTier(std::unique_ptr<IsolationTier> tier);
    /// The tier of @p workspace, or nullptr with the 503 `<isolation>_unavailable` error when
    /// this agent serves no such tier. The one place a workspace's tier is chosen.
    IsolationTier* tierOf(const workspace::Workspace& workspace, ApiError* error = nullptr) const;
    /// Applies a quota change to admission (global concurrency) and to the standing project
    /// quota of the workspaces (bounds::ProjectQuota::setStandingLimit).
    void applyQuotas();

    /// `POST /v1/executions`: records a queued execution and queues it. A duplicate client
    /// executionId → 409 `duplicate_execution_id` (the message names the existing id).
    std::optional<ApiError> submit(const ExecRequest& request, const QString& workspaceId,
                                   store::ExecutionRecord* out);
    /// Cancels: a queued execution never starts; a running one is killed and becomes cancelled
    /// once its process is gone. Final ones are left as they are (200 with the record).
    std::optional<ApiError> cancel(const QString& executionId, store::ExecutionRecord* out);
    /// The record with its live queue position.
    std::optional<ApiError> get(const QString& executionId, store::ExecutionRecord* out) const;

    /// Sync path: calls @p start once @p tier admits job @p jobId in @p workspaceId
    /// (IsolationTier::admission: the workspace lease and a global slot, or neither); the caller
    /// then runs and must call releaseSync(@p jobId) at the end. While it waits,
    /// queuePosition(@p jobId) is its position.
    void scheduleSync(const QString& jobId, const QString& workspaceId, const IsolationTier& tier,
                      std::function<void()> start);
    void releaseSync(const QString& jobId) { m_scheduler.release(jobId); }
    /// File-API writes (PUT commit, DELETE, move; docs/contracts.md "Workspace file API"):
    /// calls @p start once @p workspaceId's lease is granted — the lease only, no execution
    /// slot, so short writes are not held up by the global concurrency limit. The caller must
    /// then call releaseSync(@p jobId); releasing a job that still waits drops it from the queue.
    void scheduleFileWrite(const QString& jobId, const QString& workspaceId,
                           std::function<void()> start);
    /// 1-based queue position of a waiting job, 0 when admitted or unknown.
    int queuePosition(const QString& jobId) const { return m_scheduler.queuePosition(jobId); }
    bool workspaceBusy(const QString& workspaceId) const {
        return m_scheduler.workspaceBusy(workspaceId);
    }
    const LaunchPlanner& planner() const { return m_planner; }
    /// For features to add their LaunchStage at start-up.
    LaunchPlanner& planner() { return m_planner; }
    const SandboxHost& host() const { return *m_deps.host; }
    int runningCount() const { return m_scheduler.runningCount(); }
    int queuedCount() const { return m_scheduler.queuedCount(); }
    /// Kills everything running (agent shutdown); records end as cancelled.
    void stopAll(const QString& reason);

Q_SIGNALS:
    /// The record of @p executionId is final.
    void executionFinished(const QString& executionId);
    /// An event of @p executionId that a feature published (publishEvent()).
    void executionEvent(const QString& executionId, const QJsonObject& event);

private:
    void startManaged(const QString& executionId, const ExecRequest& request,
                      const QString& workspaceId, const PermissionEpoch& epoch);
    void publishQueuePositions();

    Dependencies m_deps;
    LaunchPlanner m_planner;
    ExecutionScheduler m_scheduler;
    QHash<QString, ManagedRun*> m_runs; ///< running managed executions
    QList<EpochContributor> m_epochContributors;
    QStringList m_featureFields;
    QMap<QString, ExecLimits::FeatureCheck> m_featureChecks;
    QHash<QString, std::shared_ptr<IsolationTier>> m_tiers; ///< by isolation name
};

} // namespace runbox::execution
