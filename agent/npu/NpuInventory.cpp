#include "agent/npu/NpuInventory.h"

#include "agent/npu/DcmiLibrary.h"
#include "agent/npu/NpuSmiReader.h"

#include <QDir>
#include <QFileInfo>
#include <QMutexLocker>
#include <QReadLocker>
#include <QWriteLocker>

namespace runbox::npu {

NpuInventory::NpuInventory(NpuConfig config, ChipProbeOptions probeOptions)
    : m_config(std::move(config)), m_probe(m_config, [&] {
          probeOptions.timeoutMs = m_config.probeTimeoutMs;
          if (probeOptions.bwrapPath.isEmpty() || probeOptions.bwrapPath == QLatin1String("bwrap"))
              probeOptions.bwrapPath = m_config.bwrapPath;
          return probeOptions;
      }()) {}

NpuInventory::~NpuInventory() = default;

void NpuInventory::setReservedChipsProvider(std::function<QSet<int>()> provider) {
    QMutexLocker lock(&m_cacheMutex);
    m_reserved = std::move(provider);
}

std::optional<NpuSnapshot> NpuInventory::cached() const {
    QMutexLocker lock(&m_cacheMutex);
    return m_cache;
}

void NpuInventory::invalidate() {
    QMutexLocker lock(&m_cacheMutex);
    m_cacheValid = false;
}

NpuSnapshot NpuInventory::snapshot(bool refresh) {
    quint64 readsStartedBefore = 0;
    {
        QMutexLocker lock(&m_cacheMutex);
        const bool young =
            m_cache && m_cacheValid &&
            m_cache->capturedAt.msecsTo(QDateTime::currentDateTimeUtc()) <= m_config.cacheTtlMs;
        if (!refresh && young)
            return *m_cache;
        readsStartedBefore = m_readsStarted;
    }
    QMutexLocker refreshLock(&m_refreshMutex);
    {
        // A read that began after this request finished while we waited: it is as fresh as the
        // one we would make.
        QMutexLocker lock(&m_cacheMutex);
        if (m_cache && m_cacheValid && m_cacheRead > readsStartedBefore)
            return *m_cache;
    }
    quint64 read = 0;
    {
        QMutexLocker lock(&m_cacheMutex);
        read = ++m_readsStarted;
    }
    bool sourceFailed = false;
    NpuSnapshot snapshot = readHost(&sourceFailed);
    keepOfferedChips(&snapshot);
    std::optional<NpuSnapshot> previous = cached();
    attachProbes(&snapshot, previous);
    QMutexLocker lock(&m_cacheMutex);
    m_cache = snapshot;
    m_cacheRead = read;
    m_cacheValid = !sourceFailed;
    return snapshot;
}

NpuSnapshot NpuInventory::readHost(bool* sourceFailed) {
    NpuSnapshot snapshot;
    if (!m_dcmi)
        m_dcmi = std::make_unique<DcmiLibrary>(m_config.resolvedDcmiPaths());
    QString dcmiReason = m_dcmi->reason();
    if (m_dcmi->available()) {
        QString error;
        QList<NpuChip> chips = m_dcmi->readChips(&error);
        if (!chips.isEmpty()) {
            snapshot.capturedAt = QDateTime::currentDateTimeUtc();
            snapshot.source = QStringLiteral("dcmi");
            snapshot.reason = error;
            snapshot.chips = chips;
            return snapshot;
        }
        dcmiReason = error.isEmpty() ? QStringLiteral("DCMI listed no chip") : error;
    }
    const QString npuSmi = m_config.resolvedNpuSmiPath();
    const QFileInfo npuSmiInfo(npuSmi);
    if (!npuSmi.isEmpty() && npuSmiInfo.isFile() && npuSmiInfo.isExecutable()) {
        QString error;
        QString warning;
        const QList<NpuChip> chips =
            NpuSmiReader(npuSmi, m_config.npuSmiTimeoutMs).read(&error, &warning);
        snapshot.capturedAt = QDateTime::currentDateTimeUtc();
        if (!chips.isEmpty()) {
            snapshot.source = QStringLiteral("npu-smi");
            snapshot.chips = chips;
            snapshot.reason = QStringLiteral("%1; using %2").arg(dcmiReason, npuSmi);
            if (!warning.isEmpty())
                snapshot.reason += QStringLiteral(" (%1)").arg(warning);
            return snapshot;
        }
        snapshot.reason = QStringLiteral("no Ascend NPU listed: %1; %2").arg(dcmiReason, error);
        *sourceFailed = true;
        return snapshot;
    }
    snapshot.capturedAt = QDateTime::currentDateTimeUtc();
    snapshot.reason = noDeviceReason(dcmiReason);
    return snapshot;
}

void NpuInventory::keepOfferedChips(NpuSnapshot* snapshot) const {
    if (!m_config.offeredChips)
        return;
    const QList<int>& offered = *m_config.offeredChips;
    const qsizetype listed = snapshot->chips.size();
    snapshot->chips.removeIf(
        [&offered](const NpuChip& chip) { return !offered.contains(chip.logicId); });
    QStringList ids;
    for (int id : offered)
        ids << QString::number(id);
    const QString note =
        QStringLiteral("offering %1 of the %2 chip(s) listed: npuChips %3")
            .arg(snapshot->chips.size())
            .arg(listed)
            .arg(offered.isEmpty() ? QStringLiteral("none") : ids.join(QLatin1Char(',')));
    snapshot->reason =
        snapshot->reason.isEmpty() ? note : snapshot->reason + QStringLiteral("; ") + note;
}

QString NpuInventory::noDeviceReason(const QString& dcmiReason) const {
    const QStringList nodes =
        QDir(m_config.deviceRoot)
            .entryList({QStringLiteral("davinci[0-9]*")}, QDir::System | QDir::Files);
    QString reason = QStringLiteral("no Ascend NPU found: %1; npu-smi not found").arg(dcmiReason);
    if (!m_config.npuSmiPath.isEmpty())
        reason += QStringLiteral(" at %1").arg(m_config.npuSmiPath);
    reason += nodes.isEmpty()
                  ? QStringLiteral("; no davinci device nodes under %1").arg(m_config.deviceRoot)
                  : QStringLiteral("; %1 davinci device nodes exist under %2 but no driver tool "
                                   "can describe them")
                        .arg(nodes.size())
                        .arg(m_config.deviceRoot);
    return reason;
}

void NpuInventory::attachProbes(NpuSnapshot* snapshot, const std::optional<NpuSnapshot>& previous) {
    // Exclusive against reprobe(): the reserved set is read only once no execution's probe runs,
    // so a chip acquired before this point is skipped and one acquired after waits for us.
    QWriteLocker probeLock(&m_probeLock);
    QSet<int> reserved;
    {
        QMutexLocker lock(&m_cacheMutex);
        if (m_reserved)
            reserved = m_reserved();
    }
    QList<int> toProbe;
    for (NpuChip& chip : snapshot->chips) {
        if (!chip.supported) {
            chip.probe =
                ChipProbeResult{chip.logicId, false, chip.unsupportedReason, snapshot->capturedAt};
        } else if (reserved.contains(chip.logicId)) {
            const NpuChip* before = previous ? previous->find(chip.logicId) : nullptr;
            if (before)
                chip.probe = before->probe;
        } else if (m_config.probeChips) {
            toProbe.append(chip.logicId);
        }
    }
    if (toProbe.isEmpty())
        return;
    const QList<ChipProbeResult> results = m_probe.probeMany(toProbe);
    for (const ChipProbeResult& result : results)
        for (NpuChip& chip : snapshot->chips)
            if (chip.logicId == result.logicId)
                chip.probe = result;
}

QList<ChipProbeResult> NpuInventory::reprobe(const QList<int>& logicIds) {
    QReadLocker probeLock(&m_probeLock);
    const QList<ChipProbeResult> results = m_probe.probeMany(logicIds);
    QMutexLocker lock(&m_cacheMutex);
    if (m_cache)
        for (const ChipProbeResult& result : results)
            for (NpuChip& chip : m_cache->chips)
                if (chip.logicId == result.logicId && chip.supported)
                    chip.probe = result;
    return results;
}

} // namespace runbox::npu
