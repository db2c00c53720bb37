#pragma once

#include "agent/npu/BrokerJob.h"
#include "agent/npu/ChipReservations.h"
#include "agent/npu/WorkloadCatalog.h"
#include "shared/ApiError.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>

#include <functional>
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
};

/// What `POST /v1/npu/jobs` asks for, once the lead has resolved the workspace id to its
/// directory and validated npuDevices (NpuPassthrough::parseSelection).
struct BrokerJobRequest {
    QString workloadId;
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

    /// Validates and enqueues a job; it starts when its chips are free. Errors:
    /// 400 `unknown_workload`; 400 `invalid_input` (missing, unexpected, non-string, or a path
    /// that BrokerInput::open refuses: absolute, `..`, through a symlink, missing, or neither a
    /// regular file nor a directory); each input is pinned now and reaches the job as
    /// `/proc/self/fd/N`;
    /// 400 `invalid_workspace`; 409 `duplicate_job`; 500 `workload_misconfigured`.
    BrokerJob* submit(const BrokerJobRequest& request, ApiError* error);

    BrokerJob* job(const QString& id) const;
    /// Every known job, oldest first.
    QList<BrokerJob*> jobs() const;
    /// Cancels a job; 404 `job_not_found` when unknown. Final jobs stay as they are.
    bool cancel(const QString& id, ApiError* error);
    /// Kills every running job's group and cancels the queued ones (agent shutdown).
    void shutdown();

Q_SIGNALS:
    void jobFinished(const QString& id);

private:
    void onGranted(const QString& holder);
    void onJobFinished(BrokerJob* job);
    void forgetOldJobs();

    WorkloadCatalog m_catalog;
    QPointer<ChipReservations> m_reservations;
    BrokerOptions m_options;
    QMap<QString, BrokerJob*> m_jobs;
    QStringList m_order;
};

} // namespace runbox::npu
