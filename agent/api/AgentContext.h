#pragma once

#include "agent/config/AgentConfig.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QByteArray>
#include <QString>

namespace runbox::store {
class Database;
class ExecutionRepository;
class LogStore;
class QuotaStore;
} // namespace runbox::store
namespace runbox::execution {
class ExecutionManager;
}
namespace runbox::egress {
class EgressService;
}

namespace runbox::api {

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
    execution::ExecutionManager* manager = nullptr;
    egress::EgressService* egress = nullptr; ///< network policy, gateways, decisions
    qint64 startedAtMs = 0;
    bool rAvailable = false; ///< /usr/bin/R exists

    /// True when executions may run: bwrap usable and the seccomp programs built.
    bool sandboxReady() const { return host.ready(); }
    /// The 503 `sandbox_unavailable` message with the reason and the sysctl hints.
    QString unavailableReason() const;
};

} // namespace runbox::api
