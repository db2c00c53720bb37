#include "agent/execution/strong/StrongTier.h"

#include "agent/execution/WorkspaceChanges.h"
#include "agent/execution/strong/ExecutionRunner.h"
#include "agent/store/QuotaSettings.h"

#include <QJsonArray>
#include <QPointer>

namespace runbox::execution {

namespace {
constexpr qint64 kManagedSetupTimeoutMs = 10000;

QJsonObject mapToJson(const QMap<QString, QString>& map) {
    QJsonObject o;
    for (auto it = map.begin(); it != map.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}
} // namespace

StrongTier::StrongTier(const LaunchPlanner* planner, const SandboxHost* host,
                       std::function<std::optional<Error>()> availability,
                       qint64 syncSetupTimeoutMs)
    : m_planner(planner), m_host(host), m_availability(std::move(availability)),
      m_syncSetupTimeoutMs(syncSetupTimeoutMs) {}

TierAdmission StrongTier::admission(const QString& executionId, const QString& workspaceId) const {
    Q_UNUSED(executionId);
    return {workspaceId, true};
}

std::optional<Error> StrongTier::validate(const ExecRequest& request,
                                          const workspace::Workspace& workspace) {
    Q_UNUSED(request);
    Q_UNUSED(workspace);
    return m_availability ? m_availability() : std::nullopt;
}

void StrongTier::createBackend(const TierLaunch& launch, QObject* parent, BackendReady ready) {
    QPointer<QObject> guard(parent);
    m_planner->plan(
        LaunchContext{launch.request, launch.executionId, launch.workspaceId, launch.workspaceDir,
                      launch.epoch, launch.workspaceUid},
        [this, guard, launch, ready](std::optional<Error> err, std::shared_ptr<LaunchPlan> plan) {
            if (!guard) {
                if (plan)
                    plan->release();
                return;
            }
            TierBackend made;
            if (err) {
                made.error = err;
                return ready(made);
            }
            ExecutionRunner::Options opts;
            opts.executionId = launch.executionId;
            opts.workspaceId = launch.workspaceId;
            opts.timeoutMs = launch.request.timeoutMs;
            opts.setupTimeoutMs = launch.managed ? kManagedSetupTimeoutMs : m_syncSetupTimeoutMs;
            // The execution's own bound (docs/bounds.md); 0 = unlimited: the host's default.
            const qint64 maxProcesses =
                store::ExecutionLimits::fromJson(launch.epoch.quotas).maxProcesses;
            opts.maxProcesses = maxProcesses > 0 ? quint64(maxProcesses) : m_host->maxProcesses;
            opts.guardPath = m_host->guardPath;
            opts.stdinData = launch.request.stdinData;
            trackWorkspaceChanges(&opts.tracking, launch.fs);
            opts.beforeExitEvent = [plan] { plan->release(); };
            auto* runner = new ExecutionRunner(plan->launch, opts, guard.data());
            QObject::connect(runner, &QObject::destroyed, [plan] { plan->release(); });
            made.backend = runner;
            made.diskBoundedPaths = plan->diskBoundedPaths;
            made.provenance = {{"env", mapToJson(plan->launch.sandboxEnvironment)},
                               {"cwd", plan->launch.sandboxCwd},
                               {"argv", QJsonArray::fromStringList(plan->launch.command)}};
            ready(made);
        });
}

} // namespace runbox::execution
