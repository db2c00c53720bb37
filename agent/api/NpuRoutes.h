#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

#include "agent/store/ExecutionRecord.h"

#include <QObject>

namespace runbox::api {

/// The NPU routes (docs/npu.md):
/// - `GET /v1/npu/chips[?refresh=true]` → `{capturedAt, source: "dcmi"|"npu-smi"|"none",
///   reason, chips: [{logicId, npuId, chipId, name, supported, health, powerW, temperatureC,
///   aiCorePercent, hbmUsedMb, hbmTotalMb, busId, probe: {usable, reason, at}}], held: [ids],
///   holders: [{chip, execution: ID} | {chip, brokerJob: ID}]}` (holders for the agent token
///   only: a workspace token sees which chips are held, not by whom),
///   served from the inventory's cache (about a minute), read and probed on a worker thread
///   (never on the event loop). A host without NPU answers an empty list and the reason.
///
/// Host broker, registered only when `RUNBOX_NPU_BROKER=1` (otherwise every path below is a
/// plain 404 `not_found`, like any unknown route, and nothing is exposed):
/// - `GET /v1/npu/workloads` → `{"workloads": [{id, label, description, inputs, npuDevices,
///   timeoutMs}]}` (never the argv).
/// - `POST /v1/npu/jobs {workloadId, workspace, inputs?: {NAME: relative path}, npuDevices?,
///   jobId?}` → 202 with the job; 400 `invalid_request` (any other field, as for exec
///   requests), `unknown_workload` / `invalid_input` / `invalid_npu_devices`, 404
///   `workspace_not_found`, 409 `duplicate_job`.
/// - `GET /v1/npu/jobs` → `{"jobs": [...]}`: the newest 1000 jobs, oldest first;
///   `GET /v1/npu/jobs/{id}` → the job (BrokerJobStore::jobJson); 404 `job_not_found`.
/// - `GET /v1/npu/jobs/{id}/log?offset=N&follow=true` → NDJSON, the job's execution log
///   (ExecutionRoutes::streamLog); its exit event is an execution's plus `"truncated"`.
/// - `POST /v1/npu/jobs/{id}/cancel` → the job (SIGTERM to its group, SIGKILL after the grace).
/// - `GET /v1/npu/jobs/{id}/result` → `{"id","state","outputs":[{"path","sizeBytes","sha256"}],
///   "createdFiles","modifiedFiles","deletedFiles"}` once the job is final; 409
///   `job_not_finished` while it is queued or running.
/// A job is an execution of kind `broker` (BrokerJobStore): these routes read the same records
/// as `/v1/executions`, so jobs of an earlier agent (final, or `lost`) stay readable.
/// Workspace ids resolve through the WorkspaceRegistry; a workspace token reaches only its own
/// workspace's jobs.
class NpuRoutes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NpuRoutes)
public:
    explicit NpuRoutes(AgentContext* context, QObject* parent = nullptr);
    void registerRoutes(Router& router);

private:
    void chips(http::HttpExchange* ex, const Principal& who);
    void submitJob(http::HttpExchange* ex, const Principal& who);
    void listJobs(http::HttpExchange* ex, const Principal& who);
    void result(http::HttpExchange* ex, const store::ExecutionRecord& record);
    /// The job's record if @p who may see it; otherwise replies 404 and returns false.
    bool findVisible(http::HttpExchange* ex, const Principal& who, const QString& id,
                     store::ExecutionRecord* out);

    AgentContext* m_context;
};

} // namespace runbox::api
