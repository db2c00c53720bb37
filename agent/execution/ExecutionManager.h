#pragma once

#include "agent/Error.h"
#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionScheduler.h"
#include "agent/execution/IsolationTier.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/store/ExecutionRecord.h"

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

/// How one execution ended, for observers (the agent's metrics, docs/metrics.md).
struct ExecutionEnd {
    QString tier;           ///< isolation name ("strong", "light"); "" when none served it
    QString kind;           ///< shell | python | r | argv | provision
    QString state;          ///< its final state (docs/contracts.md "Workspaces and executions")
    qint64 durationMs = -1; ///< how long its command ran (ms); -1 when it never started
    bool managed = false;   ///< managed (recorded) rather than sync
};

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
    /// The tier of @p workspace, or nullptr with the Unavailable (503) `<isolation>_unavailable`
    /// error when this agent serves no such tier. The one place a workspace's tier is chosen.
    IsolationTier* tierOf(const workspace::Workspace& workspace, Error* error = nullptr) const;
    /// Applies a quota change to admission (global concurrency) and to the standing project
    /// quota of the workspaces (bounds::ProjectQuota::setStandingLimit).
    void applyQuotas();

    /// `POST /v1/executions`: records a queued execution and queues it. A duplicate client
    /// executionId → Conflict (409) `duplicate_execution_id` (the message names the existing id).
    std::optional<Error> submit(const ExecRequest& request, const QString& workspaceId,
                                store::ExecutionRecord* out);
    /// Cancels: a queued execution never starts; a running one is killed and becomes cancelled
    /// once its process is gone. Final ones are left as they are (200 with the record).
    std::optional<Error> cancel(const QString& executionId, store::ExecutionRecord* out);
    /// The record with its live queue position.
    std::optional<Error> get(const QString& executionId, store::ExecutionRecord* out) const;

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
    /// Executions whose backend exists and has not finished (sync and managed, every tier):
    /// from the moment their tier handed the launch back to their end.
    int runningExecutions() const { return m_runningBackends; }
    /// Called by the sync session at the end of a sync execution of @p tier: emits
    /// executionEnded() with @p kind and @p result's status and duration (@p ran: its backend
    /// existed; false for one that never started).
    void reportSyncEnd(const QString& tier, const QString& kind, const ExecutionResult& result,
                       bool ran);
    /// Called by BoundedTier for each backend a tier made: sandboxReady(), then counted in
    /// runningExecutions() until it finishes or is deleted; a setup_failed result is a
    /// sandboxSetupFailed() with its cause.
    void watchBackend(const QString& tier, qint64 setupMs, ExecutionBackend* backend);
    int queuedCount() const { return m_scheduler.queuedCount(); }
    /// Kills everything running (agent shutdown); records end as cancelled.
    void stopAll(const QString& reason);

Q_SIGNALS:
    /// The record of @p executionId is final.
    void executionFinished(const QString& executionId);
    /// An event of @p executionId that a feature published (publishEvent()).
    void executionEvent(const QString& executionId, const QJsonObject& event);
    /// An execution ended, sync or managed (a managed one once its record is final; one that
    /// ended while still queued too). Executions a previous agent left and recover() marks
    /// lost are not reported.
    void executionEnded(const runbox::execution::ExecutionEnd& end);
    /// A tier handed back the runnable launch of one run of tier @p tier, @p setupMs ms after
    /// it was asked (IsolationTier::createBackend: the launch stages, docs/metrics.md).
    void sandboxReady(const QString& tier, qint64 setupMs);
    /// A run of tier @p tier ended setup_failed because of @p cause: "plan" (a launch stage
    /// refused it: egress socket, chips, science environment, cgroup), or the
    /// ExecutionResult::setupFailureCause of its backend ("spawn", "timeout", "sandbox",
    /// "helper"; "other" when the backend did not say).
    void sandboxSetupFailed(const QString& tier, const QString& cause);

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
    int m_runningBackends = 0;                              ///< runningExecutions()
};

} // namespace runbox::execution
