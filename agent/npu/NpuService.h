#pragma once

#include "agent/Error.h"
#include "agent/npu/BrokerJobRunner.h"
#include "agent/npu/ChipProbe.h"
#include "agent/npu/ChipReservations.h"
#include "agent/npu/NpuChip.h"
#include "agent/npu/NpuConfig.h"
#include "agent/npu/NpuInventory.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <optional>

namespace runbox::execution {
struct SandboxHost;
}

namespace runbox::npu {

/// The agent's NPU side as one object, built once at start-up (docs/npu.md "In the agent"): the
/// configuration, the one ChipReservations shared by executions and broker jobs, the one
/// NpuInventory (its per-chip probe shaped like a real launch; chips held by executions are left
/// alone on refresh) and, when `RUNBOX_NPU_BROKER=1`, the host broker.
///
/// Inventory reads and probes block for seconds, so they run on this object's own thread pool;
/// every callback is delivered on the thread this object lives in (the event loop), and only
/// while its @c receiver still exists. The destructor waits for running pool tasks.
class NpuService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NpuService)
public:
    using SnapshotDone = std::function<void(const NpuSnapshot&)>;
    using ProbeDone = std::function<void(const QList<ChipProbeResult>&)>;
    /// Either the validated selection (ascending unique logic ids) or the error.
    using SelectionDone = std::function<void(std::optional<Error>, const QList<int>&)>;

    NpuService(NpuConfig config, ChipProbeOptions probeOptions, QObject* parent = nullptr);
    ~NpuService() override;

    /// Probe options whose base argv is exactly the real launch's (BwrapCommand::build for
    /// @p host) up to and including `--dev /dev`, with the probed bwrap, the probe timeout and
    /// `--ro-bind P P` for each of @p config's probeBinds.
    static ChipProbeOptions probeOptionsFor(const execution::SandboxHost& host,
                                            const NpuConfig& config);

    const NpuConfig& config() const { return m_config; }
    ChipReservations* reservations() { return m_reservations; }
    NpuInventory* inventory() { return m_inventory.get(); }
    /// The host broker, or null when it is off.
    BrokerJobRunner* broker() const { return m_broker; }
    /// Why the broker's workload catalog could not be loaded (the broker then offers nothing).
    QString brokerError() const { return m_brokerError; }
    /// Records broker jobs as executions of kind `broker` in @p database and @p logs (both
    /// outlive this object; BrokerJobStore). Without it the broker refuses every job. Call at
    /// start-up before ExecutionManager::recover(): it ends the process groups of jobs a dead
    /// agent left running (BrokerJobStore::endLeftovers), whether the broker is on or not.
    void attachStore(const store::Database& database, store::LogStore* logs);

    /// Begins the first inventory read in the background (so the first request is warm);
    /// @p onFirst gets its result on this object's thread.
    void start(SnapshotDone onFirst = {});
    /// The inventory (cached unless @p refresh or older than the TTL), read on the pool.
    void snapshot(bool refresh, QObject* receiver, SnapshotDone done);
    /// The last snapshot however old, at once when there is one, else after the first read.
    /// For identity checks (which chips exist and are supported), not for freshness; a stale
    /// snapshot (older than the TTL) also starts one background re-read for later requests.
    void withInventory(QObject* receiver, SnapshotDone done);
    /// Probes exactly @p logicIds on the pool (NpuInventory::reprobe).
    void reprobe(const QList<int>& logicIds, QObject* receiver, ProbeDone done);
    /// Validates a request's `npuDevices` (NpuPassthrough::parseSelection: InvalidArgument
    /// `invalid_npu_devices`) against withInventory()'s snapshot.
    void resolveSelection(const QJsonValue& requested, QObject* receiver, SelectionDone done);
    /// Under the refusal policy: Conflict `chip_busy` naming the first of @p chips that is held
    /// now. Under the queue policy, or when none is held: nothing.
    std::optional<Error> checkBusy(const QList<int>& chips) const;

    /// The `npu` object of `/v1/health`: `{"source": "dcmi"|"npu-smi"|"none"|null (before the
    /// first read), "reason", "capturedAt", "chips": N, "usable": N (probe passed), "held": N,
    /// "busyPolicy": "queue"|"refuse", "broker": bool, "workloads": N, "offeredChips": null (all)
    /// | [logic ids] (npuChips), "brokerError"?}`.
    QJsonObject healthSummary() const;
    /// One line for the start-up log once the first read is done.
    static QString summaryLine(const NpuSnapshot& snapshot);

    /// Agent shutdown: kills running broker jobs.
    void shutdown();

private:
    /// Runs @p work on the pool and hands its result to @p deliver on this object's thread,
    /// if @p receiver still exists.
    template <typename Result>
    void runOnPool(QObject* receiver, std::function<Result()> work,
                   std::function<void(const Result&)> deliver);

    NpuConfig m_config;
    ChipReservations* m_reservations;
    std::unique_ptr<NpuInventory> m_inventory;
    BrokerJobRunner* m_broker = nullptr;
    std::unique_ptr<BrokerJobStore> m_jobStore; ///< outlives m_broker (deleted first)
    QString m_brokerError;
    bool m_firstReadStarted = false;
    bool m_backgroundRead = false; ///< a stale-cache re-read is running
    QList<std::pair<QPointer<QObject>, SnapshotDone>> m_waitingForFirst;
    QThreadPool m_pool; ///< declared last: destroyed (waited for) first
};

} // namespace runbox::npu
