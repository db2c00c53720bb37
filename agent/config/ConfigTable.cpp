#include "agent/config/ConfigTable.h"

#include "agent/config/ConfigTableRows.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace runbox::config {

namespace {

constexpr qint64 kNoLimit = std::numeric_limits<qint64>::max();
constexpr qint64 kMaxQuotaBytes = qint64(1) << 50; // 1 PiB (store::QuotaSettings)
constexpr qint64 kMaxQuotaTimeoutMs = qint64(365) * 24 * 3600 * 1000; // 365 days
constexpr unsigned kQuota = kEmptyIsError | kSeedOnly;

using G = OptionGroup;
using T = OptionType;

QList<OptionSpec> buildTable() {
    QList<OptionSpec> t{
        // General
        {.key = Key::StateDir,
         .name = "stateDir",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "$STATE_DIRECTORY (its first entry), else /var/lib/runbox when run as "
                        "root, else ~/.local/state/runbox",
         .envVar = "RUNBOX_STATE_DIR",
         .flag = "--state-dir",
         .metaVar = "DIR",
         .flags = kMakeAbsolute,
         .help = "State directory: database, logs, workspaces, agent.token and agent.url "
                 "(and agent.conf when no other is named)."},
        {.key = Key::ConfigFile,
         .name = "configFile",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "$CONFIGURATION_DIRECTORY/agent.conf (its first entry; systemd's "
                        "ConfigurationDirectory=), else <state-dir>/agent.conf; either may be "
                        "missing",
         .envVar = "RUNBOX_CONFIG",
         .flag = "--config",
         .metaVar = "FILE",
         .flags = kMakeAbsolute,
         .help = "The agent.conf file (INI: key=value at the top level, ';' starts a comment) "
                 "that every setting with an agent.conf key is read from. A file named here must "
                 "exist; one that cannot be read, is malformed or holds a key that is no setting "
                 "stops the agent (exit status 2)."},
        {.key = Key::Listen,
         .name = "listen",
         .type = T::HostPort,
         .group = G::General,
         .defaultValue = "127.0.0.1:4311",
         .envVar = "RUNBOX_LISTEN",
         .flag = "--listen",
         .metaVar = "HOST:PORT",
         .fileKey = "listen",
         .help = "Listen address of the plain HTTP listener; port 0 picks a free port "
                 "(written to agent.url). Only a loopback address unless "
                 "allowPlaintextRemote is on. unix:PATH (an absolute path) is listenUnix PATH, "
                 "the plain listener then keeping its default address."},
    };
    t += tlsOptionRows(); // ConfigTableTls.cpp
    t += QList<OptionSpec>{
        {.key = Key::Bwrap,
         .name = "bwrap",
         .type = T::Path,
         .group = G::General,
         .defaultValue = "bwrap",
         .envVar = "RUNBOX_BWRAP",
         .flag = "--bwrap",
         .metaVar = "PATH",
         .fileKey = "bwrap",
         .help = "The bubblewrap binary; a bare name is looked up in PATH."},
        {.key = Key::LogLevel,
         .name = "logLevel",
         .type = T::Choice,
         .group = G::General,
         .defaultValue = "info",
         .flag = "--log-level",
         .metaVar = "LEVEL",
         .choices = {"debug", "info", "warning"},
         .help = "Log level (accepted and checked; the agent logs every line today)."},
        {.key = Key::SignatureWindowMs,
         .name = "signatureWindowMs",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "30000",
         .unit = "ms",
         .envVar = "RUNBOX_SIGNATURE_WINDOW_MS",
         .fileKey = "signatureWindowMs",
         .min = 1,
         .max = kNoLimit,
         .help = "How far X-Runbox-Timestamp may be from the agent's clock, either way."},
        {.key = Key::SetupTimeoutMs,
         .name = "setupTimeoutMs",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "10000",
         .unit = "ms",
         .envVar = "RUNBOX_SETUP_TIMEOUT_MS",
         .flag = "--setup-timeout-ms",
         .metaVar = "N",
         .fileKey = "setupTimeoutMs",
         .min = 1,
         .max = kNoLimit,
         .help = "A sandbox whose set-up takes longer ends as setup_failed."},
        {.key = Key::MaxConnections,
         .name = "maxConnections",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "512",
         .unit = "count",
         .envVar = "RUNBOX_MAX_CONNECTIONS",
         .flag = "--max-connections",
         .metaVar = "N",
         .fileKey = "maxConnections",
         .min = 1,
         .max = 1000000,
         .help = "Open HTTP connections at most; a new one beyond gets 503 + Retry-After."},
        {.key = Key::MaxBufferedRequestBytes,
         .name = "maxBufferedRequestBytes",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "268435456",
         .unit = "bytes",
         .envVar = "RUNBOX_MAX_BUFFERED_REQUEST_BYTES",
         .flag = "--max-buffered-request-bytes",
         .metaVar = "N",
         .fileKey = "maxBufferedRequestBytes",
         .min = 64 * 1024,
         .max = qint64(1) << 40,
         .help = "Request body bytes all connections may buffer together; a body that does "
                 "not fit gets 503 + Retry-After."},
        {.key = Key::IdleAfterMs,
         .name = "idleAfterMs",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "0",
         .unit = "ms",
         .envVar = "RUNBOX_IDLE_AFTER_MS",
         .fileKey = "idleAfterMs",
         .min = 0,
         .max = qint64(365) * 86400 * 1000,
         .help = "/v1/health says \"idle\": true once no workspace has existed for this long "
                 "(0 = never idle)."},
        {.key = Key::ProxyDomain,
         .name = "proxyDomain",
         .type = T::String,
         .group = G::General,
         .defaultValue = "localhost",
         .envVar = "RUNBOX_PROXY_DOMAIN",
         .fileKey = "proxyDomain",
         .flags = kEmptyIsError,
         .help = "The domain of the port proxy's browser origins: a workspace's port P is served "
                 "at http://P-ID.DOMAIN:PORT/ (docs/contracts.md \"Port proxy for browsers\"). "
                 "Browsers resolve every name under localhost to loopback; an agent reached from "
                 "other machines needs a wildcard DNS name (*.DOMAIN) pointing at it."},
    };
    t += environmentOptionRows(); // ConfigTableEnvironments.cpp
    t += QList<OptionSpec>{
        {.key = Key::ExecutionRetentionDays,
         .name = "executionRetentionDays",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "30",
         .unit = "days",
         .envVar = "RUNBOX_EXECUTION_RETENTION_DAYS",
         .fileKey = "executionRetentionDays",
         .min = 0,
         .max = 36500,
         .help = "Finished executions (record, log, outputs) are removed this long after they "
                 "finished, oldest first; never a queued or running one (0 = kept forever)."},
        {.key = Key::LogStoreMaxBytes,
         .name = "logStoreMaxBytes",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "21474836480",
         .unit = "bytes",
         .envVar = "RUNBOX_LOG_STORE_MAX_BYTES",
         .fileKey = "logStoreMaxBytes",
         .min = 0,
         .max = kMaxQuotaBytes,
         .help = "While the logs of finished executions take more (20 GiB by default), the "
                 "oldest finished executions are removed (0 = unlimited)."},
        // Strong-tier sandbox uids
        {.key = Key::StrongUidFirst,
         .name = "strongUidFirst",
         .type = T::Integer,
         .group = G::SandboxUids,
         .defaultValue = "1879048192",
         .unit = "uid",
         .envVar = "RUNBOX_STRONG_UID_FIRST",
         .fileKey = "strongUidFirst",
         .min = 1000,
         .max = 2147483646,
         .help = "First sandbox uid of a privileged agent (0x70000000): the probe uid; each "
                 "strong workspace gets one of the following ones. First + count must not "
                 "pass 2147483647."},
        {.key = Key::StrongUidCount,
         .name = "strongUidCount",
         .type = T::Integer,
         .group = G::SandboxUids,
         .defaultValue = "65536",
         .unit = "count",
         .envVar = "RUNBOX_STRONG_UID_COUNT",
         .fileKey = "strongUidCount",
         .min = 2,
         .max = 16777216,
         .help = "Number of strong-tier sandbox uids."},
        {.key = Key::UidRangeRegistry,
         .name = "uidRangeRegistry",
         .type = T::Path,
         .group = G::SandboxUids,
         .defaultValue = "/run/runbox/uid-ranges",
         .defaultNote = "$RUNTIME_DIRECTORY/uid-ranges (its first entry; systemd's "
                        "RuntimeDirectory=), else /run/runbox/uid-ranges",
         .envVar = "RUNBOX_UID_RANGE_REGISTRY",
         .fileKey = "uidRangeRegistry",
         .help = "Where the agents of one host claim their uid ranges."},
        // Light tier
        {.key = Key::LightRoot,
         .name = "lightRoot",
         .type = T::Path,
         .group = G::Light,
         .defaultNote = "<state-dir>/light",
         .envVar = "RUNBOX_LIGHT_ROOT",
         .fileKey = "lightRoot",
         .flags = kMakeAbsolute,
         .help = "Where light workspace homes live; every directory above it must be "
                 "searchable by other users."},
        {.key = Key::LightSupervisor,
         .name = "lightSupervisor",
         .type = T::Path,
         .group = G::Light,
         .defaultNote = "runbox-light-supervisor next to runbox-agent, else "
                        "<bindir>/../libexec/runbox/runbox-light-supervisor",
         .envVar = "RUNBOX_LIGHT_SUPERVISOR",
         .help = "The runbox-light-supervisor binary (used when it is an executable file)."},
        {.key = Key::LightMinLandlockAbi,
         .name = "lightMinLandlockAbi",
         .type = T::Integer,
         .group = G::Light,
         .defaultValue = "6",
         .envVar = "RUNBOX_LIGHT_MIN_LANDLOCK_ABI",
         .fileKey = "lightMinLandlockAbi",
         .min = 1,
         .max = 64,
         .help = "Below this Landlock ABI the light tier is unavailable (fail closed)."},
        {.key = Key::LightIdleTimeoutS,
         .name = "lightIdleTimeoutS",
         .type = T::Integer,
         .group = G::Light,
         .defaultValue = "600",
         .unit = "s",
         .envVar = "RUNBOX_LIGHT_IDLE_TIMEOUT_S",
         .fileKey = "lightIdleTimeoutS",
         .min = 0,
         .max = 7 * 86400,
         .help = "Idle timeout of a light workspace whose create request gives none (0 = never "
                 "evicted)."},
        {.key = Key::LightUidFirst,
         .name = "lightUidFirst",
         .type = T::Integer,
         .group = G::Light,
         .defaultValue = "20000",
         .unit = "uid",
         .envVar = "RUNBOX_LIGHT_UID_FIRST",
         .fileKey = "lightUidFirst",
         .min = 1000,
         .max = 4000000000LL,
         .help = "First uid of the light pool (uids in /etc/passwd or owning a process are "
                 "skipped)."},
        {.key = Key::LightUidCount,
         .name = "lightUidCount",
         .type = T::Integer,
         .group = G::Light,
         .defaultValue = "45000",
         .unit = "count",
         .envVar = "RUNBOX_LIGHT_UID_COUNT",
         .fileKey = "lightUidCount",
         .min = 1,
         .max = 1000000,
         .help = "Number of uids in the light pool."},
        {.key = Key::LightSpareHomes,
         .name = "lightSpareHomes",
         .type = T::Integer,
         .group = G::Light,
         .defaultValue = "256",
         .unit = "count",
         .envVar = "RUNBOX_LIGHT_SPARE_HOMES",
         .fileKey = "lightSpareHomes",
         .min = 0,
         .max = 4096,
         .help = "Empty light homes kept ready ahead of creates (0 = every home is made on the "
                 "request path)."},
    };
    t += poolOptionRows(); // ConfigTablePool.cpp
    t += QList<OptionSpec>{
        // Quotas: seeds of the stored settings (store::QuotaSettings), 0 = unlimited
        {.key = Key::MaxWorkspaceBytes,
         .name = "maxWorkspaceBytes",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "10737418240",
         .unit = "bytes",
         .envVar = "RUNBOX_MAX_WORKSPACE_BYTES",
         .min = 0,
         .max = kMaxQuotaBytes,
         .flags = kQuota,
         .help = "Bytes one workspace may hold (10 GiB)."},
        {.key = Key::MaxOutputBytes,
         .name = "maxOutputBytes",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "1073741824",
         .unit = "bytes",
         .envVar = "RUNBOX_MAX_OUTPUT_BYTES",
         .min = 0,
         .max = kMaxQuotaBytes,
         .flags = kQuota,
         .help = "Output bytes one execution may write (1 GiB)."},
        {.key = Key::UploadMaxFileBytes,
         .name = "uploadMaxFileBytes",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "1073741824",
         .unit = "bytes",
         .envVar = "RUNBOX_UPLOAD_MAX_FILE_BYTES",
         .min = 0,
         .max = kMaxQuotaBytes,
         .flags = kQuota,
         .help = "Largest uploaded file (1 GiB)."},
        {.key = Key::UploadMaxRequestBytes,
         .name = "uploadMaxRequestBytes",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "10737418240",
         .unit = "bytes",
         .envVar = "RUNBOX_UPLOAD_MAX_REQUEST_BYTES",
         .min = 0,
         .max = kMaxQuotaBytes,
         .flags = kQuota,
         .help = "Largest upload request (10 GiB)."},
        {.key = Key::DefaultExecutionTimeoutMs,
         .name = "defaultExecutionTimeoutMs",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "7200000",
         .unit = "ms",
         .envVar = "RUNBOX_EXECUTION_TIMEOUT_MS",
         .min = 0,
         .max = kMaxQuotaTimeoutMs,
         .flags = kQuota,
         .help = "Timeout of an execution whose request gives none (2 h); at most "
                 "maxExecutionTimeoutMs when that is limited."},
        {.key = Key::MaxExecutionTimeoutMs,
         .name = "maxExecutionTimeoutMs",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "86400000",
         .unit = "ms",
         .envVar = "RUNBOX_MAX_EXECUTION_TIMEOUT_MS",
         .min = 0,
         .max = kMaxQuotaTimeoutMs,
         .flags = kQuota,
         .help = "Longest timeout a request may ask for (24 h)."},
        {.key = Key::MaxConcurrentExecutions,
         .name = "maxConcurrentExecutions",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "16",
         .unit = "count",
         .envVar = "RUNBOX_MAX_CONCURRENT_EXECUTIONS",
         .min = 0,
         .max = 100000,
         .flags = kQuota,
         .help = "Executions running at once."},
        {.key = Key::MaxLightWorkspaces,
         .name = "maxLightWorkspaces",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "4096",
         .unit = "count",
         .envVar = "RUNBOX_MAX_LIGHT_WORKSPACES",
         .min = 0,
         .max = 65536,
         .flags = kQuota,
         .help = "Light workspaces at once."},
        {.key = Key::MaxMemoryBytes,
         .name = "maxMemoryBytes",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultNote = "half of the host's physical memory",
         .unit = "bytes",
         .envVar = "RUNBOX_MAX_MEMORY_BYTES",
         .min = 0,
         .max = kMaxQuotaBytes,
         .flags = kQuota,
         .help = "Memory of one execution: its whole process tree plus its tmpfs mounts "
                 "(docs/bounds.md)."},
        {.key = Key::MaxProcesses,
         .name = "maxProcesses",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "1024",
         .unit = "count",
         .envVar = "RUNBOX_MAX_PROCESSES",
         .min = 0,
         .max = 4194304,
         .flags = kQuota,
         .help = "Processes of one execution; maxConcurrentExecutions x maxProcesses must stay "
                 "at or below half of the kernel's pid_max."},
        {.key = Key::MaxCpuMillicores,
         .name = "maxCpuMillicores",
         .type = T::Integer,
         .group = G::Quotas,
         .defaultValue = "0",
         .unit = "1/1000 core",
         .envVar = "RUNBOX_MAX_CPU_MILLICORES",
         .min = 0,
         .max = 1000000,
         .flags = kQuota,
         .help = "CPU time of one execution per wall-clock time, 1000 = one core (cgroup v2 "
                 "cpu.max); only where the agent owns a delegated cgroup with the cpu controller, "
                 "else executions under a limit are refused (docs/bounds.md)."},
    };
    t += npuOptionRows(); // ConfigTableNpu.cpp
    t += QList<OptionSpec>{
        // Test-only
        {.key = Key::TestResolverHosts,
         .name = "testResolverHosts",
         .type = T::Path,
         .group = G::TestOnly,
         .defaultNote = "none: egress resolves names by DNS",
         .envVar = "RUNBOX_TEST_RESOLVER_HOSTS",
         .flags = kTestOnly,
         .help = "Egress answers name lookups from this hosts-style file instead of DNS "
                 "(egress::HostsFileResolver); the agent warns at start-up when it is set."},
    };
    for (qsizetype i = 0; i < t.size(); ++i)
        if (int(t[i].key) != i) {
            std::fprintf(stderr, "configTable: row %d (%s) is out of Key order\n", int(i),
                         t[i].name);
            std::abort();
        }
    if (t.size() != qsizetype(Key::Count)) {
        std::fprintf(stderr, "configTable: %d rows for %d keys\n", int(t.size()), int(Key::Count));
        std::abort();
    }
    return t;
}

} // namespace

const QList<OptionSpec>& configTable() {
    static const QList<OptionSpec> table = buildTable();
    return table;
}

const OptionSpec& optionSpec(Key key) {
    return configTable()[qsizetype(key)];
}

} // namespace runbox::config
