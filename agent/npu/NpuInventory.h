#pragma once

#include "agent/npu/ChipProbe.h"
#include "agent/npu/NpuChip.h"
#include "agent/npu/NpuConfig.h"

#include <QMutex>
#include <QReadWriteLock>
#include <QSet>

#include <functional>
#include <memory>
#include <optional>

namespace runbox::npu {

class DcmiLibrary;

/// The host's chips, their readings and their probe results, served from a cache
/// (NpuConfig::cacheTtlMs, about a minute) with refresh on demand — the data behind
/// `GET /v1/npu/chips[?refresh=true]` (docs/npu.md).
///
/// Sources, in order: DCMI (libdcmi.so via dlopen, loaded once), then `npu-smi info -m` +
/// `npu-smi info`, else "none" with the reason. Supported chips (Ascend 910 family) are probed in
/// parallel unless probing is off; unsupported ones carry a refused probe naming the chip.
/// Snapshots that ended in a source error are not cached.
///
/// Thread-safe; snapshot(refresh) blocks while it reads and probes (seconds), so call it from a
/// worker thread; cached() never blocks.
class NpuInventory final {
public:
    NpuInventory(NpuConfig config, ChipProbeOptions probeOptions = {});
    ~NpuInventory();
    NpuInventory(const NpuInventory&) = delete;
    NpuInventory& operator=(const NpuInventory&) = delete;

    /// The cached snapshot when younger than the TTL and @p refresh is false; otherwise reads
    /// the host again. Concurrent callers share one refresh.
    NpuSnapshot snapshot(bool refresh = false);
    /// The last snapshot, however old, without blocking; empty before the first read.
    std::optional<NpuSnapshot> cached() const;
    /// Drops the cache; the next snapshot() reads the host.
    void invalidate();

    /// Probes exactly @p logicIds now (as every execution with chips must, just before it
    /// launches), stores the results in the cached snapshot and returns them in order.
    /// Reprobes run side by side, but never while a refresh probes: a chip an execution holds is
    /// then either skipped by the refresh or probed by it before the execution's own probe, so
    /// an inventory probe never overlaps the execution's use of the chip.
    QList<ChipProbeResult> reprobe(const QList<int>& logicIds);

    /// Chips that are held by running executions: they are not probed on refresh (a probe would
    /// collide with their own user) and keep their previous probe result.
    void setReservedChipsProvider(std::function<QSet<int>()> provider);

    const NpuConfig& config() const { return m_config; }
    const ChipProbe& chipProbe() const { return m_probe; }

private:
    /// Drops the chips NpuConfig::offeredChips leaves out (none when it is unset) and says so
    /// in the snapshot's reason.
    void keepOfferedChips(NpuSnapshot* snapshot) const;
    /// Reads DCMI, else npu-smi; @p sourceFailed when a present source failed (not cached).
    NpuSnapshot readHost(bool* sourceFailed);
    void attachProbes(NpuSnapshot* snapshot, const std::optional<NpuSnapshot>& previous);
    QString noDeviceReason(const QString& dcmiReason) const;

    NpuConfig m_config;
    ChipProbe m_probe;
    std::unique_ptr<DcmiLibrary> m_dcmi; ///< created on first read
    QMutex m_refreshMutex;               ///< one host read at a time
    mutable QMutex m_cacheMutex;
    std::optional<NpuSnapshot> m_cache;
    bool m_cacheValid = false;
    quint64 m_readsStarted = 0; ///< host reads begun so far
    quint64 m_cacheRead = 0;    ///< which read produced m_cache
    std::function<QSet<int>()> m_reserved;
    QReadWriteLock m_probeLock; ///< refresh probes (write) vs execution reprobes (read)
};

} // namespace runbox::npu
