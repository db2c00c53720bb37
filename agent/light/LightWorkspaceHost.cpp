#include "agent/light/LightWorkspaceHost.h"

#include "agent/light/HomeDirectory.h"
#include "agent/light/LightExecMessage.h"
#include "agent/light/LightProbe.h"
#include "agent/light/SupervisorChannel.h"

#include <QDateTime>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light {

namespace {

constexpr int kSettleTimeoutMs = 2000;
constexpr int kTerminateTimeoutMs = 2000;
constexpr int kControlSendBufferBytes = 1 << 20;

qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray randomId() {
    unsigned char bytes[8];
    if (::getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes))
        return {};
    return QByteArray(reinterpret_cast<const char*>(bytes), sizeof(bytes)).toHex();
}

} // namespace

struct LightWorkspaceHost::Workspace {
    QString id;
    uid_t uid = 0;
    int homeFd = -1;
    QByteArray homeName; ///< the home's name in the root (a spare's own, or the id)
    QString home;
    Rlimits limits;
    QList<quint16> ports;
    bool udp = false;
    bool egressGateway = false;
    std::function<void(const QString&, int)> onGatewayListener;
    QString policyMode;
    QMap<QString, QString> env; // memory only: never written anywhere
    qint64 createdMs = 0;
    std::atomic<qint64> lastUsedMs{0};
    std::mutex mutex; // guards channel and deleting
    std::shared_ptr<SupervisorChannel> channel;
    bool deleting = false;

    ~Workspace() {
        if (homeFd >= 0)
            ::close(homeFd);
    }
};

LightWorkspaceHost::LightWorkspaceHost(LightHostConfig config)
    : m_config(std::move(config)), m_capacity(m_config.capacity) {
    m_availability.reason = QStringLiteral("light workspaces not started");
}

LightWorkspaceHost::~LightWorkspaceHost() {
    {
        std::lock_guard lock(m_warmMutex);
        m_stopping = true;
    }
    m_warmWake.notify_all();
    if (m_warmer.joinable())
        m_warmer.join();
    removeAll();
    m_spares.reset();
    m_zygote.stop();
    if (m_rootFd >= 0)
        ::close(m_rootFd);
    if (m_devNull >= 0)
        ::close(m_devNull);
}

LightAvailability LightWorkspaceHost::probe(const LightHostConfig& config) {
    return LightProbe::run(config);
}

bool LightWorkspaceHost::start() {
    m_availability = probe(m_config);
    if (!m_availability.available)
        return false;
    const auto refuse = [this](const QString& reason) {
        m_availability.available = false;
        m_availability.reason = reason;
        return false;
    };
    m_pool = std::make_unique<UidPool>(m_config.uids);
    if (!m_pool->error().isEmpty())
        return refuse(m_pool->error());
    m_reclaimer =
        std::make_unique<UidReclaimer>(m_pool.get(), m_config.sweepPasses, m_config.sweepPauseMs);
    QString error;
    m_rootFd = HomeDirectory::openRoot(m_config.workspaceRoot, &error);
    if (m_rootFd < 0 || !HomeDirectory::cleanStale(m_rootFd, m_config.workspaceRoot, &error))
        return refuse(error);
    m_devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    m_pidNamespace = m_availability.expected.pidNamespace;
    m_privateProc = m_availability.expected.privateProc;
    ZygoteOptions zygote;
    zygote.binary = m_config.supervisorPath;
    zygote.root = m_config.workspaceRoot;
    zygote.uidMin = m_config.uids.first;
    zygote.uidMax = m_config.uids.first + m_config.uids.count - 1;
    zygote.pidNamespace = m_pidNamespace;
    zygote.privateProc = m_privateProc;
    zygote.extraReadExecute = m_config.extraReadExecutePaths;
    if (!m_zygote.start(zygote, &error))
        return refuse(error);
    if (m_config.prestartSupervisors)
        m_warmer = std::thread([this] { warmLoop(); });
    m_spares = std::make_unique<SpareHomes>(m_rootFd, m_config.spareHomes);
    if (m_config.selfTest && !runSelfTest(&error))
        return refuse(QStringLiteral("light self-test failed: %1").arg(error));
    m_availability.reason.clear();
    return true;
}

LightAvailability LightWorkspaceHost::availability() const {
    return m_availability;
}

bool LightWorkspaceHost::runSelfTest(QString* error) {
    LightCreateResult created;
    if (auto failure = create(LightWorkspaceOptions{}, 1, &created)) {
        *error = failure->message;
        return false;
    }
    if (created.workspaces.isEmpty()) {
        *error = QStringLiteral("no uid or capacity for a scratch workspace");
        return false;
    }
    const QString id = created.workspaces.first().id;
    LightExecRequest request;
    request.argv = {QStringLiteral("true")};
    request.timeoutMs = 10000;
    ApiError execError;
    const auto execution = exec(id, request, &execError);
    bool ok = execution && execution->waitForFinished(15000);
    if (!execution) {
        *error = execError.message;
    } else if (!ok) {
        *error = QStringLiteral("`true` did not finish");
    } else {
        const LightExitStatus status = execution->status();
        const auto confinement = info(id)->confinement;
        ok = status.kind == LightExitStatus::Kind::Exited && status.exitCode == 0 &&
             confinement.landlockAbi >= m_config.minLandlockAbi && confinement.seccomp &&
             confinement.pidNamespace == m_pidNamespace && confinement.privateProc == m_privateProc;
        if (!ok)
            *error = status.message.isEmpty()
                         ? QStringLiteral("`true` ended as %1 under confinement %2")
                               .arg(status.stateName())
                               .arg(confinement.landlockAbi)
                         : status.message;
    }
    if (auto failure = remove(id)) {
        *error = failure->message;
        return false;
    }
    return ok;
}

std::optional<ApiError> LightWorkspaceHost::create(const LightWorkspaceOptions& options, int count,
                                                   LightCreateResult* result) {
    *result = LightCreateResult{};
    if (count < 1 || count > kMaxCreateCount)
        return ApiError{
            400, QStringLiteral("invalid_count"),
            QStringLiteral("count must be a whole number from 1 to %1").arg(kMaxCreateCount)};
    if (auto error = LightExecMessage::validateEnv(options.env))
        return error;
    if (auto error = LightExecMessage::validatePorts(options.allowedConnectPorts,
                                                     m_config.controlPlanePorts))
        return error;
    std::string why;
    if (!options.limits.validate(&why))
        return ApiError{400, QStringLiteral("invalid_limit"), QString::fromStdString(why)};
    if (!m_pool || m_rootFd < 0)
        return ApiError{503, QStringLiteral("light_unavailable"), m_availability.reason};
    if (options.egressGateway && (!options.allowedConnectPorts.isEmpty() || options.allowUdp))
        return ApiError{400, QStringLiteral("invalid_network_policy"),
                        QStringLiteral("under the domain allowlist a light workspace reaches the "
                                       "network only through the egress gateway, from a network "
                                       "namespace of its own: allowedConnectPorts and allowUdp "
                                       "would reach nothing there")};
    if (options.egressGateway && !m_privateProc)
        return ApiError{503, QStringLiteral("light_egress_unavailable"),
                        QStringLiteral("the egress gateway needs a network namespace per light "
                                       "workspace, which needs a root agent")};

    int granted;
    {
        std::lock_guard lock(m_mutex);
        const int room = m_capacity - static_cast<int>(m_workspaces.size()) - m_reserved;
        granted = qBound(0, count, room);
        m_reserved += granted;
    }
    QList<std::shared_ptr<Workspace>> made;
    QString failure;
    for (int i = 0; i < granted; ++i) {
        const std::optional<uid_t> uid = m_pool->acquire();
        if (!uid)
            break;
        auto workspace = std::make_shared<Workspace>();
        QByteArray id = randomId();
        if (id.size() != 16) {
            m_pool->release(*uid); // never ran anything
            failure = QStringLiteral("getrandom failed: no workspace id");
            break;
        }
        workspace->homeFd = m_spares->take(*uid, *uid, &workspace->homeName);
        if (workspace->homeFd < 0) {
            workspace->homeName = id;
            workspace->homeFd = HomeDirectory::create(m_rootFd, id, *uid, *uid, &failure);
        }
        if (workspace->homeFd < 0) {
            m_pool->release(*uid); // never ran anything
            break;
        }
        workspace->id = QString::fromLatin1(id);
        workspace->uid = *uid;
        workspace->home =
            m_config.workspaceRoot + QLatin1Char('/') + QString::fromLatin1(workspace->homeName);
        workspace->limits = options.limits;
        workspace->ports = options.allowedConnectPorts;
        workspace->udp = options.allowUdp;
        workspace->egressGateway = options.egressGateway;
        workspace->onGatewayListener = options.onGatewayListener;
        workspace->policyMode = options.policyMode;
        workspace->env = options.env;
        workspace->createdMs = nowMs();
        workspace->lastUsedMs = workspace->createdMs;
        made << workspace;
    }
    {
        std::lock_guard lock(m_mutex);
        m_reserved -= granted;
        for (const auto& workspace : made)
            m_workspaces.insert(workspace->id, workspace);
    }
    for (const auto& workspace : made)
        result->workspaces << describe(*workspace);
    if (m_config.prestartSupervisors && !made.isEmpty()) {
        {
            std::lock_guard lock(m_warmMutex);
            for (const auto& workspace : made)
                m_warmQueue.push_back(workspace->id);
        }
        m_warmWake.notify_one();
    }
    result->rejected = count - static_cast<int>(made.size());
    if (made.isEmpty() && !failure.isEmpty())
        return ApiError{500, QStringLiteral("workspace_create_failed"), failure};
    return std::nullopt;
}

void LightWorkspaceHost::warmLoop() {
    constexpr int kInFlight = 4; // supervisors starting at once: enough to overlap their setup
    for (;;) {
        QStringList batch;
        {
            std::unique_lock lock(m_warmMutex);
            m_warmWake.wait(lock, [this] { return m_stopping || !m_warmQueue.empty(); });
            if (m_stopping)
                return;
            while (!m_warmQueue.empty() && batch.size() < kInFlight) {
                batch << m_warmQueue.front();
                m_warmQueue.pop_front();
            }
        }
        std::vector<std::shared_ptr<SupervisorChannel>> starting;
        for (const QString& id : batch) {
            const auto workspace = find(id);
            if (!workspace)
                continue;
            std::lock_guard lock(workspace->mutex);
            QString ignored; // an exec will retry and report
            if (!workspace->deleting && !workspace->channel) {
                if (auto channel = ensureChannel(*workspace, &ignored))
                    starting.push_back(channel);
            }
        }
        for (const auto& channel : starting)
            channel->waitUntilSettled(kSettleTimeoutMs);
    }
}

std::shared_ptr<LightWorkspaceHost::Workspace> LightWorkspaceHost::find(const QString& id) const {
    std::lock_guard lock(m_mutex);
    return m_workspaces.value(id);
}

std::shared_ptr<SupervisorChannel> LightWorkspaceHost::ensureChannel(Workspace& workspace,
                                                                     QString* error) {
    if (workspace.channel && workspace.channel->state() != SupervisorChannel::State::Closed)
        return workspace.channel;
    if (workspace.channel)
        m_loop.unwatch(workspace.channel->watchKey());
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        *error = QStringLiteral("socketpair: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return nullptr;
    }
    const int buffer = kControlSendBufferBytes;
    if (::setsockopt(pair[0], SOL_SOCKET, SO_SNDBUFFORCE, &buffer, sizeof(buffer)) != 0)
        ::setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
    const timeval sendTimeout{5, 0};
    ::setsockopt(pair[0], SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, sizeof(sendTimeout));
    auto channel = std::make_shared<SupervisorChannel>(pair[0], workspace.id);
    if (workspace.egressGateway) {
        channel->setGatewayListenerHandler(
            [handler = workspace.onGatewayListener, id = workspace.id](int fd) {
                if (handler)
                    handler(id, fd);
                else
                    ::close(fd);
            });
    }
    std::weak_ptr<SupervisorChannel> weak = channel;
    channel->setWatchKey(m_loop.watch(pair[0], [this, weak] {
        if (auto strong = weak.lock(); strong && !strong->onReadable())
            m_loop.unwatch(strong->watchKey());
    }));

    auto request = wire::make<wire::SpawnRequest>(wire::Type::Spawn);
    request.uid = request.gid = workspace.uid;
    request.flags = (m_pidNamespace ? wire::kSpawnPidNamespace : 0) |
                    (m_privateProc ? wire::kSpawnPrivateProc : 0);
    request.minAbi = m_config.minLandlockAbi;
    request.limits = workspace.limits;
    request.portCount = static_cast<std::uint32_t>(workspace.ports.size());
    for (qsizetype i = 0; i < workspace.ports.size(); ++i)
        request.ports[i] = workspace.ports.at(i);
    request.network = (workspace.udp ? wire::kNetworkUdp : 0) |
                      (workspace.egressGateway ? wire::kNetworkEgressGateway : 0);
    wire::copyString(request.home, sizeof(request.home), workspace.home.toStdString());
    const bool sent = m_zygote.spawn(request, pair[1], workspace.homeFd, error);
    ::close(pair[1]);
    if (!sent) {
        m_loop.unwatch(channel->watchKey());
        return nullptr;
    }
    workspace.channel = channel;
    return channel;
}

std::shared_ptr<LightExecution>
LightWorkspaceHost::exec(const QString& id, const LightExecRequest& request, ApiError* error) {
    const auto workspace = find(id);
    if (!workspace) {
        *error = ApiError{404, QStringLiteral("workspace_not_found"),
                          QStringLiteral("no light workspace %1").arg(id)};
        return nullptr;
    }
    if (auto invalid = LightExecMessage::validateEnv(request.env)) {
        *error = *invalid;
        return nullptr;
    }
    bool narrow = false;
    if (request.allowedConnectPorts) {
        for (quint16 port : *request.allowedConnectPorts) {
            if (!workspace->ports.contains(port)) {
                *error = ApiError{409, QStringLiteral("light_policy_widened"),
                                  QStringLiteral("port %1 was not allowed when workspace %2 was "
                                                 "created; create a new workspace")
                                      .arg(port)
                                      .arg(id)};
                return nullptr;
            }
        }
        narrow = *request.allowedConnectPorts != workspace->ports;
    }
    const std::uint64_t execId = m_nextExecId++;
    const QMap<QString, QString> env =
        LightExecMessage::buildEnv(workspace->id, workspace->home, workspace->env, request.env);
    QByteArray message;
    if (auto invalid =
            LightExecMessage::encode(execId, request, env, workspace->home, narrow, &message)) {
        *error = *invalid;
        return nullptr;
    }
    const int fds[3] = {request.stdinFd >= 0 ? request.stdinFd : m_devNull,
                        request.stdoutFd >= 0 ? request.stdoutFd : m_devNull,
                        request.stderrFd >= 0 ? request.stderrFd : m_devNull};
    auto execution = std::make_shared<LightExecution>(execId, id);
    {
        std::lock_guard lock(workspace->mutex);
        if (workspace->deleting) {
            *error = ApiError{409, QStringLiteral("workspace_deleting"),
                              QStringLiteral("light workspace %1 is being deleted").arg(id)};
            return nullptr;
        }
        QString why;
        const auto channel = ensureChannel(*workspace, &why);
        if (!channel) {
            *error = ApiError{503, QStringLiteral("light_unavailable"), why};
            return nullptr;
        }
        if (!channel->sendExec(execution, message, fds, &why)) {
            LightExitStatus status;
            status.kind = channel->setupError().isEmpty() ? LightExitStatus::Kind::Lost
                                                          : LightExitStatus::Kind::SetupFailed;
            status.message = why;
            execution->finish(status);
        }
    }
    workspace->lastUsedMs = nowMs();
    if (request.timeoutMs > 0 && !execution->isFinished()) {
        std::weak_ptr<LightExecution> weak = execution;
        const std::uint64_t timer = m_loop.addTimer(request.timeoutMs, [weak] {
            if (auto strong = weak.lock())
                strong->requestKill(true);
        });
        execution->addFinishHook([this, timer] { m_loop.cancelTimer(timer); });
    }
    return execution;
}

std::optional<ApiError> LightWorkspaceHost::remove(const QString& id) {
    if (m_loop.isLoopThread())
        return ApiError{500, QStringLiteral("internal_error"),
                        QStringLiteral("light workspaces cannot be removed from the light event "
                                       "thread")};
    const auto workspace = find(id);
    if (!workspace)
        return ApiError{404, QStringLiteral("workspace_not_found"),
                        QStringLiteral("no light workspace %1").arg(id)};
    std::shared_ptr<SupervisorChannel> channel;
    {
        std::lock_guard lock(workspace->mutex);
        if (workspace->deleting)
            return ApiError{409, QStringLiteral("workspace_deleting"),
                            QStringLiteral("light workspace %1 is already being deleted").arg(id)};
        workspace->deleting = true;
        channel = workspace->channel;
    }
    QString problem;
    bool supervisorGone = true;
    if (channel) {
        channel->cancelAll();
        channel->waitUntilSettled(kSettleTimeoutMs);
        supervisorGone = channel->terminate(kTerminateTimeoutMs);
        m_loop.unwatch(channel->watchKey());
        channel->abandon(QStringLiteral("the workspace was deleted"));
    }
    // With a PID namespace the kernel has ended every process once the supervisor (its init) is
    // gone; the uid sweep then only confirms, in a background batch. Otherwise sweep here.
    const bool deferSweep = m_pidNamespace && supervisorGone && !m_config.synchronousSweep;
    if (!deferSweep) {
        const auto alive =
            UidSweeper::sweep({workspace->uid}, m_config.sweepPasses, m_config.sweepPauseMs);
        if (!alive.empty())
            problem = QStringLiteral("processes of uid %1 survived %2 kill passes")
                          .arg(workspace->uid)
                          .arg(m_config.sweepPasses);
    }
    QString homeError;
    if (!HomeDirectory::removeAs(m_rootFd, workspace->homeName, workspace->uid, &homeError))
        problem += (problem.isEmpty() ? QString() : QStringLiteral("; ")) +
                   QStringLiteral("home not removed: %1").arg(homeError);
    if (!problem.isEmpty())
        m_pool->quarantine(workspace->uid, problem);
    else if (deferSweep)
        m_reclaimer->reclaim(workspace->uid);
    else
        m_pool->release(workspace->uid);
    {
        std::lock_guard lock(m_mutex);
        m_workspaces.remove(id);
    }
    if (!problem.isEmpty())
        return ApiError{500, QStringLiteral("cleanup_failed"),
                        QStringLiteral("light workspace %1 deleted, but uid %2 is quarantined: %3")
                            .arg(id)
                            .arg(workspace->uid)
                            .arg(problem)};
    return std::nullopt;
}

QList<ApiError> LightWorkspaceHost::removeAll() {
    QList<ApiError> errors;
    for (const QString& id : ids()) {
        if (auto error = remove(id))
            errors << *error;
    }
    return errors;
}

LightWorkspaceInfo LightWorkspaceHost::describe(const Workspace& workspace) const {
    LightWorkspaceInfo info;
    info.id = workspace.id;
    info.uid = workspace.uid;
    info.home = workspace.home;
    info.limits = workspace.limits;
    info.allowedConnectPorts = workspace.ports;
    info.createdMs = workspace.createdMs;
    info.lastUsedMs = workspace.lastUsedMs;
    info.confinement = m_availability.expected;
    const auto channel = workspace.channel;
    if (channel && channel->state() == SupervisorChannel::State::Ready) {
        info.confinement = LightConfinement::fromFlags(channel->abi(), channel->confinement());
        info.supervisorRunning = true;
        info.runningExecutions = channel->runningCount();
    } else { // what the supervisor will install (it refuses to start otherwise)
        info.confinement.inetStream = !workspace.ports.isEmpty() || workspace.egressGateway;
        info.confinement.inetDatagram = workspace.udp;
        info.confinement.egressGateway = workspace.egressGateway;
    }
    info.confinement.tcpConnectPorts = workspace.ports;
    info.confinement.policyMode = workspace.policyMode;
    return info;
}

std::optional<LightWorkspaceInfo> LightWorkspaceHost::info(const QString& id) const {
    const auto workspace = find(id);
    if (!workspace)
        return std::nullopt;
    std::lock_guard lock(workspace->mutex);
    return describe(*workspace);
}

QStringList LightWorkspaceHost::ids() const {
    std::lock_guard lock(m_mutex);
    return m_workspaces.keys();
}

int LightWorkspaceHost::count() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_workspaces.size());
}

void LightWorkspaceHost::setCapacity(int capacity) {
    std::lock_guard lock(m_mutex);
    m_capacity = qMax(0, capacity);
}

int LightWorkspaceHost::openHome(const QString& id) const {
    const auto workspace = find(id);
    return workspace ? ::fcntl(workspace->homeFd, F_DUPFD_CLOEXEC, 0) : -1;
}

void LightWorkspaceHost::flushReclaims() {
    if (m_reclaimer)
        m_reclaimer->flush();
}

void LightWorkspaceHost::setQuarantineListener(UidReclaimer::QuarantineListener listener) {
    if (m_reclaimer)
        m_reclaimer->setQuarantineListener(std::move(listener));
}

} // namespace runbox::light
