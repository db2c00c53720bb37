#include "agent/execution/ExecutionManager.h"

#include "agent/bounds/BoundsHost.h"
#include "agent/execution/BoundedTier.h"
#include "agent/execution/ManagedRun.h"
#include "agent/execution/SandboxSweep.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"
#include "agent/store/QuotaStore.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QDateTime>

namespace runbox::execution {

namespace {
/// The kind an execution's record keeps (store::ExecutionKind): argv for a request without one.
QString kindLabel(const QString& kind) {
    return store::toString(
        store::executionKindFromString(kind).value_or(store::ExecutionKind::Argv));
}
} // namespace

ExecutionManager::ExecutionManager(Dependencies deps, QObject* parent)
    : QObject(parent), m_deps(deps), m_planner(deps.host) {
    applyQuotas();
    connect(&m_scheduler, &ExecutionScheduler::queueChanged, this,
            &ExecutionManager::publishQueuePositions);
}

ExecutionManager::~ExecutionManager() = default;

int ExecutionManager::recover() {
    const QString reason = QStringLiteral("the agent stopped while it ran; it is never re-run");
    QStringList ids;
    m_deps.repository->markRunningAsLost(reason, 0, &ids);
    for (const QString& id : ids)
        m_deps.logs->recover(id, reason);
    m_deps.logs->recoverAll(reason);
    SandboxSweep::killLeftovers(m_deps.host->stateDir,
                                {m_deps.host->capability.bwrapPath, m_deps.host->guardPath});
    return int(ids.size());
}

ExecLimits ExecutionManager::limits() const {
    const store::QuotaSettings q = m_deps.quotas->current();
    ExecLimits l;
    l.defaultTimeoutMs = q.defaultExecutionTimeoutMs;
    l.maxTimeoutMs = q.maxExecutionTimeoutMs;
    l.defaultMaxOutputBytes = q.maxOutputBytes;
    l.maxOutputBytesCeiling = q.maxOutputBytes;
    l.rAvailable = m_deps.rAvailable;
    l.quotas = q;
    l.featureFields = m_featureFields;
    l.featureChecks = m_featureChecks;
    return l;
}

PermissionEpoch ExecutionManager::currentEpoch(const ExecRequest& request) const {
    PermissionEpoch epoch;
    epoch.quotas = m_deps.quotas->current().toJson();
    // What this run is bound by: the setting, or the request's tighter value (ExecRequest).
    if (request.bounds) {
        epoch.quotas.insert(QStringLiteral("maxWorkspaceBytes"), request.bounds->maxWorkspaceBytes);
        epoch.quotas.insert(QStringLiteral("maxMemoryBytes"), request.bounds->maxMemoryBytes);
        epoch.quotas.insert(QStringLiteral("maxProcesses"), request.bounds->maxProcesses);
        epoch.quotas.insert(QStringLiteral("maxCpuMillicores"), request.bounds->maxCpuMillicores);
    }
    for (const EpochContributor& contribute : m_epochContributors)
        contribute(request, &epoch);
    return epoch;
}

void ExecutionManager::applyQuotas() {
    const store::QuotaSettings quotas = m_deps.quotas->current();
    m_scheduler.setMaxConcurrent(int(quotas.maxConcurrentExecutions));
    // The kernel's workspace quota of the workspaces not running now (docs/bounds.md "Disk").
    if (bounds::ProjectQuota* quota = m_deps.bounds ? m_deps.bounds->projectQuota() : nullptr)
        quota->setStandingLimit(quotas.maxWorkspaceBytes);
}

void ExecutionManager::addTier(std::unique_ptr<IsolationTier> tier) {
    const QString name = tier->name();
    m_tiers.insert(name, std::make_shared<BoundedTier>(std::move(tier), m_deps.bounds, this));
}

IsolationTier* ExecutionManager::tierOf(const workspace::Workspace& workspace, Error* error) const {
    IsolationTier* tier = m_tiers.value(workspace.isolation).get();
    if (!tier && error)
        *error = Error{ErrorKind::Unavailable, workspace.isolation + QStringLiteral("_unavailable"),
                       QStringLiteral("%1 workspaces are not available in this agent")
                           .arg(workspace.isolation)};
    return tier;
}

std::optional<Error> ExecutionManager::submit(const ExecRequest& request,
                                              const QString& workspaceId,
                                              store::ExecutionRecord* out) {
    const PermissionEpoch epoch = currentEpoch(request);
    store::NewExecution row;
    row.executionId = request.executionId;
    row.workspaceId = workspaceId;
    row.kind = store::executionKindFromString(request.kind).value_or(store::ExecutionKind::Argv);
    row.permissionEpoch = epoch.toJson();
    row.permissionEpoch.insert(QStringLiteral("executionTimeoutMs"), request.timeoutMs);
    row.permissionEpoch.insert(QStringLiteral("maxOutputBytes"), request.maxOutputBytes);
    row.queuePosition = m_scheduler.queuedCount();
    const workspace::Workspace* ws = m_deps.workspaces->find(workspaceId);
    IsolationTier* tier = ws ? tierOf(*ws) : nullptr;
    if (tier) {
        if (auto err = tier->beforeRecord(*ws))
            return err;
    }
    store::ExecutionRepository::InsertResult inserted;
    if (auto err = m_deps.repository->insert(row, &inserted))
        return *err;
    if (inserted.duplicate)
        return Error{ErrorKind::Conflict, QStringLiteral("duplicate_execution_id"),
                     QStringLiteral("executionId %1 was already used (existing execution %1)")
                         .arg(inserted.record.executionId)};
    const QString id = inserted.record.executionId;
    if (auto err = m_deps.logs->create(id, request.maxOutputBytes)) {
        store::ExecutionOutcome outcome;
        outcome.state = store::ExecutionState::SetupFailed;
        outcome.statusReason = err->message;
        m_deps.repository->finish(id, outcome);
        return *err;
    }
    // Without a tier the run ends setup_failed once admitted (startManaged).
    const TierAdmission admission =
        tier ? tier->admission(id, workspaceId) : TierAdmission{workspaceId, true};
    m_scheduler.enqueue(
        {id, admission.leaseKey,
         [this, id, request, workspaceId, epoch] { startManaged(id, request, workspaceId, epoch); },
         admission.takesGlobalSlot});
    return get(id, out);
}

void ExecutionManager::startManaged(const QString& id, const ExecRequest& request,
                                    const QString& workspaceId, const PermissionEpoch& epoch) {
    const workspace::Workspace* ws = m_deps.workspaces->find(workspaceId);
    Error noTier;
    IsolationTier* tier = ws ? tierOf(*ws, &noTier) : nullptr;
    TierLaunch launch;
    launch.executionId = id;
    launch.workspaceId = workspaceId;
    launch.request = request;
    launch.epoch = epoch;
    if (ws) {
        launch.workspaceDir = ws->directory;
        launch.workspaceUid = ws->uid;
        launch.fs = ws->fs;
    }
    auto* run =
        new ManagedRun(ManagedRun::Context{m_deps.repository, m_deps.logs, tier}, std::move(launch),
                       epoch.quotas.value(QLatin1String("maxWorkspaceBytes")).toInteger(), this);
    m_runs.insert(id, run);
    const QString tierName = tier ? tier->name() : QString();
    connect(run, &ManagedRun::done, this,
            [this, run, tierName, kind = kindLabel(request.kind)](
                const QString& doneId, const ExecutionResult& result, bool ran) {
                m_runs.remove(doneId);
                m_scheduler.release(doneId);
                run->deleteLater();
                Q_EMIT executionFinished(doneId);
                Q_EMIT executionEnded(ExecutionEnd{tierName, kind, result.status,
                                                   ran ? result.durationMs : -1, true});
            });
    if (!ws)
        run->stop(QStringLiteral("setup_failed"), QStringLiteral("the workspace was deleted"));
    else if (!tier)
        run->stop(QStringLiteral("setup_failed"), noTier.message);
    run->start();
}

std::optional<Error> ExecutionManager::cancel(const QString& id, store::ExecutionRecord* out) {
    if (auto err = get(id, out))
        return err;
    if (m_scheduler.isQueued(id)) {
        m_scheduler.release(id);
        store::ExecutionOutcome outcome;
        outcome.state = store::ExecutionState::Cancelled;
        outcome.statusReason = QStringLiteral("cancelled before it started");
        m_deps.logs->finish(id);
        if (auto err = m_deps.repository->finish(id, outcome))
            return *err;
        Q_EMIT executionFinished(id);
        const workspace::Workspace* ws = m_deps.workspaces->find(out->workspaceId);
        Q_EMIT executionEnded(ExecutionEnd{ws ? ws->isolation : QString(),
                                           store::toString(out->kind), QStringLiteral("cancelled"),
                                           -1, true});
    } else if (ManagedRun* run = m_runs.value(id)) {
        run->stop(QStringLiteral("cancelled"), QStringLiteral("cancelled by a client"));
    }
    return get(id, out);
}

std::optional<Error> ExecutionManager::get(const QString& id, store::ExecutionRecord* out) const {
    if (auto err = m_deps.repository->get(id, out))
        return *err;
    const int position = m_scheduler.queuePosition(id);
    if (position > 0)
        out->queuePosition = position - 1;
    return std::nullopt;
}

void ExecutionManager::scheduleSync(const QString& jobId, const QString& workspaceId,
                                    const IsolationTier& tier, std::function<void()> start) {
    const TierAdmission admission = tier.admission(jobId, workspaceId);
    m_scheduler.enqueue({jobId, admission.leaseKey, std::move(start), admission.takesGlobalSlot});
}

void ExecutionManager::scheduleFileWrite(const QString& jobId, const QString& workspaceId,
                                         std::function<void()> start) {
    m_scheduler.enqueue({jobId, workspaceId, std::move(start), false});
}

void ExecutionManager::reportSyncEnd(const QString& tier, const QString& kind,
                                     const ExecutionResult& result, bool ran) {
    Q_EMIT executionEnded(
        ExecutionEnd{tier, kindLabel(kind), result.status, ran ? result.durationMs : -1, false});
}

void ExecutionManager::watchBackend(const QString& tier, qint64 setupMs,
                                    ExecutionBackend* backend) {
    Q_EMIT sandboxReady(tier, setupMs);
    ++m_runningBackends;
    // Once: at its finished(), or when it is deleted without one (a client gone before start).
    auto counted = std::make_shared<bool>(true);
    const auto done = [this, counted] {
        if (*counted) {
            *counted = false;
            --m_runningBackends;
        }
    };
    connect(backend, &ExecutionBackend::finished, this,
            [this, tier, done](const ExecutionResult& result) {
                done();
                if (result.status == QLatin1String("setup_failed"))
                    Q_EMIT sandboxSetupFailed(tier, result.setupFailureCause.isEmpty()
                                                        ? QStringLiteral("other")
                                                        : result.setupFailureCause);
            });
    connect(backend, &QObject::destroyed, this, done);
}

void ExecutionManager::publishQueuePositions() {
    // Positions live in memory and are merged into records on read (get()); persisting every
    // change would cost a commit per queue move.
}

void ExecutionManager::stopAll(const QString& reason) {
    for (ManagedRun* run : std::as_const(m_runs))
        run->stop(QStringLiteral("cancelled"), reason);
}

} // namespace runbox::execution
