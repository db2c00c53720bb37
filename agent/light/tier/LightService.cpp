#include "agent/light/tier/LightService.h"

#include "agent/config/HelperBinaries.h"
#include "agent/egress/EgressService.h"
#include "agent/egress/EgressStage.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/environments/EnvironmentStage.h"
#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/RlimitsJson.h"
#include "agent/light/tier/LightBackgroundBounds.h"
#include "agent/light/tier/LightRootPath.h"
#include "agent/light/tier/LightRun.h"
#include "agent/sandbox/EnvPolicy.h"
#include "agent/store/QuotaStore.h"
#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspaceRegistry.h"
#include "agent/workspace/WorkspaceToken.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QTextStream>

#include <climits>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::light {

namespace {

constexpr int kInlineCreateMax = 16; ///< larger batches are made on a worker thread
constexpr int kIdleScanMs = 500;

qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}

void logLine(const QString& line) {
    QTextStream(stderr) << QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs) << ' '
                        << line << Qt::endl;
}

} // namespace

LightService::LightService(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context), m_environments(context->environments) {
    m_workers.setMaxThreadCount(8);
    m_idleTimer.setInterval(kIdleScanMs);
    connect(&m_idleTimer, &QTimer::timeout, this, &LightService::evictIdle);
}

bool LightService::serves(const workspace::Workspace& workspace) {
    return workspace.isLight();
}

LightService::~LightService() {
    m_idleTimer.stop();
    m_workers.waitForDone();
    delete m_backgroundBounds; // it asks the host
    m_host.reset();            // removes every workspace, stops the zygote
}

bool LightService::start(const QList<quint16>& controlPlanePorts) {
    const config::AgentConfig& config = m_context->config;
    LightHostConfig host;
    host.workspaceRoot =
        config.lightRoot.isEmpty() ? config.stateDir + QStringLiteral("/light") : config.lightRoot;
    host.supervisorPath = config::helperBinaryPath(QStringLiteral("runbox-light-supervisor"),
                                                   config.lightSupervisorPath);
    host.uids.first = uid_t(config.lightUidFirst);
    host.uids.count = std::uint32_t(config.lightUidCount);
    host.minLandlockAbi = int(config.lightMinLandlockAbi);
    host.spareHomes = int(config.lightSpareHomes);
    host.controlPlanePorts = controlPlanePorts;
    if (m_context->environments) {
        host.environmentRoot = m_context->environments->prefixRoot();
        host.maskedInterpreters = environments::EnvironmentStage::hostInterpreters();
    }
    m_host = std::make_unique<LightWorkspaceHost>(host);
    m_backgroundBounds = new LightBackgroundBounds(m_host.get(), m_context->bounds,
                                                   m_context->quotas, m_context->workspaces, this);
    applyQuotas();
    if (!m_context->uidRangeClaimError.isEmpty()) {
        m_startError = m_context->uidRangeClaimError;
        return false;
    }
    // Only when the tier could run at all: the homes must be reachable by their uids.
    const bool runnable = LightWorkspaceHost::probe(host).available;
    if (runnable &&
        !LightRootPath::makeReachable(host.workspaceRoot, config.stateDir, &m_startError))
        return false;
    // Homes are owned by their uids: a set-user-ID file in one must not give host users that
    // uid (docs/contracts.md "Sandbox uids"). Only a tier that can run needs it (it is root).
    if (runnable) {
        QDir().mkpath(host.workspaceRoot);
        if (const QString e = m_rootNoSuid.mount(host.workspaceRoot, config.stateDir);
            !e.isEmpty()) {
            m_startError = e;
            return false;
        }
    }
    const bool ok = m_host->start();
    m_host->setQuarantineListener([](uid_t uid, const QString& reason) {
        logLine(QStringLiteral("warning: light uid %1 quarantined: %2").arg(uid).arg(reason));
    });
    if (ok)
        m_idleTimer.start();
    return ok;
}

bool LightService::available() const {
    return m_host && m_host->availability().available;
}

LightAvailability LightService::availability() const {
    if (!m_host) {
        LightAvailability none;
        none.reason = QStringLiteral("light workspaces not started");
        return none;
    }
    LightAvailability availability = m_host->availability();
    if (!m_startError.isEmpty()) {
        availability.available = false;
        availability.reason = m_startError;
    }
    return availability;
}

void LightService::applyQuotas() {
    if (!m_host || !m_context->quotas)
        return;
    const qint64 max = m_context->quotas->current().maxLightWorkspaces;
    m_host->setCapacity(max <= 0 ? INT_MAX : int(qMin<qint64>(max, INT_MAX)));
}

void LightService::create(const LightCreateRequest& request, const QString& ownerTokenId,
                          CreateDone done) {
    if (!available())
        return done(Error{ErrorKind::Unavailable, QStringLiteral("light_unavailable"),
                          availability().reason},
                    {});
    // The network is fixed now, from the policy in force and the request's explicit grants
    // (docs/light-workspaces.md "Network").
    LightCreateRequest fixed = request;
    // The environment is fixed now too, held for the creation (released in finishCreate or on
    // an error); each workspace made holds it for its life.
    if (!request.environmentId.isEmpty() || !request.environmentRevisionId.isEmpty()) {
        if (!m_host->supportsEnvironments())
            return done(Error{ErrorKind::Unavailable,
                              QStringLiteral("light_environment_unavailable"),
                              QStringLiteral("a science environment in a light workspace needs a "
                                             "mount namespace per workspace (to bind it at "
                                             "/opt/science-env and mask the host interpreters), "
                                             "which needs a root agent "
                                             "(docs/light-workspaces.md \"Known limits\")")},
                        {});
        QMap<QString, QString> variables;
        if (auto err = m_environments.acquire(request.environmentId, request.environmentRevisionId,
                                              &fixed.environment, &fixed.options.environmentPrefix,
                                              &variables))
            return done(err, {});
        for (auto it = variables.cbegin(); it != variables.cend(); ++it)
            fixed.options.env.insert(it.key(), it.value()); // over the body's own env
        done = [this, revision = fixed.environment.revisionId,
                done = std::move(done)](std::optional<Error> error, const QJsonObject& body) {
            m_environments.release(revision);
            done(std::move(error), body);
        };
    }
    const egress::NetworkPolicy policy =
        m_context->egress ? m_context->egress->currentPolicy() : egress::NetworkPolicy();
    fixed.options.policyMode = egress::NetworkPolicy::toString(policy.mode());
    if (policy.mode() == egress::NetworkPolicy::Mode::DomainAllowlist &&
        m_host->supportsEgressGateway())
        offerEgressGateway(policy, &fixed.options);
    createFixed(fixed, ownerTokenId, std::move(done));
}

void LightService::offerEgressGateway(const egress::NetworkPolicy& policy,
                                      LightWorkspaceOptions* options) {
    options->egressGateway = true;
    const QMap<QString, QString> proxyEnv = egress::EgressStage::proxyEnvironment();
    for (auto it = proxyEnv.cbegin(); it != proxyEnv.cend(); ++it)
        options->env.insert(it.key(), it.value()); // reserved names: the caller set none
    // Light event thread → this thread. The fd travels in a holder, so a dropped event (the
    // service going away) still closes it.
    options->onGatewayListener = [this, policy](const QString& id, int fd) {
        auto holder = std::make_shared<workspace::UniqueFd>(fd);
        QMetaObject::invokeMethod(
            this, [this, policy, id, holder] { serveEgress(policy, id, holder->release()); },
            Qt::QueuedConnection);
    };
}

void LightService::serveEgress(const egress::NetworkPolicy& policy, const QString& id, int fd) {
    // A workspace deleted meanwhile is gone from the host once its removal finished (which
    // releases it again, in removeInBackground): its listener must not outlive it.
    if (!m_context->egress || !m_host || !m_host->info(id)) {
        ::close(fd);
        return;
    }
    if (auto error = m_context->egress->serveLightWorkspace(policy, id, fd))
        logLine(QStringLiteral("warning: light workspace %1 gets no egress gateway: %2")
                    .arg(id, error->message));
}

void LightService::createFixed(const LightCreateRequest& request, const QString& ownerTokenId,
                               CreateDone done) {
    if (request.count <= kInlineCreateMax) {
        LightCreateResult result;
        if (auto err = m_host->create(request.options, request.count, &result))
            return done(err, {});
        return finishCreate(request, ownerTokenId, result, std::move(done));
    }
    LightWorkspaceHost* host = m_host.get();
    m_workers.start([this, host, request, ownerTokenId, done = std::move(done)]() mutable {
        auto result = std::make_shared<LightCreateResult>();
        const std::optional<Error> err = host->create(request.options, request.count, result.get());
        QMetaObject::invokeMethod(
            this,
            [this, err, result, request, ownerTokenId, done = std::move(done)]() mutable {
                if (err)
                    return done(err, {});
                finishCreate(request, ownerTokenId, *result, std::move(done));
            },
            Qt::QueuedConnection);
    });
}

void LightService::finishCreate(const LightCreateRequest& request, const QString& ownerTokenId,
                                const LightCreateResult& result, CreateDone done) {
    QList<workspace::Workspace> made;
    QList<QJsonObject> confinements; // parallel to made
    QStringList orphans;             // created by the host but not registrable: removed again
    const QDateTime createdAt = QDateTime::currentDateTimeUtc();
    for (const LightWorkspaceInfo& info : result.workspaces) {
        const int fd = m_host->openHome(info.id);
        if (fd < 0) {
            orphans << info.id;
            continue;
        }
        auto fs = std::make_shared<workspace::WorkspaceFs>(workspace::UniqueFd(fd));
        fs->setOwner(workspace::WorkspaceOwner{info.uid, info.uid});
        workspace::Workspace ws;
        ws.id = info.id;
        ws.isolation = QStringLiteral("light");
        ws.tokenNonce = crypto::randomBytes(16).toHex();
        ws.directory = info.home;
        ws.createdAt = createdAt;
        ws.uid = info.uid;
        ws.fs = std::move(fs);
        made << ws;
        confinements << info.workspaceConfinementJson();
    }
    std::optional<Error> error;
    if (!made.isEmpty())
        error = m_context->workspaces->addLight(made, ownerTokenId);
    if (error) {
        for (const workspace::Workspace& ws : made)
            orphans << ws.id;
        made.clear();
    }
    if (!orphans.isEmpty())
        removeInBackground(orphans, [](const QList<Error>& errors) {
            for (const Error& e : errors)
                logLine(QStringLiteral("warning: %1").arg(e.message));
        });
    if (error)
        return done(error, {});
    const qint64 now = nowMs();
    QJsonArray items;
    for (qsizetype i = 0; i < made.size(); ++i) {
        const workspace::Workspace& ws = made[i];
        m_entries.insert(ws.id, Entry{request.idleTimeoutMs, now, 0});
        m_environments.attach(ws.id, request.environment);
        QJsonObject item = ws.toJson();
        const QJsonObject environment = m_environments.json(ws.id);
        for (auto it = environment.begin(); it != environment.end(); ++it)
            item.insert(it.key(), it.value());
        item.insert(QStringLiteral("token"), QString::fromLatin1(workspace::WorkspaceToken::derive(
                                                 m_context->agentToken, ws.id, ws.tokenNonce)));
        item.insert(QStringLiteral("confinement"), confinements[i]);
        item.insert(QStringLiteral("idleTimeoutS"), double(request.idleTimeoutMs / 1000));
        items.append(item);
    }
    m_context->noteWorkspaceCount();
    done(std::nullopt, {{"workspaces", items}, {"rejected", request.count - int(made.size())}});
}

void LightService::forget(const QString& id) {
    m_entries.remove(id);
    if (m_backgroundBounds)
        m_backgroundBounds->forget(id);
    if (m_context->egress)
        m_context->egress->releaseLightWorkspace(id); // its last decisions are recorded now
    if (auto err = m_context->workspaces->forgetLight(id); err && err->kind != ErrorKind::NotFound)
        logLine(QStringLiteral("warning: light workspace %1: %2").arg(id, err->message));
    m_context->noteWorkspaceCount();
    Q_EMIT workspaceRemoved(id);
}

void LightService::removeInBackground(const QStringList& ids,
                                      std::function<void(const QList<Error>&)> done) {
    if (ids.isEmpty())
        return done({});
    LightWorkspaceHost* host = m_host.get();
    // One task per workspace: removes block on the kernel (supervisor exit, home walk), so
    // several run side by side; the last one to finish answers.
    struct Pending {
        std::mutex mutex;
        QList<Error> errors;
        int left = 0;
        QStringList ids;
    };
    auto pending = std::make_shared<Pending>();
    pending->ids = ids;
    pending->left = int(ids.size());
    auto finish = std::make_shared<std::function<void(const QList<Error>&)>>(std::move(done));
    for (const QString& id : ids) {
        m_workers.start([this, host, id, pending, finish] {
            const std::optional<Error> err = host->remove(id);
            bool last;
            QList<Error> errors;
            {
                std::lock_guard lock(pending->mutex);
                if (err && err->kind != ErrorKind::NotFound)
                    pending->errors << *err;
                last = --pending->left == 0;
                if (last)
                    errors = pending->errors;
            }
            if (last)
                QMetaObject::invokeMethod(
                    this,
                    [this, ids = pending->ids, finish, errors] {
                        // A gateway listener that arrived while they were being removed.
                        if (m_context->egress)
                            for (const QString& removed : ids)
                                m_context->egress->releaseLightWorkspace(removed);
                        // Its processes are gone: its environment's prefix may go now.
                        for (const QString& removed : ids)
                            m_environments.detach(removed);
                        (*finish)(errors);
                    },
                    Qt::QueuedConnection);
        });
    }
}

void LightService::remove(const QString& id, RemoveDone done) {
    if (!m_context->workspaces->hasLight(id) || !m_host)
        return done(Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                          QStringLiteral("no workspace %1").arg(id)});
    forget(id);
    removeInBackground({id}, [done = std::move(done)](const QList<Error>& errors) {
        done(errors.isEmpty() ? std::nullopt : std::optional<Error>(errors.first()));
    });
}

void LightService::removeAll(
    std::function<void(const QStringList& deleted, const QList<Error>& errors)> done) {
    const QStringList ids = m_context->workspaces->lightIds();
    for (const QString& id : ids)
        forget(id);
    removeInBackground(
        ids, [ids, done = std::move(done)](const QList<Error>& errors) { done(ids, errors); });
}

QJsonObject LightService::confinementOf(const QString& id) const {
    const auto info = m_host ? m_host->info(id) : std::nullopt;
    return info ? info->workspaceConfinementJson() : QJsonObject();
}

QJsonValue LightService::lastBoundsKillOf(const QString& id) const {
    return m_backgroundBounds ? m_backgroundBounds->lastKillJson(id) : QJsonValue::Null;
}

QJsonObject LightService::idleJsonOf(const QString& id) const {
    const auto it = m_entries.constFind(id);
    if (it == m_entries.cend())
        return {};
    const auto iso = [](qint64 ms) {
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
    };
    const bool evictable = it->idleTimeoutMs > 0 && it->active == 0;
    return {{"idleTimeoutS", double(it->idleTimeoutMs / 1000)},
            {"lastUsedAt", iso(it->lastUsedMs)},
            {"idleDeadlineAt",
             evictable ? QJsonValue(iso(it->lastUsedMs + it->idleTimeoutMs)) : QJsonValue()}};
}

void LightService::touch(const QString& id) {
    const auto it = m_entries.find(id);
    if (it != m_entries.end())
        it->lastUsedMs = nowMs();
}

void LightService::beginActivity(const QString& id) {
    const auto it = m_entries.find(id);
    if (it != m_entries.end()) {
        ++it->active;
        it->lastUsedMs = nowMs();
    }
}

void LightService::endActivity(const QString& id) {
    const auto it = m_entries.find(id);
    if (it != m_entries.end()) {
        it->active = qMax(0, it->active - 1);
        it->lastUsedMs = nowMs();
    }
}

void LightService::evictIdle() {
    const qint64 now = nowMs();
    QStringList idle;
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        const Entry& e = it.value();
        if (e.idleTimeoutMs <= 0 || e.active > 0 || now - e.lastUsedMs < e.idleTimeoutMs)
            continue;
        // A managed or otherwise tracked execution still running keeps it too.
        const auto info = m_host->info(it.key());
        if (info && info->runningExecutions > 0)
            continue;
        idle << it.key();
    }
    if (!idle.isEmpty())
        logLine(QStringLiteral("%1 idle light workspace(s) evicted: %2")
                    .arg(idle.size())
                    .arg(idle.mid(0, 8).join(QLatin1Char(' ')) +
                         (idle.size() > 8 ? QStringLiteral(" …") : QString())));
    for (const QString& id : idle) {
        remove(id, [id](std::optional<Error> err) {
            if (err)
                logLine(QStringLiteral("warning: evicting light workspace %1: %2")
                            .arg(id, err->message));
        });
    }
}

QJsonObject LightService::healthJson() const {
    QJsonObject json = availability().toJson();
    json.insert(QStringLiteral("workspaces"), m_host ? m_host->count() : 0);
    const qint64 capacity = m_context->quotas ? m_context->quotas->current().maxLightWorkspaces : 0;
    json.insert(QStringLiteral("capacity"), capacity);
    json.insert(QStringLiteral("defaultIdleTimeoutS"), m_context->config.lightIdleTimeoutS);
    if (m_host && m_host->uidPool()) {
        const UidPool::Stats stats = m_host->uidPool()->stats();
        json.insert(QStringLiteral("uids"),
                    QJsonObject{{"free", double(stats.free)},
                                {"inUse", double(stats.inUse)},
                                {"quarantined", double(stats.quarantined)}});
        QJsonArray quarantined;
        const auto reasons = m_host->uidPool()->quarantined();
        for (auto it = reasons.cbegin(); it != reasons.cend(); ++it)
            quarantined.append(QJsonObject{{"uid", double(it.key())}, {"reason", it.value()}});
        json.insert(QStringLiteral("quarantinedUids"), quarantined);
    }
    if (m_backgroundBounds)
        json.insert(QStringLiteral("backgroundBounds"), m_backgroundBounds->healthJson());
    return json;
}

} // namespace runbox::light
