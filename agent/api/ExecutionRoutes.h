#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"
#include "agent/execution/ExecRequest.h"
#include "agent/store/ExecutionRecord.h"

#include <QObject>

#include <functional>

namespace runbox::api {

/// Managed executions (docs/managed.md, docs/contracts.md "Workspaces and executions"):
/// - `POST /v1/executions` `{…exec request…, "workspace": id}` → 202 with the record;
///   a client executionId is an idempotency key kept forever (409 on reuse); `npuDevices` is
///   checked against the NPU inventory (400 `invalid_npu_devices`; 409 `chip_busy` under the
///   refusal policy while another execution holds one of them).
/// - `GET /v1/executions?workspace=&state=a,b&since=MS&until=MS&limit=N&cursor=C` → newest
///   first, `{"executions":[…],"nextCursor"}`.
/// - `GET /v1/executions/{id}` → the record.
/// - `GET /v1/executions/{id}/log?offset=N&follow=true` → NDJSON: output events from logical
///   offset N (`{"type":"stdout"|"stderr","offset","data"|"dataBase64"}`, `{"type":"gap",
///   "offset","bytes"}` where retention dropped bytes), then the `exit` event once the execution
///   is final (with follow=true it waits for it; without, it stops at the current end),
///   preceded by the execution's `{"type":"egress",…}` decisions (replayed from the store).
/// - `POST /v1/executions/{id}/cancel` → the record (a running one reads `running` until its
///   process is gone).
/// Host NPU broker jobs are executions of kind `broker` (docs/npu.md "Host broker"): listed,
/// read, followed and cancelled here like the others (cancel goes to the broker); they are
/// created only by `POST /v1/npu/jobs`. `?kind=a,b` filters the listing by kind.
/// Workspace tokens see only their workspace's executions; readers never take the lease.
class ExecutionRoutes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionRoutes)
public:
    explicit ExecutionRoutes(AgentContext* context, QObject* parent = nullptr);
    void registerRoutes(Router& router);

    /// Serves `GET …/log?offset=N&follow=true&format=ndjson|frames` of execution @p id (whose
    /// visibility the caller checked) with a LogStreamSession parented to @p parent: 400
    /// `invalid_offset` / `invalid_format`; the exit event is @p exitOf of the final record
    /// (the execution's exitEventOf(), or a broker job's shape for `/v1/npu/jobs/{id}/log`),
    /// sent once the record is final, whether a managed execution or a broker job ended.
    static void streamLog(AgentContext* context, http::HttpExchange* ex, const QString& id,
                          std::function<QJsonObject(const store::ExecutionRecord&)> exitOf,
                          QObject* parent);

private:
    void submit(http::HttpExchange* ex, const Principal& who);
    /// Records and queues a validated request (chips already checked against the inventory).
    void submitValidated(http::HttpExchange* ex, const QString& workspaceId,
                         const execution::ExecRequest& request);
    void list(http::HttpExchange* ex, const Principal& who);
    /// Cancels a managed execution through the manager, a broker job through the broker.
    std::optional<Error> cancel(store::ExecutionRecord* record);
    /// Loads the record and checks that @p who may see it (404 otherwise).
    bool loadVisible(http::HttpExchange* ex, const Principal& who, const QString& id,
                     store::ExecutionRecord* out);

    AgentContext* m_context;
};

/// The `exit` event of a final record: {"type":"exit","status","exitCode","signal",
/// "durationMs","reason","createdFiles","modifiedFiles","deletedFiles"}.
QJsonObject exitEventOf(const store::ExecutionRecord& record);

} // namespace runbox::api
