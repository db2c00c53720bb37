#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"
#include "agent/execution/ExecRequest.h"

#include <QHash>
#include <QObject>
#include <QSet>

namespace runbox::api {

class SyncExecSession;

/// `POST /v1/workspaces/{id}/exec`: validates the request (`npuDevices` against the NPU
/// inventory: 400 `invalid_npu_devices`; 409 `chip_busy` under the refusal policy), waits for the
/// refusals of the workspace's IsolationTier), waits for admission (strong: the workspace lease,
/// one writer per workspace; a `{"type":"queued","position":N}` event tells the client it
/// waits), has the tier make the backend and streams the execution's events as NDJSON
/// (chunked; one event per line, docs/contracts.md "Event stream"). The client disconnecting kills
/// the execution, or drops it from the queue. A client `executionId` reused within 60 s is a 409.
/// Output is read only as fast as the client takes it (backpressure above 1 MiB queued).
class ExecRoutes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecRoutes)
public:
    explicit ExecRoutes(AgentContext* context, QObject* parent = nullptr);
    void registerRoutes(Router& router);
    void stopAll();

private:
    void handleExec(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    /// Continues a validated request (chips already checked against the inventory).
    void startSession(http::HttpExchange* ex, const QString& workspaceId,
                      execution::ExecRequest request);
    /// Remembers @p id for 60 s; false when it was seen within that time.
    bool claimExecutionId(const QString& id);

    AgentContext* m_context;
    QHash<QString, qint64> m_recentIds; ///< client executionId → ms when claimed
    QSet<SyncExecSession*> m_sessions;  ///< removed when they end
};

} // namespace runbox::api
