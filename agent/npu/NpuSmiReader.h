#pragma once

#include "agent/npu/NpuChip.h"

#include <QList>
#include <QString>

namespace runbox::npu {

/// Reads the chip list from the host's `npu-smi` (the fallback when DCMI is absent): runs
/// `npu-smi info -m` for identity and `npu-smi info` for readings, each with a time limit, and
/// joins them with NpuSmiParser. Blocking.
class NpuSmiReader final {
public:
    NpuSmiReader(QString npuSmiPath, int timeoutMs);

    /// The chips, sorted by logic id. On failure of `info -m` returns nothing and sets @p error
    /// ("npu-smi info -m exited with status 3: <its last line>"); when only `info` fails the
    /// chips come without readings and @p warning says so.
    QList<NpuChip> read(QString* error, QString* warning) const;

private:
    /// Runs npu-smi with @p args; false with @p error when it cannot start, times out or exits
    /// non-zero. Output is capped at 4 MiB.
    bool run(const QStringList& args, QString* output, QString* error) const;

    QString m_path;
    int m_timeoutMs;
};

} // namespace runbox::npu
