#include "agent/execution/BoundedTier.h"

#include "agent/bounds/BoundsHost.h"
#include "agent/execution/BoundedBackend.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/execution/WorkspaceQuotaWatcher.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QElapsedTimer>
#include <QPointer>

namespace runbox::execution {

BoundedTier::BoundedTier(std::unique_ptr<IsolationTier> inner, bounds::BoundsHost* host,
                         ExecutionManager* observer)
    : m_inner(std::move(inner)), m_host(host), m_observer(observer) {}

Error BoundedTier::quotaExceeded(qint64 usedBytes, qint64 limitBytes) {
    return Error{
        ErrorKind::TooLarge, QStringLiteral("workspace_quota_exceeded"),
        QStringLiteral("the workspace uses %1 bytes, at or above its maxWorkspaceBytes %2: "
                       "delete files (the file API still reads and deletes) before "
                       "running more")
            .arg(usedBytes)
            .arg(limitBytes)};
}

std::optional<Error> BoundedTier::validate(const ExecRequest& request,
                                           const workspace::Workspace& workspace) {
    if (auto err = m_inner->validate(request, workspace))
        return err;
    if (!request.bounds)
        return std::nullopt;
    const qint64 memory = request.bounds->maxMemoryBytes;
    if (memory > 0 && !(m_host && m_host->enforcesMemory()))
        return Error{ErrorKind::Unavailable, QStringLiteral("limit_unenforceable"),
                     QStringLiteral("maxMemoryBytes %1 cannot be enforced on this host (%2); "
                                    "an operator may set maxMemoryBytes to 0 (unlimited)")
                         .arg(memory)
                         .arg(m_host ? m_host->reason() : QStringLiteral("no bounds mechanism"))};
    const qint64 cpu = request.bounds->maxCpuMillicores;
    if (cpu > 0 && !(m_host && m_host->enforcesCpu() && m_inner->runsInExecutionCgroup()))
        return Error{
            ErrorKind::Unavailable, QStringLiteral("limit_unenforceable"),
            QStringLiteral("maxCpuMillicores %1 cannot be enforced for %2 executions on this "
                           "host (%3); an operator may set maxCpuMillicores to 0 (unlimited)")
                .arg(cpu)
                .arg(m_inner->name(),
                     m_host ? m_host->cpuJson().value(QLatin1String("reason")).toString()
                            : QStringLiteral("no bounds mechanism"))};
    const qint64 quota = request.bounds->maxWorkspaceBytes;
    WorkspaceQuotaWatcher watcher(workspace.fs, quota);
    qint64 used = 0;
    if (watcher.full(&used))
        return quotaExceeded(used, quota);
    return std::nullopt;
}

void BoundedTier::createBackend(const TierLaunch& launch, QObject* parent, BackendReady ready) {
    bounds::BoundsHost* host = m_host;
    QPointer<ExecutionManager> observer(m_observer);
    QElapsedTimer clock;
    clock.start();
    m_inner->createBackend(
        launch, parent,
        [host, launch, parent, ready, observer, clock, tier = name()](TierBackend made) {
            if (made.backend) {
                BoundedBackend::Watch watch;
                watch.limits = store::ExecutionLimits::fromJson(launch.epoch.quotas);
                watch.fs = launch.fs;
                watch.workspaceUid = launch.workspaceUid;
                watch.extraDirectories = made.diskBoundedPaths;
                if (host)
                    watch.cgroup = host->takeCgroup(launch.executionId);
                made.backend = new BoundedBackend(made.backend, host, std::move(watch), parent);
                if (observer)
                    observer->watchBackend(tier, clock.elapsed(), made.backend);
            } else {
                if (host)
                    host->dropCgroup(launch.executionId);
                if (observer && !made.refused)
                    Q_EMIT observer->sandboxSetupFailed(tier, QStringLiteral("plan"));
            }
            ready(std::move(made));
        });
}

} // namespace runbox::execution
