#include "agent/AgentRuntime.h"

#include "agent/AgentLog.h"

#include "agent/api/ApiService.h"
#include "agent/bounds/BoundsHost.h"
#include "agent/config/ConfigText.h"
#include "agent/config/HelperBinaries.h"
#include "agent/config/StateDir.h"
#include "agent/egress/EgressDecisionStore.h"
#include "agent/egress/EgressProbe.h"
#include "agent/egress/EgressService.h"
#include "agent/egress/EgressStage.h"
#include "agent/egress/HostsFileResolver.h"
#include "agent/egress/NetworkPolicyStore.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/environments/EnvironmentStage.h"
#include "agent/execution/BoundsStage.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/execution/strong/StrongTier.h"
#include "agent/light/UidSweeper.h"
#include "agent/light/tier/LightService.h"
#include "agent/light/tier/LightTier.h"
#include "agent/metrics/AgentMetrics.h"
#include "agent/npu/NpuService.h"
#include "agent/npu/NpuStage.h"
#include "agent/pool/HostCredential.h"
#include "agent/pool/IdleExit.h"
#include "agent/pool/PoolHost.h"
#include "agent/proxy/ProxyStage.h"
#include "agent/sandbox/BwrapPreflight.h"
#include "agent/sandbox/CapabilityProbe.h"
#include "agent/sandbox/SandboxUser.h"
#include "agent/sandbox/SeccompProfile.h"
#include "agent/service/OpenFileLimit.h"
#include "agent/service/ServiceNotifier.h"
#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/ExecutionRetention.h"
#include "agent/store/LogStore.h"
#include "agent/store/QuotaStore.h"
#include "agent/store/WorkspaceRepository.h"
#include "agent/tls/PlaintextListen.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox {

namespace {
int g_signalPipe[2] = {-1, -1};

void onSignal(int) {
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_signalPipe[1], &c, 1);
}

} // namespace

AgentRuntime::AgentRuntime() = default;
AgentRuntime::~AgentRuntime() = default;

int AgentRuntime::start(const QStringList& args) {
    if (args.contains(QStringLiteral("--help"))) {
        QTextStream(stdout) << config::usageText();
        return 0;
    }
    if (args.contains(QStringLiteral("--help-markdown"))) {
        QTextStream(stdout) << config::markdownReference();
        return 0;
    }
    if (args.contains(QStringLiteral("--help-conf"))) {
        QTextStream(stdout) << config::confTemplate();
        return 0;
    }
    // The one place the agent reads its environment: everything goes through the table.
    QString error;
    if (!m_context.config.parse(args, QProcessEnvironment::systemEnvironment(), &error)) {
        logLine(QStringLiteral("runbox-agent: %1").arg(error));
        return 2;
    }
    if (args.contains(QStringLiteral("--print-config"))) {
        QTextStream(stdout) << config::printConfigText(m_context.config.values);
        return 0;
    }
    if (args.contains(QStringLiteral("--print-fingerprint")))
        return printFingerprint(m_context.config);
    if (const auto refused = tls::plaintextListenRefusal(m_context.config.listenAddress,
                                                         m_context.config.allowPlaintextRemote)) {
        logLine(QStringLiteral("runbox-agent: %1").arg(refused->message));
        return 2; // a setting the agent refuses, like a bad value: before anything is made
    }
    ::signal(SIGPIPE, SIG_IGN);
    const config::StateDir state(m_context.config.stateDir);
    if (const QString e = state.prepare(); !e.isEmpty()) {
        logLine(QStringLiteral("runbox-agent: %1").arg(e));
        return 1;
    }
    if (args.contains(QStringLiteral("--rotate-metrics-token"))) { // docs/metrics.md "Token"
        const bool rotated = !state.rotateMetricsToken(&error).isEmpty();
        logLine(rotated ? QStringLiteral("runbox-agent: %1 replaced; a running agent accepts only "
                                         "the new token from its next scrape on")
                              .arg(state.filePath(QStringLiteral("metrics.token")))
                        : QStringLiteral("runbox-agent: %1").arg(error));
        return rotated ? 0 : 1;
    }
    if (!m_context.config.poolSecretFile.isEmpty()) {
        // docs/contracts.md "Pool credential": the token is derived, never drawn or logged.
        pool::HostCredential credential;
        error = credential.load(m_context.config.poolSecretFile, state);
        if (!error.isEmpty()) {
            logLine(QStringLiteral("runbox-agent: %1").arg(error));
            return 1;
        }
        m_context.agentToken = credential.token();
        m_context.poolHostNonce = credential.hostNonce();
    } else {
        m_context.agentToken = state.loadOrCreateToken(&error);
    }
    if (m_context.agentToken.isEmpty() || state.loadOrCreateMetricsToken(&error).isEmpty()) {
        logLine(QStringLiteral("runbox-agent: %1").arg(error));
        return 1;
    }

    QString bwrapPath;
    if (const QString e = sandbox::BwrapPreflight::check(m_context.config.bwrapPath, &bwrapPath);
        !e.isEmpty()) {
        logLine(QStringLiteral("runbox-agent: %1").arg(e));
        return 1;
    }
    execution::SandboxHost& host = m_context.host;
    if (sandbox::agentIsPrivileged())
        claimSandboxUids(state);
    host.capability = sandbox::CapabilityProbe::probe(bwrapPath, host.probeUser());
    host.stateDir = state.path();
    for (const sandbox::SeccompProfileKind kind : sandbox::kAllSeccompProfileKinds) {
        const QString path = sandbox::SeccompProfile::publish(kind, state.path(), &error);
        if (path.isEmpty()) {
            host.seccompError = error;
            break;
        }
        host.seccompPaths.insert(kind, path);
    }
    // Every sandbox runs under runbox-sandbox-guard (a helper program, config::helperBinaryPath)
    // so that none outlives the agent; without it bwrap's own --die-with-parent is all there is.
    host.guardPath = config::helperBinaryPath(QStringLiteral("runbox-sandbox-guard"));
    if (host.guardPath.isEmpty())
        logLine(QStringLiteral("warning: runbox-sandbox-guard is in none of %1: a sandbox that is "
                               "still setting up when the agent dies can outlive it until the "
                               "next start-up sweep")
                    .arg(config::helperBinaryDirs().join(QStringLiteral(", "))));
    m_context.rAvailable = QFileInfo(QStringLiteral("/usr/bin/R")).isExecutable();

    m_database = store::Database::open(state.path(), &error);
    if (!m_database) {
        logLine(QStringLiteral("runbox-agent: cannot open the state database: %1").arg(error));
        return 1;
    }
    m_quotas = std::make_unique<store::QuotaStore>(*m_database);
    QStringList quotaWarnings;
    if (auto err = m_quotas->initialize(m_context.config.values.quotaSeeds(), 0, &quotaWarnings)) {
        logLine(QStringLiteral("runbox-agent: %1").arg(err->message));
        return 1;
    }
    for (const QString& w : quotaWarnings)
        logLine(QStringLiteral("warning: %1").arg(w));
    const qint64 pidMax = bounds::BoundsHost::hostPidMax();
    m_quotas->setHostPidMax(pidMax);
    if (auto tooMany = m_quotas->current().validateForHost(pidMax))
        logLine(QStringLiteral("warning: %1 (see /v1/health processes)").arg(tooMany->message));
    m_executions = std::make_unique<store::ExecutionRepository>(*m_database);
    m_workspaceRows = std::make_unique<store::WorkspaceRepository>(*m_database);
    m_logs = std::make_unique<store::LogStore>(state.path());
    if (!m_logs->initialize(&error)) {
        logLine(QStringLiteral("runbox-agent: %1").arg(error));
        return 1;
    }
    m_workspaces = std::make_unique<workspace::WorkspaceRegistry>(
        state.filePath(QStringLiteral("workspaces")), m_workspaceRows.get());
    if (host.sandboxUids && host.sandboxUserError.isEmpty()) {
        if (QString e = state.openToSandboxUsers(); !e.isEmpty())
            host.sandboxUserError = e;
        else if (e = m_workspacesNoSuid.mount(state.filePath(QStringLiteral("workspaces")),
                                              state.path());
                 !e.isEmpty())
            host.sandboxUserError = e; // a set-user-ID file would hand its uid to host users
        else
            m_workspaces->setSandboxUids(*host.sandboxUids, [](uid_t uid) {
                return light::UidSweeper::sweep({uid}, 5, 20).empty();
            });
    }
    if (!host.sandboxUserError.isEmpty())
        logLine(QStringLiteral("warning: strong executions are refused (503 "
                               "sandbox_unavailable): %1")
                    .arg(host.sandboxUserError));
    else if (host.sandboxUids)
        logLine(QStringLiteral("sandboxes run as workspace uids %1 (the agent is privileged)")
                    .arg(host.sandboxUids->toString()));
    m_bounds = std::make_unique<bounds::BoundsHost>();
    m_context.bounds = m_bounds.get();
    logLine(QStringLiteral("memory bounds: %1 (%2)")
                .arg(bounds::BoundsHost::toString(m_bounds->mode()), m_bounds->reason()));
    startProjectQuota(state.filePath(QStringLiteral("workspaces")));
    m_workspaces->load();
    m_context.workspaces = m_workspaces.get();
    m_context.noteWorkspaceCount();
    m_context.database = m_database.get();
    m_context.quotas = m_quotas.get();
    m_context.executions = m_executions.get();
    m_context.logs = m_logs.get();
    execution::ExecutionManager::Dependencies deps;
    deps.repository = m_executions.get();
    deps.logs = m_logs.get();
    deps.quotas = m_quotas.get();
    deps.workspaces = m_workspaces.get();
    deps.host = &m_context.host;
    deps.rAvailable = m_context.rAvailable;
    deps.bounds = m_bounds.get();
    m_manager = std::make_unique<execution::ExecutionManager>(deps);
    m_context.manager = m_manager.get();
    m_boundsStage = std::make_unique<execution::BoundsStage>(m_bounds.get());
    m_manager->planner().addStage(m_boundsStage.get());
    m_manager->addTier(std::make_unique<execution::StrongTier>(
        &m_manager->planner(), &m_context.host,
        [this]() -> std::optional<Error> {
            if (m_context.sandboxReady())
                return std::nullopt;
            return Error{ErrorKind::Unavailable, QStringLiteral("sandbox_unavailable"),
                         m_context.unavailableReason()};
        },
        m_context.config.setupTimeoutMs));
    startNpu();
    if (const int lost = m_manager->recover(); lost > 0)
        logLine(QStringLiteral("warning: %1 execution(s) of a previous run were marked lost")
                    .arg(lost));
    // After recovery (every record final, every log closed), before anything can run.
    m_retention = std::make_unique<store::ExecutionRetention>(
        *m_database, m_logs.get(),
        store::RetentionPolicy{m_context.config.executionRetentionDays,
                               m_context.config.logStoreMaxBytes});
    if (auto err = m_retention->initialize()) {
        logLine(QStringLiteral("runbox-agent: retention: %1").arg(err->message));
        return 1;
    }
    m_retention->start();
    m_context.retention = m_retention.get();
    if (!startEgress())
        return 1;
    // After egress: its epoch contributor runs later and takes the network off builds.
    startEnvironments(state.path());
    // Last: it only widens the Baseline profile, once egress and NPU chose theirs.
    m_proxyStage = std::make_unique<proxy::ProxyStage>();
    m_manager->planner().addStage(m_proxyStage.get());
    m_manager->addRequestFeature(proxy::ProxyStage::kField, &proxy::ProxyStage::checkField);
    m_manager->addEpochContributor(&proxy::ProxyStage::recordInto);
    m_context.startedAtMs = QDateTime::currentMSecsSinceEpoch();

    startPool();
    m_light = std::make_unique<light::LightService>(&m_context);
    m_context.light = m_light.get();
    m_manager->addTier(std::make_unique<light::LightTier>(m_light.get(), m_workspaces.get()));
    m_metrics = std::make_unique<metrics::MetricsRegistry>();
    m_agentMetrics = std::make_unique<metrics::AgentMetrics>(
        m_metrics.get(), metrics::AgentMetrics::Sources{m_manager.get(), m_egress.get(),
                                                        m_light.get(), m_npu.get()});
    m_context.metrics = m_metrics.get();
    m_api = std::make_unique<api::ApiService>(&m_context);
    http::HttpLimits limits;
    limits.maxBodyBytes = m_context.config.maxRequestBodyBytes;
    limits.headerTimeoutMs = m_context.config.headerTimeoutMs;
    limits.idleTimeoutMs = m_context.config.idleTimeoutMs;
    limits.maxConnections = m_context.config.maxConnections;
    limits.maxBufferedRequestBytes = m_context.config.maxBufferedRequestBytes;
    if (const auto warning = service::raiseOpenFileLimit(m_context.config.maxConnections))
        logLine(*warning);
    if (const QString e = m_listeners.start(m_context.config, m_api.get(), limits, logLine);
        !e.isEmpty()) {
        logLine(QStringLiteral("runbox-agent: %1").arg(e));
        return 1;
    }
    m_context.listenersJson = m_listeners.toJson();
    installSignalHandlers();
    // The light tier starts once the port is known: it is kept out of the workspaces' reach.
    if (m_light->start(m_listeners.ports())) {
        logLine(QStringLiteral("light workspaces available (Landlock ABI %1)")
                    .arg(m_light->availability().expected.landlockAbi));
    } else {
        logLine(QStringLiteral("light workspaces unavailable (503 light_unavailable): %1")
                    .arg(m_light->availability().reason));
    }
    if (m_light->available()) // an unavailable tier's weaknesses do not matter
        for (const QString& w : m_light->availability().warnings)
            logLine(QStringLiteral("warning: light: %1").arg(w));

    const QString url = m_listeners.plainUrl();
    for (const QString& w : m_context.host.capability.warnings)
        logLine(QStringLiteral("warning: %1").arg(w));
    if (!m_context.sandboxReady())
        logLine(QStringLiteral("warning: executions are refused (503 sandbox_unavailable): %1")
                    .arg(m_context.unavailableReason()));
    logLine(QStringLiteral("runbox-agent %1 listening on %2; %3%4; state %5")
                .arg(QStringLiteral(RUNBOX_VERSION), url, m_context.host.capability.summaryLine(),
                     m_context.host.seccompError.isEmpty()
                         ? QString()
                         : QStringLiteral(" (seccomp unavailable)"),
                     state.path()));
    state.writeTlsUrl(m_listeners.tlsUrl()); // before agent.url, which says the agent is ready
    state.writeUrl(url);
    // Readiness for systemd's Type=notify (docs/service.md "Readiness"): the listener is up and
    // the probe done; sent from the event loop, so a request right after it is served.
    const QString status =
        QStringLiteral("listening on %1; %2").arg(url, m_context.host.capability.summaryLine());
    QTimer::singleShot(0, this, [status] { service::ServiceNotifier::ready(status); });
    return -1;
}

void AgentRuntime::claimSandboxUids(const config::StateDir& state) {
    execution::SandboxHost& host = m_context.host;
    const config::AgentConfig& c = m_context.config;
    const sandbox::UidRange strong{quint64(c.strongUidFirst), quint64(c.strongUidCount)};
    const sandbox::UidRange light{quint64(c.lightUidFirst), quint64(c.lightUidCount)};
    host.sandboxUids = strong;
    if (const QStringList conflicts = sandbox::uidRangeConflicts(strong, light);
        !conflicts.isEmpty()) {
        host.sandboxUserError = QStringLiteral("the sandbox uid range %1 (RUNBOX_STRONG_UID_FIRST, "
                                               "RUNBOX_STRONG_UID_COUNT) cannot be used: %2")
                                    .arg(strong.toString(), conflicts.join(QStringLiteral("; ")));
        return;
    }
    QString error;
    if (!m_uidRanges.claim(c.uidRangeRegistry,
                           {{QStringLiteral("strong"), strong}, {QStringLiteral("light"), light}},
                           state.path(), &error)) {
        host.sandboxUserError = error;
        m_context.uidRangeClaimError = error;
    }
}

void AgentRuntime::installSignalHandlers() {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g_signalPipe) != 0)
        return;
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGTERM, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);
    auto* notifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, this);
    connect(notifier, &QSocketNotifier::activated, this, [this] {
        char c;
        [[maybe_unused]] const ssize_t n = ::read(g_signalPipe[0], &c, 1);
        shutdown(QStringLiteral("signal received"));
    });
}

void AgentRuntime::shutdown(const QString& why) {
    logLine(QStringLiteral("runbox-agent: stopping (%1)").arg(why));
    service::ServiceNotifier::stopping(QStringLiteral("stopping: ending the running executions"));
    m_listeners.close();
    m_api->stopAll();
    if (m_npu)
        m_npu->shutdown();
    // Executions report their end within the event loop; give them a moment, then leave.
    QTimer::singleShot(1500, qApp, &QCoreApplication::quit);
}

} // namespace runbox
