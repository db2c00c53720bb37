#pragma once

#include "agent/Error.h"
#include "agent/npu/BrokerJob.h"
#include "agent/npu/BrokerJobStore.h"
#include "agent/npu/ChipReservations.h"
#include "agent/npu/WorkloadCatalog.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <sys/types.h>

namespace runbox::npu {

/// Knobs of the host broker.
struct BrokerOptions {
    int killGraceMs = 2000;                     ///< SIGTERM → SIGKILL on cancel/timeout
    qint64 defaultTimeoutMs = 0;                ///< for workloads without timeoutMs; 0 = none
    qint64 maxOutputBytes = 64LL * 1024 * 1024; ///< kept per job
    int maxFinishedJobs = 200;                  ///< older finished jobs are forgotten
    /// The environment jobs are scrubbed from and `${env:…}` reads.
    QProcessEnvironment baseEnvironment = QProcessEnvironment::systemEnvironment();
    /// The groups of the device nodes of @p chips (NpuPassthrough): a job that runs as a
    /// workspace uid reaches its chips through them. Unset = none.
    std::function<QList<gid_t>(const QList<int>& chips)> deviceGroupsOf;
    /// Where jobs are recorded (not owned; see BrokerJobRunner::setStore). Unset: submit()
    /// refuses every job (Unavailable `broker_store_unavailable`).
    BrokerJobStore* store = nullptr;
};

/// What `POST /v1/npu/jobs` asks for, once the lead has resolved the workspace id to its
/// directory and validated npuDevices (NpuPassthrough::parseSelection).
struct BrokerJobRequest {
    QString workloadId;
    QString workspaceId;                  ///< the workspace's id (the job's record names it)
    QString workspaceDir;                 ///< host path of the caller's workspace
    QJsonObject inputs;                   ///< NAME → workspace-relative path (strings only)
    std::optional<QList<int>> npuDevices; ///< absent = the workload's default set
    QString jobId;                        ///< optional; a UUID when empty
    /// The workspace's own host uid. A privileged agent runs the job as it (never as root;
    /// docs/contracts.md "No sandbox is host root") and refuses the job when it is 0.
    uid_t workspaceUid = 0;
};

/// The opt-in host NPU broker (`RUNBOX_NPU_BROKER=1`; docs/npu.md "Host broker"): runs allow-listed
/// workloads from the operator's catalog on the host, with no shell, in their own process group,
/// with a scrubbed environment. Jobs queue per chip set through ChipReservations (shared with
/// executions when the lead passes the same object), so jobs on disjoint chips run side by side
/// and a job never shares a chip with a sandboxed execution. Jobs naming no chip share the host
/// queue (key -1) and run one at a time.
///
/// Every job is an execution of kind `broker` (BrokerJobStore): recorded queued at submit,
/// running when it starts, and final — after its log was finished and its outputs hashed
/// (BrokerOutputs, on this object's thread pool, like the snapshot taken right before it
/// starts) — when it ends; jobFinished() comes then. The BrokerJob objects are the live side
/// only (the last maxFinishedJobs final ones are kept for callers that hold them).
///
/// Lives in one thread (the agent's event loop); `granted` from another thread is queued to it.
class BrokerJobRunner final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BrokerJobRunner)
public:
    /// @p reservations may be null (the runner then owns one that always queues).
    BrokerJobRunner(WorkloadCatalog catalog, ChipReservations* reservations,
                    BrokerOptions options = {}, QObject* parent = nullptr);
    ~BrokerJobRunner() override;

    const WorkloadCatalog& catalog() const { return m_catalog; }
    /// Records jobs in @p store from now on (not owned; outlives this object).
    void setStore(BrokerJobStore* store) { m_options.store = store; }
    BrokerJobStore* store() const { return m_options.store; }

    /// Validates and enqueues a job; it starts when its chips are free. Errors (runbox::Error,
    /// by kind): InvalidArgument `unknown_workload`; InvalidArgument `invalid_input` (missing,
    /// unexpected, non-string, or a path that BrokerInput::open refuses: absolute, `..`,
    /// through a symlink, missing, or neither a regular file nor a directory); each input is
    /// pinned now and reaches the job as `/proc/self/fd/N`; InvalidArgument
    /// `invalid_workspace`, `invalid_job_id`; Conflict `duplicate_job` (any execution ever had
    /// the id); NotFound `workspace_not_found` (no record of the workspace); Internal
    /// `workload_misconfigured`; Unavailable `broker_store_unavailable`,
    /// `sandbox_user_unavailable`.
    BrokerJob* submit(const BrokerJobRequest& request, Error* error);

    /// The live job (queued, running, or one of the last final ones), or null.
    BrokerJob* job(const QString& id) const;
    /// Every job still held in memory, oldest first.
    QList<BrokerJob*> jobs() const;
    /// The job's record (BrokerJobStore::get), with the live job's dropped-byte count while it
    /// runs. NotFound `job_not_found`.
    std::optional<Error> record(const QString& id, store::ExecutionRecord* out) const;
    /// Cancels a job; NotFound `job_not_found` when there is no such job. Final jobs (also
    /// those of an earlier agent, which are `lost` or final) stay as they are.
    bool cancel(const QString& id, Error* error);
    /// Kills every running job's group and cancels the queued ones (agent shutdown).
    void shutdown();

Q_SIGNALS:
    /// The record of job @p id is final (its log finished, its outputs recorded).
    void jobFinished(const QString& id);

private:
    struct Workspace; ///< the job's workspace root and its snapshot from before the start
    void onGranted(const QString& holder);
    /// Takes the before-snapshot off the loop, then starts the job if it still waits.
    void startAfterSnapshot(BrokerJob* job);
    void onJobFinished(BrokerJob* job);
    /// Records the end of @p job with @p files (once) and emits jobFinished().
    void record(BrokerJob* job, const BrokerJobFiles& files);
    void forgetOldJobs();

    WorkloadCatalog m_catalog;
    QPointer<ChipReservations> m_reservations;
    BrokerOptions m_options;
    QMap<QString, BrokerJob*> m_jobs;
    QStringList m_order;
    QMap<QString, std::shared_ptr<Workspace>> m_workspaces; ///< until the job is recorded final
    QThreadPool m_pool;
    bool m_shuttingDown = false;
};

} // namespace runbox::npu
