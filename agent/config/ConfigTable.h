#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <cstddef>

namespace runbox::config {

/// Every setting the agent reads at start-up, one per row of configTable(). The order is the
/// order of --help, --print-config and docs/configuration.md.
enum class Key : int {
    // General
    StateDir,
    ConfigFile,
    Listen,
    ListenTls,
    TlsCert,
    TlsKey,
    AllowPlaintextRemote,
    ListenUnix,
    ListenUnixGroup,
    Bwrap,
    LogLevel,
    SignatureWindowMs,
    SetupTimeoutMs,
    MaxConnections,
    MaxBufferedRequestBytes,
    IdleAfterMs,
    ProxyDomain,
    EnvWheelhouse,
    EnvCranRepository,
    EnvMicromamba,
    EnvMicromambaSha256,
    EnvCondaChannels,
    EnvRevisionGraceS,
    EnvStarters,
    EnvStarterPythonPackages,
    EnvStarterRPackages,
    EnvIndexUrl,
    EnvCranUrl,
    EnvCondaChannelUrls,
    EnvIndexCaFile,
    EnvIndexPrivateCidrs,
    ExecutionRetentionDays,
    LogStoreMaxBytes,
    // Strong-tier sandbox uids
    StrongUidFirst,
    StrongUidCount,
    UidRangeRegistry,
    // Light tier
    LightRoot,
    LightSupervisor,
    LightMinLandlockAbi,
    LightIdleTimeoutS,
    LightUidFirst,
    LightUidCount,
    LightSpareHomes,
    // Pool host
    Pool,
    PoolCapacity,
    PoolLabels,
    PoolSecretFile,
    ExitWhenIdleS,
    // Quotas (first start only)
    MaxWorkspaceBytes,
    MaxOutputBytes,
    UploadMaxFileBytes,
    UploadMaxRequestBytes,
    DefaultExecutionTimeoutMs,
    MaxExecutionTimeoutMs,
    MaxConcurrentExecutions,
    MaxLightWorkspaces,
    MaxMemoryBytes,
    MaxProcesses,
    MaxCpuMillicores,
    // NPU
    NpuDeviceRoot,
    NpuSmi,
    NpuDriverPath,
    NpuToolkitPath,
    NpuInstallInfo,
    NpuDcmiPaths,
    NpuProbeBinds,
    NpuCacheTtlMs,
    NpuProbeTimeoutMs,
    NpuBusyPolicy,
    NpuBroker,
    NpuWorkloads,
    NpuChips,
    // Test-only
    TestResolverHosts,
    Count
};

/// How an option's text is parsed (and named in the docs).
enum class OptionType {
    Integer,  ///< decimal whole number in [min, max]; the unit says what it counts
    Boolean,  ///< 1|true|yes|on or 0|false|no|off, any case
    String,   ///< taken as is
    Path,     ///< a file system path, taken as is
    PathList, ///< colon-separated paths; empty entries are skipped
    Choice,   ///< one of OptionSpec::choices, any case (stored lower-case)
    HostPort, ///< HOST:PORT, IPv6 in brackets; port 0 = any free port
};

/// The section an option is listed under.
enum class OptionGroup { General, SandboxUids, Light, Pool, Quotas, Npu, TestOnly };

/// Per-option behaviour bits (OptionSpec::flags).
enum OptionFlag : unsigned {
    kNoFlags = 0,
    kTestOnly = 1u << 0,        ///< exists for tests only; listed in its own section
    kMakeAbsolute = 1u << 1,    ///< a relative path is made absolute (against the cwd)
    kAbsoluteEntries = 1u << 2, ///< every PathList entry must be absolute (it is cleaned)
    kEmptyIsError = 1u << 3,    ///< a variable set to "" is refused (else "" counts as unset)
    kSeedOnly = 1u << 4,        ///< a quota seed: used on first start only, the store wins
};

/// One row of the configuration table: what an option is called in each place, how its text is
/// parsed, its default and what it does. Plain data; see configTable().
struct OptionSpec {
    Key key = Key::Count;
    const char* name = ""; ///< camelCase name (= the agent.conf key or quota field where one is)
    OptionType type = OptionType::String;
    OptionGroup group = OptionGroup::General;
    const char* defaultValue = "";     ///< parsed like any other value; "" = none (see defaultNote)
    const char* defaultNote = nullptr; ///< how a computed default is found (docs); or nullptr
    const char* unit = "";             ///< "ms", "s", "bytes", "uid", "count"…; "" when none
    const char* envVar = nullptr;      ///< RUNBOX_…, nullptr when none
    const char* flag = nullptr;        ///< "--state-dir"…, nullptr when none
    const char* metaVar = "VALUE";     ///< the flag's value in --help ("DIR", "N"…)
    const char* fileKey = nullptr; ///< the key in agent.conf (Key::ConfigFile), nullptr when none
    qint64 min = 0;                ///< Integer: smallest accepted value
    qint64 max = 0;                ///< Integer: largest accepted value
    QStringList choices{};         ///< Choice: the accepted values, lower-case
    unsigned flags = kNoFlags;
    const char* help = ""; ///< one or two sentences
};

/// The table, one row per Key in Key order (checked when the table is built).
const QList<OptionSpec>& configTable();
/// The row of @p key.
const OptionSpec& optionSpec(Key key);

/// The config file's name, in $CONFIGURATION_DIRECTORY or else in the state directory (INI, keys
/// at the top level); --config / RUNBOX_CONFIG name another (Key::ConfigFile).
inline constexpr const char* kConfigFileName = "agent.conf";

} // namespace runbox::config
