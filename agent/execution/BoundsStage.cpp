#include "agent/execution/BoundsStage.h"

#include "agent/bounds/BoundsHost.h"
#include "agent/store/QuotaSettings.h"

#include <QFile>

#include <fcntl.h>
#include <unistd.h>

namespace runbox::execution {

void BoundsStage::prepare(const LaunchContext& context, LaunchPlan* plan,
                          std::function<void(std::optional<Error>)> done) {
    const store::ExecutionLimits limits = store::ExecutionLimits::fromJson(context.epoch.quotas);
    plan->spec.tmpfsBytes = limits.maxMemoryBytes;
    plan->maxFileBytes = limits.maxWorkspaceBytes;
    // The kernel's project quota holds this execution's own limit while it runs (a workspace
    // runs one execution at a time); probe launches name no workspace.
    if (bounds::ProjectQuota* quota = m_host ? m_host->projectQuota() : nullptr;
        quota && context.workspaceUid && !context.workspaceId.isEmpty()) {
        const quint32 project = quint32(*context.workspaceUid);
        if (auto err = quota->beginRun(project, limits.maxWorkspaceBytes))
            return done(Error{ErrorKind::Unavailable, err->code, err->message});
        plan->releases.push_back([quota, project] { quota->endRun(project); });
    }
    if (!m_host || m_host->mode() != bounds::BoundsHost::Mode::Cgroup2)
        return done(std::nullopt);
    bounds::ResourceLimits resources;
    resources.memoryBytes = limits.maxMemoryBytes;
    resources.maxProcesses = limits.maxProcesses;
    resources.maxCpuCores = double(limits.maxCpuMillicores) / 1000.0;
    QString error;
    bounds::ExecutionCgroup* cgroup = m_host->createCgroup(context.executionId, resources, &error);
    const int fd =
        cgroup ? ::open(QFile::encodeName(cgroup->directory() + QStringLiteral("/cgroup.procs"))
                            .constData(),
                        O_WRONLY | O_CLOEXEC)
               : -1;
    if (fd < 0) {
        m_host->dropCgroup(context.executionId);
        // Fail closed: the limits were promised by this host's mode (docs/bounds.md).
        return done(
            Error{ErrorKind::Unavailable, QStringLiteral("limit_unenforceable"),
                  QStringLiteral("the execution's cgroup could not be made: %1")
                      .arg(cgroup ? QStringLiteral("cgroup.procs cannot be opened") : error)});
    }
    plan->cgroupProcsFd = fd;
    bounds::BoundsHost* host = m_host;
    const QString id = context.executionId;
    // The fd is closed with the plan; the cgroup stays with the host until the run takes it
    // (a launch that never ran drops it here: takeCgroup already moved it otherwise).
    plan->releases.push_back([fd, host, id] {
        ::close(fd);
        host->dropCgroup(id);
    });
    done(std::nullopt);
}

} // namespace runbox::execution
