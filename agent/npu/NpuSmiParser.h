#pragma once

#include "agent/npu/NpuChip.h"

#include <QList>
#include <QString>

#include <optional>

namespace runbox::npu {

/// One row of `npu-smi info -m`: which chip logic id a (card, chip) pair has.
struct NpuSmiMappingRow {
    int npuId = -1;
    int chipId = -1;
    int logicId = -1;
    QString name; ///< "Ascend 910B3"
};

/// One chip's readings from the `npu-smi info` table: the card row (name, health, power,
/// temperature) joined with one chip row (chip id, bus id, AI core, HBM).
struct NpuSmiReading {
    int npuId = -1;
    int chipId = -1;
    QString name; ///< model as the table prints it ("910B3", "Ascend910", "310P3")
    QString health;
    std::optional<double> powerW;
    std::optional<int> temperatureC;
    std::optional<int> aiCorePercent;
    std::optional<qint64> hbmUsedMb; ///< only when the row has an HBM-Usage column
    std::optional<qint64> hbmTotalMb;
    QString busId;
};

/// Parsers for the two text outputs of Huawei's `npu-smi` (driver 23.x/24.x layouts; see the
/// fixtures in tests/fixtures/npu/). They never throw: what does not parse is skipped.
class NpuSmiParser final {
public:
    /// Parses `npu-smi info -m` (columns NPU ID, Chip ID, Chip Logic ID, Chip Name). Rows whose
    /// logic id is `-` (the card's Mcu) are skipped, as are headers, short rows, ids outside
    /// 0..1023 and an unterminated last line (truncated output). Dual-die cards give one row per
    /// die, each with its own logic id.
    static QList<NpuSmiMappingRow> parseMapping(const QString& text);

    /// Parses the box-drawn `npu-smi info` table: each card row (`| npu name | health | power
    /// temp hugepages |`) is followed by one chip row per die (`| chip [phy-id] | bus-id |
    /// aicore memory [hbm] |`); dies share the card row's health. A card printed once per die
    /// (910C) works the same way. Parsing stops at the process table; rows that do not parse are
    /// skipped, and a chip row without a preceding card row is ignored.
    static QList<NpuSmiReading> parseInfo(const QString& text);

    /// Chips from the mapping (identity) with the readings matched on (npuId, chipId), sorted by
    /// logic id; a duplicate logic id keeps its first row. Support is classified by name.
    static QList<NpuChip> join(const QList<NpuSmiMappingRow>& mapping,
                               const QList<NpuSmiReading>& readings);
};

} // namespace runbox::npu
