#pragma once

#include "agent/Error.h"
#include "agent/npu/BrokerJob.h"
#include "agent/store/ExecutionOutputRepository.h"
#include "agent/store/ExecutionRecord.h"
#include "agent/store/ExecutionRepository.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::store {
class Database;
class LogStore;
} // namespace runbox::store

namespace runbox::npu {

/// What a finished broker job left in its workspace (BrokerOutputs::scan).
struct BrokerJobFiles {
    QStringList createdFiles; ///< workspace-relative, sorted (WorkspaceSnapshot::diff)
    QStringList modifiedFiles;
    QStringList deletedFiles;
    /// The created and modified regular files, hashed (the result route's `outputs`).
    QList<store::ExecutionOutput> outputs;
};

/// The durable side of host broker jobs (docs/npu.md "Host broker"): each job is an execution of
/// kind `broker` in the agent's executions table, with its output in the same LogStore as
/// managed executions, so `GET /v1/executions[/{id}[/log]]` and cancel serve it like any other,
/// it survives the agent (a job that was queued or running when the agent died becomes `lost`
/// through ExecutionManager::recover(), with its log kept, never re-run) and its outputs are
/// kept for `GET /v1/npu/jobs/{id}/result`.
///
/// Record: `permissionEpoch` = `{"npuDevices":[host logic ids]}`; `provenance` =
/// `{"workloadId","inputs":{NAME: workspace-relative path}}` (never the operator's argv, which
/// `GET /v1/npu/workloads` does not show either). Event-loop thread only (it appends to logs).
/// The store's errors are handed on as they are.
class BrokerJobStore final {
public:
    /// @p database and @p logs outlive this object.
    BrokerJobStore(const store::Database& database, store::LogStore* logs);

    /// What a new job is recorded with.
    struct NewJob {
        QString jobId; ///< the client's; empty → the repository generates one (`ex_…`)
        QString workspaceId;
        QString workloadId;
        QList<int> chips;
        QJsonObject inputs; ///< NAME → workspace-relative path, as requested
    };
    /// Records a queued job and creates its log (unbounded: BrokerJob bounds its output).
    /// @p id receives its id. Conflict `duplicate_job` when any execution ever had the id (ids
    /// are kept forever), NotFound `workspace_not_found`, the store's Internal/Unavailable.
    std::optional<Error> create(const NewJob& job, QString* id);
    /// queued → running (@p job's startedAt); the provenance gains the job's process group
    /// (`"pgid"`, with its leader's start time and the boot id) for endLeftovers().
    void markRunning(const BrokerJob& job);
    /// Start-up, before ExecutionManager::recover() marks them lost: SIGKILLs the process group
    /// of every job recorded running whose leader is still the very process that was started
    /// (same boot, same start time), so a job of a dead agent does not keep its chips or run
    /// on. Returns the number of groups killed.
    int endLeftovers();
    /// Appends output of @p jobId to its log (an I/O error is logged; the job goes on).
    void append(const QString& jobId, BrokerJob::Stream stream, const QByteArray& data);
    /// The job's end: finishes its log durably, records @p files' outputs, then the terminal
    /// state (in that order: a final record implies a complete log and its outputs).
    std::optional<Error> finish(const BrokerJob& job, const BrokerJobFiles& files);

    /// The record of a broker job; NotFound `job_not_found` when there is none (or it is no
    /// broker job). A job that is not final reads its byte counts from its log.
    std::optional<Error> get(const QString& jobId, store::ExecutionRecord* out) const;
    /// The newest @p limit (≤ 1000) broker jobs, of @p workspaceId only when it is not empty,
    /// oldest first.
    std::optional<Error> list(const QString& workspaceId, int limit,
                              QList<store::ExecutionRecord>* out) const;
    /// The outputs recorded for @p jobId, sorted by path.
    std::optional<Error> outputs(const QString& jobId, QList<store::ExecutionOutput>* out) const;

    /// The `/v1/npu/jobs` shape of a record: `{id, workloadId, workspace, state, chips,
    /// exitCode, signal, message, createdAt, startedAt, finishedAt, durationMs, stdoutBytes,
    /// stderrBytes, truncated}` (message null unless the job failed or was cancelled).
    static QJsonObject jobJson(const store::ExecutionRecord& record);
    /// The execution state a job's state is recorded as (the names are the same).
    static store::ExecutionState stateOf(BrokerJob::State state);

private:
    store::ExecutionRepository m_records;
    store::ExecutionOutputRepository m_outputs;
    store::LogStore* m_logs;
};

} // namespace runbox::npu
