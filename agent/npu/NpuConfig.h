#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::config {
class ConfigValues;
}

namespace runbox::npu {

/// What the agent does when an execution asks for a chip another execution holds (docs/npu.md).
enum class ChipBusyPolicy {
    Queue,  ///< wait in a FIFO per chip until every requested chip is free
    Refuse, ///< answer 409 `chip_busy` at once
};

/// Paths and knobs of the NPU component. Every path is configurable for unusual installs and for
/// tests (a simulated device root, a fake `npu-smi`). Defaults follow a stock CANN install.
struct NpuConfig {
    /// Where the `davinciN` nodes and the management nodes live on the host.
    QString deviceRoot = QStringLiteral("/dev");
    /// The `npu-smi` binary; empty = the first existing of /usr/local/bin/npu-smi,
    /// /usr/local/sbin/npu-smi, /usr/bin/npu-smi.
    QString npuSmiPath;
    /// The driver install (holds lib64/common, lib64/driver).
    QString driverPath = QStringLiteral("/usr/local/Ascend/driver");
    /// The CANN toolkit (holds lib64, opp, python/site-packages).
    QString toolkitPath = QStringLiteral("/usr/local/Ascend/ascend-toolkit/latest");
    /// Bound read-only at /etc/ascend_install.info in the sandbox when present.
    QString installInfoPath = QStringLiteral("/etc/ascend_install.info");
    /// Where `libdcmi.so` is looked for, in order; empty = defaultDcmiPaths(driverPath).
    QStringList dcmiLibraryPaths;
    /// bwrap used by the per-chip probe.
    QString bwrapPath = QStringLiteral("bwrap");
    /// Time limit of one `npu-smi` call on the host, ms.
    int npuSmiTimeoutMs = 15000;
    /// Time limit of one per-chip probe sandbox, ms.
    int probeTimeoutMs = 15000;
    /// How long an inventory snapshot is served from the cache, ms.
    int cacheTtlMs = 60000;
    /// Whether the inventory probes each supported chip (off: probe = not run).
    bool probeChips = true;
    /// Busy-chip behaviour for executions.
    ChipBusyPolicy busyPolicy = ChipBusyPolicy::Queue;
    /// Host broker (`RUNBOX_NPU_BROKER=1`); off by default.
    bool brokerEnabled = false;
    /// The operator's workload allowlist (JSON) for the broker.
    QString workloadCatalogPath;
    /// Host paths bound read-only at the same path into the per-chip probe sandbox only (a
    /// vendor tool's own files outside /usr; tests bind the simulated npu-smi's state here).
    /// Never bound into executions.
    QStringList probeBinds;
    /// The chips this agent offers (`npuChips`): nullopt = every chip the host lists; otherwise
    /// the inventory keeps only these chip logic ids, so no other chip can be requested, probed
    /// or passed into a sandbox (a Slurm job's GRES, docs/npu.md "Offered chips").
    std::optional<QList<int>> offeredChips;

    /// The `npu-smi` to run: npuSmiPath when set, else the first default that exists; empty when
    /// none exists.
    QString resolvedNpuSmiPath() const;
    /// dcmiLibraryPaths, or the defaults below when it is empty.
    QStringList resolvedDcmiPaths() const;
    /// `<driver>/lib64/driver/libdcmi.so`, `/usr/local/dcmi/libdcmi.so`,
    /// `<driver>/lib64/libdcmi.so`.
    static QStringList defaultDcmiPaths(const QString& driverPath);

    /// The NPU rows of the configuration table (RUNBOX_NPU_*, docs/configuration.md "NPU"),
    /// already validated by config::ConfigValues::resolve(), over the defaults above; the
    /// fields without a row (npuSmiTimeoutMs, probeChips, bwrapPath) keep their defaults, and
    /// offeredChips is AgentConfig::npuChips's (parsed once there; AgentRuntime::startNpu).
    static NpuConfig fromConfig(const config::ConfigValues& values);
};

} // namespace runbox::npu
