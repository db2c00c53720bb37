#pragma once

#include "agent/api/AgentContext.h"
#include "agent/api/Router.h"
#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionRunner.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

namespace runbox::execution {
class ExecutionRunner;
}

namespace runbox::workspace {
class WorkspaceFs;
class WorkspaceSnapshot;
} // namespace runbox::workspace

namespace runbox::api {

/// The files created, modified and deleted under @p fs since @p before (a missing snapshot gives
/// empty lists with truncated set).
execution::FileChanges changesSince(const workspace::WorkspaceFs& fs,
                                    const std::optional<workspace::WorkspaceSnapshot>& before);

/// `POST /v1/workspaces/{id}/exec`: validates the request, builds the sandbox launch and streams
/// the execution's events as NDJSON (chunked; one event per line, DESIGN.md §3). The client
/// disconnecting kills the execution. A client `executionId` reused within 60 s is a 409.
/// Output is read only as fast as the client takes it (backpressure above 1 MiB queued).
class ExecRoutes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecRoutes)
public:
    ExecRoutes(AgentContext* context, QObject* parent = nullptr);
    void registerRoutes(Router& router);

    bool isBusy(const QString& workspaceId) const { return m_busy.value(workspaceId) > 0; }
    void stopAll();
    /// Limits requests are validated against (from the config).
    execution::ExecLimits limits() const;

private:
    void handleExec(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    /// Remembers @p id for 60 s; false when it was seen within that time.
    bool claimExecutionId(const QString& id);

    AgentContext* m_context;
    QHash<QString, qint64> m_recentIds;          ///< client executionId → ms when claimed
    QHash<QString, int> m_busy;                  ///< workspace id → running executions
    QSet<execution::ExecutionRunner*> m_running; ///< removed when they finish
};

} // namespace runbox::api
