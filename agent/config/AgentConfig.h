#pragma once

#include "agent/config/ConfigValues.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

namespace runbox::config {

/// Everything the agent is started with, typed. parse() fills it from the configuration table
/// (ConfigTable.h, docs/configuration.md): flag > `RUNBOX_*` variable > agent.conf (--config,
/// `$CONFIGURATION_DIRECTORY` or the state dir) > default. The member initialisers repeat the
/// table's defaults (test_config_table checks).
struct AgentConfig {
    /// --state-dir; default $STATE_DIRECTORY, else /var/lib/runbox as root, else
    /// ~/.local/state/runbox.
    QString stateDir;
    QHostAddress listenAddress = QHostAddress::LocalHost; ///< --listen HOST:PORT (127.0.0.1:4311)
    quint16 listenPort = 4311; ///< 0 picks a free port (written to agent.url)
    /// The TLS listener (--listen-tls HOST:PORT; docs/contracts.md "TLS and pinning"): none
    /// when tlsListen is false.
    bool tlsListen = false;
    QHostAddress tlsListenAddress;
    quint16 tlsListenPort = 0;
    /// The operator's certificate and key (--tls-cert, --tls-key); "" = the generated pair in
    /// the state dir (tls::TlsIdentity).
    QString tlsCertPath;
    QString tlsKeyPath;
    /// --allow-plaintext-remote: the plain listener may use a non-loopback address.
    bool allowPlaintextRemote = false;
    /// --listen-unix PATH: also listen on this unix socket ("" = none), mode 0660, group
    /// listenUnixGroup ("" = runbox when it exists, else the agent's group).
    QString listenUnixPath;
    QString listenUnixGroup;
    QString bwrapPath = QStringLiteral("bwrap"); ///< --bwrap / RUNBOX_BWRAP
    qint64 signatureWindowMs =
        30000;                     ///< ±window for X-Runbox-Timestamp (RUNBOX_SIGNATURE_WINDOW_MS)
    qint64 setupTimeoutMs = 10000; ///< a sandbox whose set-up takes longer is setup_failed
    // The execution timeout and output limits are quotas: store::QuotaStore, seeded from
    // values.quotaSeeds().
    qint64 maxRequestBodyBytes = 16LL << 20; ///< JSON request bodies (uploads are streamed)
    qint64 headerTimeoutMs = 10000;          ///< a client must send its request head within this
    qint64 idleTimeoutMs = 120000;           ///< keep-alive connections idle longer are closed
    /// Open HTTP connections at most; a new one beyond gets 503 + Retry-After and is closed
    /// (--max-connections / RUNBOX_MAX_CONNECTIONS / `maxConnections`, 1..1000000).
    qint64 maxConnections = 512;
    /// Bytes that buffered request bodies of all connections may hold together; a body that
    /// does not fit gets 503 + Retry-After (--max-buffered-request-bytes /
    /// RUNBOX_MAX_BUFFERED_REQUEST_BYTES / `maxBufferedRequestBytes`, 64 KiB..1 TiB).
    qint64 maxBufferedRequestBytes = 256LL << 20;
    QString logLevel = QStringLiteral("info");
    /// Where light workspace homes live (RUNBOX_LIGHT_ROOT / `lightRoot`; default
    /// `<stateDir>/light`). Every directory above it must be searchable by other users.
    QString lightRoot;
    /// Light workspaces (docs/light-workspaces.md): below this Landlock ABI the tier is unavailable
    /// (fail closed). RUNBOX_LIGHT_MIN_LANDLOCK_ABI / `lightMinLandlockAbi`, 1..64.
    qint64 lightMinLandlockAbi = 6;
    /// Idle timeout of a light workspace whose create request gives no idleTimeoutS, seconds
    /// (0 = never evicted). RUNBOX_LIGHT_IDLE_TIMEOUT_S / `lightIdleTimeoutS`.
    qint64 lightIdleTimeoutS = 600;
    /// The light uid range: first uid and count (RUNBOX_LIGHT_UID_FIRST / _COUNT, default
    /// 20000 and 45000; the pool also skips uids in /etc/passwd and uids owning a process).
    qint64 lightUidFirst = 20000;
    qint64 lightUidCount = 45000;
    /// Empty light homes kept ready ahead of creates (RUNBOX_LIGHT_SPARE_HOMES /
    /// `lightSpareHomes`, 0..4096; 0 = every home is made on the request path).
    qint64 lightSpareHomes = 256;
    /// The pool this agent is a host of (`--pool` / RUNBOX_POOL / `pool`; "" = none), its
    /// capacity in workspaces (`--pool-capacity`; 0 = no pool limit) and labels (`--pool-labels`,
    /// comma-separated). docs/contracts.md "Pool hosts".
    QString poolName;
    qint64 poolCapacity = 0;
    QStringList poolLabels;
    /// The pool secret's file (`--pool-secret-file` / RUNBOX_POOL_SECRET_FILE /
    /// `poolSecretFile`; "" = none): the agent token is then derived from it and the host nonce
    /// (docs/contracts.md "Pool credential"). Needs poolName.
    QString poolSecretFile;
    /// The chips this agent offers (`npuChips` / RUNBOX_NPU_CHIPS): nullopt = all the host has;
    /// otherwise only these chip logic ids (docs/npu.md "Offered chips").
    std::optional<QList<int>> npuChips;
    /// Exit (status 0) once no workspace and no execution has existed for this long, seconds
    /// (`--exit-when-idle` / RUNBOX_EXIT_WHEN_IDLE_S; 0 = never). agent/pool/IdleExit.
    qint64 exitWhenIdleS = 0;
    /// /v1/health says `"idle": true` once the agent has held no workspace for this long, ms
    /// (RUNBOX_IDLE_AFTER_MS / `idleAfterMs`; 0 = never idle). For hosts that shut down when
    /// unused.
    qint64 idleAfterMs = 0;
    /// The domain of the port proxy's browser origins `<port>-<workspace id>.<domain>`
    /// (RUNBOX_PROXY_DOMAIN / `proxyDomain`; docs/contracts.md "Port proxy for browsers").
    QString proxyDomain = QStringLiteral("localhost");
    /// The science environments' offline wheelhouse (RUNBOX_ENV_WHEELHOUSE / `envWheelhouse`;
    /// "" = none, installs are refused; docs/environments.md).
    QString envWheelhouse;
    /// The R environments' local CRAN-like repository (RUNBOX_ENV_CRAN_REPOSITORY /
    /// `envCranRepository`; "" = none, R installs are refused; docs/environments.md).
    QString envCranRepository;
    /// The conda environments' micromamba binary, its expected SHA-256 and the local channels
    /// (RUNBOX_ENV_MICROMAMBA, RUNBOX_ENV_MICROMAMBA_SHA256, RUNBOX_ENV_CONDA_CHANNELS;
    /// docs/environments.md).
    QString envMicromamba;
    QString envMicromambaSha256;
    QStringList envCondaChannels;
    /// How long a revision that is neither current nor used keeps its prefix, seconds
    /// (RUNBOX_ENV_REVISION_GRACE_S / `envRevisionGraceS`; docs/environments.md "Lifecycle").
    qint64 envRevisionGraceS = 86400;
    /// The starter environments: whether they are built on first use and their packages
    /// (RUNBOX_ENV_STARTERS, RUNBOX_ENV_STARTER_PYTHON_PACKAGES, RUNBOX_ENV_STARTER_R_PACKAGES;
    /// docs/environments.md "Starters").
    bool envStarters = true;
    QStringList envStarterPythonPackages;
    QStringList envStarterRPackages;
    /// The venv builds' package index (RUNBOX_ENV_INDEX_URL / `envIndexUrl`; "" = none, builds
    /// stay offline), checked with IndexUrl::parse at start; the CA bundle pip trusts for it
    /// (`envIndexCaFile`) and the private ranges its host may resolve to
    /// (`envIndexPrivateCidrs`, canonical CIDRs). docs/environments.md "Package index".
    QString envIndexUrl;
    /// The r-lib builds' CRAN-like repository URL (RUNBOX_ENV_CRAN_URL / `envCranUrl`; "" =
    /// none), checked like envIndexUrl; envIndexCaFile and envIndexPrivateCidrs serve it too.
    QString envCranUrl;
    /// The micromamba builds' remote channels (RUNBOX_ENV_CONDA_CHANNEL_URLS /
    /// `envCondaChannelUrls`), each checked like envIndexUrl.
    QStringList envCondaChannelUrls;
    QString envIndexCaFile;
    QStringList envIndexPrivateCidrs;
    /// Finished executions are removed this many days after they finished
    /// (RUNBOX_EXECUTION_RETENTION_DAYS / `executionRetentionDays`, 0..36500; 0 = kept forever;
    /// store::ExecutionRetention).
    qint64 executionRetentionDays = 30;
    /// The bound of the finished executions' logs: beyond it the oldest finished are removed
    /// (RUNBOX_LOG_STORE_MAX_BYTES / `logStoreMaxBytes`, default 20 GiB; 0 = unlimited).
    qint64 logStoreMaxBytes = qint64(20) << 30;
    /// The strong tier's sandbox uids when the agent is privileged (RUNBOX_STRONG_UID_FIRST /
    /// _COUNT, `strongUidFirst` / `strongUidCount`): the first is the probe uid, each strong
    /// workspace gets one of the others. Default 1879048192 (0x70000000, above systemd's
    /// container ranges, docs/contracts.md "Sandbox uids") and 65536.
    qint64 strongUidFirst = 1879048192LL;
    qint64 strongUidCount = 65536;
    /// Where the agents of one host claim their uid ranges (RUNBOX_UID_RANGE_REGISTRY /
    /// `uidRangeRegistry`, default /run/runbox/uid-ranges; sandbox::UidRangeRegistry).
    QString uidRangeRegistry = QStringLiteral("/run/runbox/uid-ranges");
    /// The runbox-light-supervisor binary given by RUNBOX_LIGHT_SUPERVISOR; "" = look for it
    /// (config::helperBinaryPath()).
    QString lightSupervisorPath;
    /// TEST-ONLY: RUNBOX_TEST_RESOLVER_HOSTS, a hosts file egress answers lookups from instead of
    /// DNS (egress::HostsFileResolver); "" = DNS.
    QString testResolverHostsPath;
    /// Every option of the table with its source (the NPU settings, the quota seeds and
    /// --print-config read it).
    ConfigValues values;

    /// Resolves the table from @p args (argv without the program name), @p env and the config
    /// file, then fills the fields above. On an unknown option or a bad value returns false and
    /// sets @p error to a one-line message naming the flag, variable or file key.
    bool parse(const QStringList& args, const QProcessEnvironment& env, QString* error);
};

} // namespace runbox::config
