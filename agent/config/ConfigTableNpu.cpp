// The NPU rows of the configuration table (docs/npu.md), in Key order after the quota rows.
#include "agent/config/ConfigTableRows.h"

#include <limits>

namespace runbox::config {

namespace {

constexpr qint64 kIntMax = std::numeric_limits<int>::max();

using G = OptionGroup;
using T = OptionType;

} // namespace

QList<OptionSpec> npuOptionRows() {
    return {
        {.key = Key::NpuDeviceRoot,
         .name = "npuDeviceRoot",
         .type = T::Path,
         .group = G::Npu,
         .defaultValue = "/dev",
         .envVar = "RUNBOX_NPU_DEVICE_ROOT",
         .help = "Where the davinciN and management device nodes are."},
        {.key = Key::NpuSmi,
         .name = "npuSmi",
         .type = T::Path,
         .group = G::Npu,
         .defaultNote = "the first of /usr/local/bin/npu-smi, /usr/local/sbin/npu-smi, "
                        "/usr/bin/npu-smi that exists",
         .envVar = "RUNBOX_NPU_SMI",
         .help = "The npu-smi binary."},
        {.key = Key::NpuDriverPath,
         .name = "npuDriverPath",
         .type = T::Path,
         .group = G::Npu,
         .defaultValue = "/usr/local/Ascend/driver",
         .envVar = "RUNBOX_NPU_DRIVER_PATH",
         .help = "The driver install (lib64/common, lib64/driver)."},
        {.key = Key::NpuToolkitPath,
         .name = "npuToolkitPath",
         .type = T::Path,
         .group = G::Npu,
         .defaultValue = "/usr/local/Ascend/ascend-toolkit/latest",
         .envVar = "RUNBOX_NPU_TOOLKIT_PATH",
         .help = "The CANN toolkit (lib64, opp, python/site-packages)."},
        {.key = Key::NpuInstallInfo,
         .name = "npuInstallInfo",
         .type = T::Path,
         .group = G::Npu,
         .defaultValue = "/etc/ascend_install.info",
         .envVar = "RUNBOX_NPU_INSTALL_INFO",
         .help = "Bound read-only at /etc/ascend_install.info in NPU sandboxes when present."},
        {.key = Key::NpuDcmiPaths,
         .name = "npuDcmiPaths",
         .type = T::PathList,
         .group = G::Npu,
         .defaultNote = "<driver>/lib64/driver/libdcmi.so, /usr/local/dcmi/libdcmi.so, "
                        "<driver>/lib64/libdcmi.so",
         .envVar = "RUNBOX_NPU_DCMI_PATHS",
         .help = "Where libdcmi.so is looked for, in order (colon-separated)."},
        {.key = Key::NpuProbeBinds,
         .name = "npuProbeBinds",
         .type = T::PathList,
         .group = G::Npu,
         .envVar = "RUNBOX_NPU_PROBE_BINDS",
         .flags = kAbsoluteEntries,
         .help = "Absolute host paths bound read-only into the per-chip probe sandbox only "
                 "(colon-separated; never into executions)."},
        {.key = Key::NpuCacheTtlMs,
         .name = "npuCacheTtlMs",
         .type = T::Integer,
         .group = G::Npu,
         .defaultValue = "60000",
         .unit = "ms",
         .envVar = "RUNBOX_NPU_CACHE_TTL_MS",
         .min = 1,
         .max = kIntMax,
         .help = "How long an inventory snapshot is served from the cache."},
        {.key = Key::NpuProbeTimeoutMs,
         .name = "npuProbeTimeoutMs",
         .type = T::Integer,
         .group = G::Npu,
         .defaultValue = "15000",
         .unit = "ms",
         .envVar = "RUNBOX_NPU_PROBE_TIMEOUT_MS",
         .min = 1,
         .max = kIntMax,
         .help = "Time limit of one per-chip probe sandbox."},
        {.key = Key::NpuBusyPolicy,
         .name = "npuBusyPolicy",
         .type = T::Choice,
         .group = G::Npu,
         .defaultValue = "queue",
         .envVar = "RUNBOX_NPU_BUSY_POLICY",
         .choices = {"queue", "refuse"},
         .help = "An execution asking for a busy chip waits (queue) or gets 409 chip_busy "
                 "(refuse)."},
        {.key = Key::NpuBroker,
         .name = "npuBroker",
         .type = T::Boolean,
         .group = G::Npu,
         .defaultValue = "false",
         .envVar = "RUNBOX_NPU_BROKER",
         .help = "The host NPU broker (allow-listed workloads, docs/npu.md)."},
        {.key = Key::NpuWorkloads,
         .name = "npuWorkloads",
         .type = T::Path,
         .group = G::Npu,
         .defaultNote = "none: the broker offers no workload",
         .envVar = "RUNBOX_NPU_WORKLOADS",
         .help = "The broker's workload allowlist (JSON)."},
        {.key = Key::NpuChips,
         .name = "npuChips",
         .type = T::String,
         .group = G::Npu,
         .defaultValue = "all",
         .envVar = "RUNBOX_NPU_CHIPS",
         .flags = kEmptyIsError,
         .help = "The chips this agent offers: all, none, or chip logic ids and ranges "
                 "(0,2-3); the others are left out of its inventory and never passed into a "
                 "sandbox. A Slurm pool host sets it from the job's GRES (installer/slurm)."},
    };
}

} // namespace runbox::config
