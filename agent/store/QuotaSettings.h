#pragma once

#include "agent/Error.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace runbox::store {

/// The agent-wide quotas (docs/contracts.md "Workspaces and executions"; `maxLightWorkspaces`:
/// docs/light-workspaces.md). Every value is a whole number; 0 means unlimited. New values apply to
/// executions created afterwards; each execution keeps the limits it was created under (its
/// permission epoch).
///
/// The env vars are rows of the configuration table (agent/config/ConfigTable.cpp), parsed
/// there; the agent hands the ones that were set to QuotaStore::initialize() as seeds.
///
/// | JSON field                  | env var (first start only)         | default         | unit  |
/// |-----------------------------|------------------------------------|-----------------|-------|
/// | maxWorkspaceBytes           | RUNBOX_MAX_WORKSPACE_BYTES         | 10 GiB          | bytes |
/// | maxOutputBytes              | RUNBOX_MAX_OUTPUT_BYTES            | 1 GiB           | bytes |
/// | uploadMaxFileBytes          | RUNBOX_UPLOAD_MAX_FILE_BYTES       | 1 GiB           | bytes |
/// | uploadMaxRequestBytes       | RUNBOX_UPLOAD_MAX_REQUEST_BYTES    | 10 GiB          | bytes |
/// | defaultExecutionTimeoutMs   | RUNBOX_EXECUTION_TIMEOUT_MS        | 7 200 000 (2 h) | ms    |
/// | maxExecutionTimeoutMs       | RUNBOX_MAX_EXECUTION_TIMEOUT_MS    | 86 400 000 (24 h)| ms   |
/// | maxConcurrentExecutions     | RUNBOX_MAX_CONCURRENT_EXECUTIONS   | 16              | count |
/// | maxLightWorkspaces          | RUNBOX_MAX_LIGHT_WORKSPACES        | 4096            | count |
/// | maxMemoryBytes              | RUNBOX_MAX_MEMORY_BYTES            | half the RAM    | bytes |
/// | maxProcesses                | RUNBOX_MAX_PROCESSES               | 1024            | count |
/// | maxCpuMillicores            | RUNBOX_MAX_CPU_MILLICORES          | 0 (unlimited)   | 1/1000
/// core |
///
/// maxMemoryBytes bounds one execution's whole process tree plus its tmpfs mounts;
/// maxProcesses its processes (RLIMIT_NPROC, and pids.max under cgroup v2); maxCpuMillicores
/// its CPU time per wall-clock time (1000 = one core: cgroup v2 `cpu.max`, only where the host
/// delegates the cpu controller, else a limited execution is refused). docs/bounds.md.
/// Validation (InvalidArgument (400) `invalid_quota`, the message names the field or env var): a
/// JSON number that is a whole number from 0 to the field's ceiling — bytes ≤ 1 PiB (2^50),
/// timeouts ≤ 365 days, maxConcurrentExecutions ≤ 100 000, maxLightWorkspaces ≤ 65 536,
/// maxCpuMillicores ≤ 1 000 000 (1000 cores) — and nothing above 2^53 (integers beyond it are not
/// exact in JSON doubles). Negative, fractional, strings, booleans, null, unknown fields are
/// refused. Across fields: when maxExecutionTimeoutMs is limited, defaultExecutionTimeoutMs must
/// be 1..maxExecutionTimeoutMs; maxProcesses ≤ 4 194 304 (the kernel's PID_MAX_LIMIT). The pair
/// maxConcurrentExecutions × maxProcesses is checked against the host's pid_max by
/// validateForHost().
struct QuotaSettings {
    static constexpr qint64 kGiB = qint64(1) << 30;

    qint64 maxWorkspaceBytes = 10 * kGiB;
    qint64 maxOutputBytes = 1 * kGiB;
    qint64 uploadMaxFileBytes = 1 * kGiB;
    qint64 uploadMaxRequestBytes = 10 * kGiB;
    qint64 defaultExecutionTimeoutMs = 2 * 3600 * 1000;
    qint64 maxExecutionTimeoutMs = 24 * 3600 * 1000;
    qint64 maxConcurrentExecutions = 16;
    qint64 maxLightWorkspaces = 4096;
    qint64 maxMemoryBytes = defaultMaxMemoryBytes();
    /// 16 × 1024 stays at half of the 32768 pid_max of a default kernel.
    qint64 maxProcesses = 1024;
    qint64 maxCpuMillicores = 0;

    /// Half of the host's physical memory (sysconf(3) _SC_PHYS_PAGES × _SC_PAGESIZE).
    static qint64 defaultMaxMemoryBytes();

    /// The table above, one entry per field, in order.
    struct Field {
        QString name;   ///< JSON field
        QString envVar; ///< RUNBOX_…
        qint64 QuotaSettings::*member;
        qint64 ceiling; ///< largest accepted value
    };
    static const QList<Field>& fields();

    /// `{"maxWorkspaceBytes":N,…}` with every field.
    QJsonObject toJson() const;

    /// Applies the fields present in @p patch to @p base (PUT with only some fields changes
    /// only those) and validates the result. Unknown fields are refused.
    static std::optional<Error> fromJson(const QJsonObject& patch, const QuotaSettings& base,
                                         QuotaSettings* out);
    /// Field name → value, for the fields whose RUNBOX_* variable was set
    /// (config::ConfigValues::quotaSeeds()).
    using Seeds = QMap<QString, qint64>;
    /// Applies @p seeds to @p base and validates the result (same ranges as JSON; an unknown
    /// field or a value out of range is InvalidArgument (400) `invalid_quota` naming the field's
    /// variable).
    static std::optional<Error> fromSeeds(const Seeds& seeds, const QuotaSettings& base,
                                          QuotaSettings* out);
    /// Checks every field's range and the relations between fields.
    std::optional<Error> validate() const;
    /// What the host adds: when both are limited, maxConcurrentExecutions × maxProcesses must
    /// stay at or below half of @p pidMax (/proc/sys/kernel/pid_max, proc(5)), so that running
    /// executions cannot exhaust the host's pids (InvalidArgument (400) `invalid_quota` naming both
    /// and pid_max).
    std::optional<Error> validateForHost(qint64 pidMax) const;

    bool operator==(const QuotaSettings&) const = default;
};

/// The limits one execution runs under, after its request's overrides.
struct ExecutionLimits {
    qint64 maxOutputBytes = 0;     ///< 0 = unlimited
    qint64 maxWorkspaceBytes = 0;  ///< 0 = unlimited
    qint64 executionTimeoutMs = 0; ///< 0 = unlimited
    qint64 maxMemoryBytes = 0;     ///< 0 = unlimited
    qint64 maxProcesses = 0;       ///< 0 = unlimited
    qint64 maxCpuMillicores = 0;   ///< 0 = unlimited; 1000 = one core
    /// `{"maxOutputBytes","maxWorkspaceBytes","executionTimeoutMs","maxMemoryBytes",
    /// "maxProcesses","maxCpuMillicores"}` (for the permission epoch).
    QJsonObject toJson() const;
    /// Reads the same fields back from an epoch's `quotas` (absent or malformed: 0, unlimited).
    static ExecutionLimits fromJson(const QJsonObject& quotas);
};

/// Resolves an exec request's optional `maxOutputBytes`, `maxWorkspaceBytes`,
/// `executionTimeoutMs`, `maxMemoryBytes`, `maxProcesses` and `maxCpuMillicores` (other keys of @p
/// request are ignored) against @p settings. An override may only tighten: under a limited setting,
/// 0 (unlimited) or a larger value is refused with InvalidArgument (400)
/// `quota_override_not_tighter`; under an unlimited setting any value is taken. The timeout's
/// ceiling is maxExecutionTimeoutMs; when absent it is defaultExecutionTimeoutMs. A malformed value
/// is InvalidArgument (400) `invalid_quota`.
std::optional<Error> tighten(const QuotaSettings& settings, const QJsonObject& request,
                             ExecutionLimits* out);

} // namespace runbox::store
