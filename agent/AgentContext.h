#pragma once

#include "agent/config/AgentConfig.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace runbox::store {
class Database;
class ExecutionRepository;
class ExecutionRetention;
class LogStore;
class QuotaStore;
} // namespace runbox::store
namespace runbox::execution {
class ExecutionManager;
}
namespace runbox::bounds {
class BoundsHost;
}
namespace runbox::egress {
class EgressService;
}
namespace runbox::npu {
class NpuService;
}

namespace runbox::light {
class LightService;
}
namespace runbox::pool {
class PoolHost;
}
namespace runbox::environments {
class EnvironmentService;
}
namespace runbox::metrics {
class MetricsRegistry;
}

namespace runbox {

/// What the route handlers share. Owned by AgentRuntime; lives as long as the agent.
struct AgentContext {
    config::AgentConfig config;
    QByteArray agentToken;
    execution::SandboxHost host; ///< probe conclusion, seccomp programs, identity files
    workspace::WorkspaceRegistry* workspaces = nullptr;
    store::Database* database = nullptr;
    store::QuotaStore* quotas = nullptr;
    store::ExecutionRepository* executions = nullptr;
    store::LogStore* logs = nullptr;
    /// Removes finished executions by age and log-store size (/v1/health `logStore`).
    store::ExecutionRetention* retention = nullptr;
    execution::ExecutionManager* manager = nullptr;
    /// How executions' memory and processes are bounded here (docs/bounds.md).
    bounds::BoundsHost* bounds = nullptr;
    egress::EgressService* egress = nullptr; ///< network policy, gateways, decisions
    /// NPU inventory, chip reservations and the optional broker; null when not wired (then
    /// requests naming chips get 400 `npu_unavailable`).
    npu::NpuService* npu = nullptr;
    light::LightService* light =
        nullptr; ///< the light tier (null until started; may be unavailable)
    /// Science environments (docs/environments.md); null when not wired (the routes answer 503).
    environments::EnvironmentService* environments = nullptr;
    /// The agent's metrics (`GET /metrics`, docs/metrics.md); null when not wired (tests that
    /// build a context by hand): nothing is counted and scrapes are empty.
    metrics::MetricsRegistry* metrics = nullptr;
    /// The pool this agent is a host of and its capacity (docs/contracts.md "Pool hosts");
    /// never null once AgentRuntime started (a PoolHost without a name grants every create).
    pool::PoolHost* pool = nullptr;
    /// This pool host's public nonce (32 hex characters) when its agent token is derived from a
    /// pool secret (`--pool-secret-file`, docs/contracts.md "Pool credential"), else empty.
    /// Shown on `GET /health` and `/v1/health` "pool".
    QByteArray poolHostNonce;
    qint64 startedAtMs = 0;
    /// `/v1/health` `listeners` (docs/contracts.md "TLS and pinning"): `{"http":{"url"},
    /// "tls":{"url","fingerprint","generated","notAfter"}|null}`; set once both listen.
    QJsonObject listenersJson;
    /// Since when (ms since epoch) the agent has held no workspace at all; 0 while it holds some.
    qint64 noWorkspacesSinceMs = 0;
    bool rAvailable = false; ///< /usr/bin/R exists
    /// Why this agent's uid ranges could not be claimed (another live agent of the host holds an
    /// overlapping one, sandbox::UidRangeRegistry): both uid-switching tiers then fail closed.
    QString uidRangeClaimError;

    /// True when executions may run: bwrap usable and the seccomp programs built.
    bool sandboxReady() const { return host.ready(); }
    /// The 503 `sandbox_unavailable` message with the reason and the sysctl hints.
    QString unavailableReason() const;
    /// Call after workspaces were created or deleted: keeps noWorkspacesSinceMs true.
    void noteWorkspaceCount();
    /// `{"workspaces":N,"noWorkspacesForMs":ms|null,"idleAfterMs":ms,"exitWhenIdleS":s,
    /// "idle":bool}` for /v1/health: how long the agent has held no workspace (hosts that shut
    /// down when unused; exitWhenIdleS: `--exit-when-idle`, 0 = never).
    QJsonObject idleJson() const;
};

} // namespace runbox
