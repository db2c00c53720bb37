#pragma once

#include "agent/AgentListeners.h"

#include "agent/AgentContext.h"
#include "agent/sandbox/NoSuidMount.h"
#include "agent/sandbox/UidRangeRegistry.h"

#include <QObject>

#include <memory>

namespace runbox {

namespace config {
class StateDir;
}

namespace api {
class ApiService;
} // namespace api
namespace pool {
class IdleExit;
class PoolHost;
} // namespace pool
namespace light {
class LightService;
} // namespace light
namespace environments {
class EnvironmentService;
class EnvironmentStage;
} // namespace environments
namespace http {
class HttpServer;
}
namespace workspace {
class WorkspaceRegistry;
}
namespace store {
class Database;
class QuotaStore;
class ExecutionRepository;
class WorkspaceRepository;
class LogStore;
class ExecutionRetention;
} // namespace store
namespace execution {
class BoundsStage;
class ExecutionManager;
} // namespace execution
namespace bounds {
class BoundsHost;
}
namespace egress {
class EgressDecisionStore;
class EgressService;
class EgressStage;
class NetworkPolicyStore;
} // namespace egress

namespace npu {
class NpuService;
class NpuStage;
} // namespace npu
namespace proxy {
class ProxyStage;
} // namespace proxy
namespace metrics {
class MetricsRegistry;
class AgentMetrics;
} // namespace metrics

/// Brings the agent up in the order the start-up contract needs (config, state dir, token,
/// bwrap preflight, capability probe, seccomp programs, identity files, workspaces, executions,
/// egress and its probe, NPU service and its launch stage, listener, light tier (it must know the
/// listening port, which it keeps out of reach), agent.url) and takes it down on SIGTERM/SIGINT
/// (stop accepting, kill running executions, exit once they have reported).
class AgentRuntime final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentRuntime)
public:
    AgentRuntime();
    ~AgentRuntime() override;

    /// Returns -1 when the agent is up and the event loop should run, otherwise the exit code
    /// (0 for --help, --help-markdown, --print-config and --rotate-metrics-token, which start
    /// nothing; 2 for a bad
    /// option or value; 1 for a start-up failure, with the reason on stderr).
    int start(const QStringList& args);

private:
    /// Network policy, gateways, decision record, launch stage, start-up probe
    /// (agent/egress/README.md). Returns false (reason logged) when the stored policy cannot be
    /// loaded.
    bool startEgress();
    /// Detects the kernel's project quota for the strong workspaces under @p workspacesDir
    /// (bounds::ProjectQuota, docs/bounds.md "Disk"), hands it to the BoundsHost and the
    /// registry's quota hooks, and logs the disk mode. Before WorkspaceRegistry::load().
    void startProjectQuota(const QString& workspacesDir);
    /// NPU config from the configuration table, the NpuService, its launch stage, the first
    /// inventory read in the background.
    void startNpu();
    /// Science environments (docs/environments.md): the service (builds left unfinished by a
    /// previous agent failed, their prefixes removed), its stage and request fields.
    void startEnvironments(const QString& stateDir);
    /// A privileged agent: checks the sandbox uid range against the host's ids and claims it
    /// (with the light range) in the host's registry; a failure fails the strong tier closed
    /// (SandboxHost::sandboxUserError).
    void claimSandboxUids(const config::StateDir& state);
    /// The pool host (docs/contracts.md "Pool hosts": capacity, health) and, with
    /// --exit-when-idle, the idle exit. After the execution manager, before the API.
    void startPool();
    void installSignalHandlers();
    /// Stops the agent: no new connection, executions ended, the event loop left (exit 0).
    /// @p why: the log line's reason ("signal received", the idle exit's).
    void shutdown(const QString& why);

    AgentContext m_context;
    sandbox::UidRangeRegistry m_uidRanges;
    sandbox::NoSuidMount m_workspacesNoSuid; ///< <state>/workspaces under a privileged agent
    std::unique_ptr<store::Database> m_database;
    std::unique_ptr<store::QuotaStore> m_quotas;
    std::unique_ptr<store::ExecutionRepository> m_executions;
    std::unique_ptr<store::WorkspaceRepository> m_workspaceRows;
    std::unique_ptr<store::LogStore> m_logs;
    std::unique_ptr<store::ExecutionRetention> m_retention;
    std::unique_ptr<workspace::WorkspaceRegistry> m_workspaces;
    // Egress outlives the manager: runs release their gateway sockets when they are destroyed.
    std::unique_ptr<egress::NetworkPolicyStore> m_networkPolicies;
    std::unique_ptr<egress::EgressDecisionStore> m_egressDecisions;
    std::unique_ptr<egress::EgressService> m_egress;
    std::unique_ptr<egress::EgressStage> m_egressStage;
    std::unique_ptr<npu::NpuService> m_npu;
    std::unique_ptr<npu::NpuStage> m_npuStage;
    std::unique_ptr<proxy::ProxyStage> m_proxyStage;
    std::unique_ptr<bounds::BoundsHost> m_bounds;
    std::unique_ptr<execution::BoundsStage> m_boundsStage;
    /// Before the manager, so destroyed after it: its runs' plans release their revisions.
    std::unique_ptr<environments::EnvironmentService> m_environments;
    std::unique_ptr<environments::EnvironmentStage> m_environmentStage;
    std::unique_ptr<execution::ExecutionManager> m_manager;
    std::unique_ptr<pool::PoolHost> m_pool;
    pool::IdleExit* m_idleExit = nullptr;         ///< --exit-when-idle; child of this
    std::unique_ptr<light::LightService> m_light; ///< after the registry, before the API (order)
    /// The metrics (docs/metrics.md); destroyed after the API that serves them.
    std::unique_ptr<metrics::MetricsRegistry> m_metrics;
    std::unique_ptr<metrics::AgentMetrics> m_agentMetrics;
    std::unique_ptr<api::ApiService> m_api;
    AgentListeners m_listeners; ///< plain and TLS; after the API they serve (order)
};

} // namespace runbox
