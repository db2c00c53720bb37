#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::npu {

/// Result of the per-chip probe (ChipProbe): can this chip be opened inside a sandbox shaped like
/// a real launch? JSON: `{"usable": bool, "reason": string|null, "at": ISO-8601 UTC ms}`.
struct ChipProbeResult {
    int logicId = -1;
    bool usable = false;
    QString reason; ///< empty when usable
    QDateTime at;   ///< when the probe finished (UTC)
    QJsonObject toJson() const;
};

/// Whether a chip model may be passed into a sandbox. Only the Ascend 910 family is supported
/// (910A, 910B*, 910C dies / 910_93xx); anything else is listed but refused with a reason naming
/// the chip (docs/npu.md).
struct ChipSupport {
    bool supported = false;
    QString reason; ///< empty when supported
    /// Classifies a chip name as `npu-smi info -m` or DCMI report it ("Ascend 910B3", "910B3",
    /// "Ascend910", "Ascend 310P3"…).
    static ChipSupport classify(const QString& chipName);
};

/// One chip (one die), identified by its chip logic id: the N of /dev/davinciN. Readings that the
/// source did not give are empty (null in JSON).
struct NpuChip {
    int logicId = -1; ///< identity; never the card number
    int npuId = -1;   ///< card ("NPU ID" in npu-smi)
    int chipId = -1;  ///< chip index on the card
    QString name;     ///< e.g. "Ascend 910B3"
    bool supported = false;
    QString unsupportedReason;
    QString health; ///< "OK", "Warning", "Alarm", "Critical", … as the source says
    std::optional<double> powerW;
    std::optional<int> temperatureC;
    std::optional<int> aiCorePercent;
    std::optional<qint64> hbmUsedMb;
    std::optional<qint64> hbmTotalMb;
    QString busId; ///< PCI address "0000:C1:00.0", empty when unknown
    std::optional<ChipProbeResult> probe;

    /// `{logicId, npuId, chipId, name, supported, unsupportedReason, health, powerW,
    /// temperatureC, aiCorePercent, hbmUsedMb, hbmTotalMb, busId, probe}`; missing → null.
    QJsonObject toJson() const;
};

/// What the inventory knows at one moment.
/// JSON: `{capturedAt, source: "dcmi"|"npu-smi"|"none", reason, chips: [NpuChip…]}`.
struct NpuSnapshot {
    QDateTime capturedAt;
    QString source = QStringLiteral("none");
    QString reason;       ///< why this source (or why there are no chips); may be empty
    QList<NpuChip> chips; ///< ascending logic id
    QJsonObject toJson() const;
    /// The chip with @p logicId, or nullptr.
    const NpuChip* find(int logicId) const;
};

} // namespace runbox::npu
