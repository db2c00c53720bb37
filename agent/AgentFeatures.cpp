// AgentRuntime's feature wiring (docs/ARCHITECTURE.md "Start-up"): project quotas, egress,
// science environments, NPU and the pool host, each started by AgentRuntime::start() in its order.
#include "agent/AgentRuntime.h"

#include "agent/AgentLog.h"

#include "agent/api/ApiService.h"
#include "agent/bounds/BoundsHost.h"
#include "agent/config/ConfigText.h"
#include "agent/config/HelperBinaries.h"
#include "agent/config/StateDir.h"
#include "agent/egress/EgressDecisionStore.h"
#include "agent/egress/EgressProbe.h"
#include "agent/egress/EgressService.h"
#include "agent/egress/EgressStage.h"
#include "agent/egress/HostsFileResolver.h"
#include "agent/egress/NetworkPolicyStore.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/environments/EnvironmentStage.h"
#include "agent/execution/BoundsStage.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/execution/strong/StrongTier.h"
#include "agent/light/UidSweeper.h"
#include "agent/light/tier/LightService.h"
#include "agent/light/tier/LightTier.h"
#include "agent/metrics/AgentMetrics.h"
#include "agent/npu/NpuService.h"
#include "agent/npu/NpuStage.h"
#include "agent/pool/IdleExit.h"
#include "agent/pool/PoolHost.h"
#include "agent/proxy/ProxyStage.h"
#include "agent/sandbox/BwrapPreflight.h"
#include "agent/sandbox/CapabilityProbe.h"
#include "agent/sandbox/SandboxUser.h"
#include "agent/sandbox/SeccompProfile.h"
#include "agent/service/OpenFileLimit.h"
#include "agent/service/ServiceNotifier.h"
#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/ExecutionRetention.h"
#include "agent/store/LogStore.h"
#include "agent/store/QuotaStore.h"
#include "agent/store/WorkspaceRepository.h"
#include "agent/tls/PlaintextListen.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox {

void AgentRuntime::startProjectQuota(const QString& workspacesDir) {
    const execution::SandboxHost& host = m_context.host;
    QString why;
    std::unique_ptr<bounds::ProjectQuota> quota;
    // Project ids are the workspaces' sandbox uids; a sandbox in its own user namespace cannot
    // change them (docs/bounds.md "Disk").
    if (!host.sandboxUids || !host.sandboxUserError.isEmpty())
        why = QStringLiteral("sandboxes do not run as workspace uids (the agent is not "
                             "privileged), so workspaces have no project id");
    else
        quota = bounds::ProjectQuota::detect(workspacesDir, quint32(host.sandboxUids->first), &why);
    if (!quota) {
        m_bounds->setProjectQuotaUnavailable(why);
        logLine(QStringLiteral("disk bounds: watcher (no project quota: %1)").arg(why));
        return;
    }
    quota->setStandingLimit(m_quotas->current().maxWorkspaceBytes);
    bounds::ProjectQuota* raw = quota.get();
    m_bounds->setProjectQuota(std::move(quota));
    m_workspaces->setQuotaHooks(
        {[raw](const workspace::Workspace& ws) { return raw->attach(ws.directory, *ws.uid); },
         [raw](const workspace::Workspace& ws) { raw->detach(*ws.uid); }});
    logLine(QStringLiteral("disk bounds: project_quota (%1)")
                .arg(raw->toJson().value(QLatin1String("reason")).toString()));
}

bool AgentRuntime::startEgress() {
    const config::StateDir state(m_context.config.stateDir);
    m_networkPolicies = std::make_unique<egress::NetworkPolicyStore>(*m_database);
    if (auto err = m_networkPolicies->initialize()) {
        logLine(QStringLiteral("runbox-agent: %1").arg(err->message));
        return false;
    }
    m_egressDecisions = std::make_unique<egress::EgressDecisionStore>(*m_database);
    egress::EgressService::Options options;
    options.runtimeDir = state.filePath(QStringLiteral("egress"));
    options.bridgePath = config::helperBinaryPath(QStringLiteral("runbox-egress-bridge"));
    const QString testHosts = m_context.config.testResolverHostsPath;
    if (testHosts.isEmpty()) {
        options.resolver = std::make_shared<egress::SystemResolver>();
    } else {
        options.resolver = std::make_shared<egress::HostsFileResolver>(testHosts);
        logLine(QStringLiteral("warning: %1 is set: egress resolves names from %2, not DNS "
                               "(for tests only)")
                    .arg(QLatin1String(config::optionSpec(config::Key::TestResolverHosts).envVar),
                         testHosts));
    }
    m_egress = std::make_unique<egress::EgressService>(options, m_networkPolicies.get(),
                                                       m_egressDecisions.get());
    m_egressStage = std::make_unique<egress::EgressStage>(m_egress.get());
    m_manager->planner().addStage(m_egressStage.get());
    egress::EgressService* service = m_egress.get();
    m_manager->addEpochContributor(
        [service](const execution::ExecRequest&, execution::PermissionEpoch* epoch) {
            service->snapshotInto(epoch);
        });
    execution::ExecutionManager* manager = m_manager.get();
    connect(service, &egress::EgressService::decisionRecorded, manager,
            [manager](const QString& executionId, const egress::EgressDecision& decision) {
                manager->publishEvent(executionId, egress::EgressService::eventOf(decision));
            });
    m_context.egress = service;

    bool works = false;
    QString reason = m_egress->bridgeProblem();
    if (!m_context.sandboxReady())
        reason = QStringLiteral("no sandbox: %1").arg(m_context.unavailableReason());
    else if (reason.isEmpty())
        egress::EgressProbe::runAndWait(m_manager->planner(), m_context.host,
                                        state.filePath(QStringLiteral("egress/probe-workspace")),
                                        15000, &works, &reason);
    m_egress->setProbeResult(works, reason);
    if (!works)
        logLine(QStringLiteral("warning: egress is unavailable (policy domain-allowlist cannot "
                               "run): %1")
                    .arg(reason));
    return true;
}

void AgentRuntime::startEnvironments(const QString& stateDir) {
    environments::EnvironmentService::Dependencies deps;
    deps.database = m_database.get();
    deps.manager = m_manager.get();
    deps.workspaces = m_workspaces.get();
    deps.stateDir = stateDir;
    deps.wheelhouse = m_context.config.envWheelhouse;
    deps.cranRepository = m_context.config.envCranRepository;
    deps.micromamba = m_context.config.envMicromamba;
    deps.micromambaSha256 = m_context.config.envMicromambaSha256;
    deps.condaChannels = m_context.config.envCondaChannels;
    deps.indexUrl = m_context.config.envIndexUrl;
    deps.cranUrl = m_context.config.envCranUrl;
    deps.condaChannelUrls = m_context.config.envCondaChannelUrls;
    deps.indexCaFile = m_context.config.envIndexCaFile;
    deps.indexPrivateCidrs = m_context.config.envIndexPrivateCidrs;
    deps.revisionGraceMs = m_context.config.envRevisionGraceS * 1000;
    deps.starters = m_context.config.envStarters;
    deps.starterPythonPackages = m_context.config.envStarterPythonPackages;
    deps.starterRPackages = m_context.config.envStarterRPackages;
    deps.executions = m_executions.get();
    m_environments = std::make_unique<environments::EnvironmentService>(deps);
    for (const QString& w : m_environments->start())
        logLine(QStringLiteral("warning: %1").arg(w));
    m_environmentStage = std::make_unique<environments::EnvironmentStage>(
        m_environments.get(), environments::EnvironmentStage::hostInterpreters());
    m_manager->planner().addStage(m_environmentStage.get());
    m_context.environments = m_environments.get();
}

void AgentRuntime::startNpu() {
    // One inventory and one set of reservations for executions and broker jobs alike; the probe
    // sandbox has the real launch's shape (same bwrap, same argv up to --dev /dev).
    npu::NpuConfig config = npu::NpuConfig::fromConfig(m_context.config.values);
    config.offeredChips = m_context.config.npuChips; // parsed and checked at start-up
    if (!m_context.host.capability.bwrapPath.isEmpty())
        config.bwrapPath = m_context.host.capability.bwrapPath;
    m_npu = std::make_unique<npu::NpuService>(
        config, npu::NpuService::probeOptionsFor(m_context.host, config));
    m_npuStage = std::make_unique<npu::NpuStage>(m_npu.get());
    m_manager->planner().addStage(m_npuStage.get());
    m_manager->addRequestFeature(npu::NpuStage::kField, &npu::NpuStage::checkField);
    m_manager->addEpochContributor(&npu::NpuStage::recordInto);
    m_context.npu = m_npu.get();
    m_npu->attachStore(*m_database, m_logs.get()); // broker jobs are executions (docs/npu.md)
    if (!m_npu->brokerError().isEmpty())
        logLine(QStringLiteral("warning: npu broker: %1").arg(m_npu->brokerError()));
    else if (m_npu->broker())
        logLine(QStringLiteral("npu broker on: %1 workload(s) from %2")
                    .arg(m_npu->broker()->catalog().workloads().size())
                    .arg(config.workloadCatalogPath));
    m_npu->start(
        [](const npu::NpuSnapshot& snapshot) { logLine(npu::NpuService::summaryLine(snapshot)); });
}

void AgentRuntime::startPool() {
    const config::AgentConfig& c = m_context.config;
    workspace::WorkspaceRegistry* workspaces = m_workspaces.get();
    m_pool =
        std::make_unique<pool::PoolHost>(c.poolName, c.poolCapacity, c.poolLabels, c.exitWhenIdleS,
                                         [workspaces] { return workspaces->count(); });
    m_pool->setHostNonce(m_context.poolHostNonce);
    m_context.pool = m_pool.get();
    if (c.exitWhenIdleS <= 0)
        return;
    const execution::ExecutionManager* manager = m_manager.get();
    m_idleExit = new pool::IdleExit(
        c.exitWhenIdleS,
        [workspaces, manager] {
            return workspaces->count() > 0 || manager->runningCount() > 0 ||
                   manager->queuedCount() > 0 || manager->runningExecutions() > 0;
        },
        this);
    connect(m_idleExit, &pool::IdleExit::idle, this, [this](const QString& why) { shutdown(why); });
}

} // namespace runbox
