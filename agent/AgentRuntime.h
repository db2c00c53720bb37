#pragma once

#include "agent/api/AgentContext.h"

#include <QObject>

#include <memory>

namespace runbox {

namespace api {
class ApiService;
}
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
} // namespace store
namespace execution {
class ExecutionManager;
}

/// Brings the agent up in the order the start-up contract needs (config, state dir, token,
/// bwrap preflight, capability probe, seccomp programs, identity files, workspaces, listener,
/// agent.url) and takes it down on SIGTERM/SIGINT (stop accepting, kill running executions,
/// exit once they have reported).
class AgentRuntime final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentRuntime)
public:
    AgentRuntime();
    ~AgentRuntime() override;

    /// Returns -1 when the agent is up and the event loop should run, otherwise the exit code
    /// (0 for --help, 2 for bad options, 1 for a start-up failure, with the reason on stderr).
    int start(const QStringList& args);

private:
    void installSignalHandlers();
    void shutdown();

    api::AgentContext m_context;
    std::unique_ptr<store::Database> m_database;
    std::unique_ptr<store::QuotaStore> m_quotas;
    std::unique_ptr<store::ExecutionRepository> m_executions;
    std::unique_ptr<store::WorkspaceRepository> m_workspaceRows;
    std::unique_ptr<store::LogStore> m_logs;
    std::unique_ptr<workspace::WorkspaceRegistry> m_workspaces;
    std::unique_ptr<execution::ExecutionManager> m_manager;
    std::unique_ptr<api::ApiService> m_api;
    std::unique_ptr<http::HttpServer> m_server;
};

} // namespace runbox
