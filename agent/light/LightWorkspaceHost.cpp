#include "agent/light/LightWorkspaceHost.h"

#include "agent/light/HomeDirectory.h"
#include "agent/light/LightExecMessage.h"
#include "agent/light/LightProbe.h"
#include "agent/light/LightWorkspaceEntry.h"
#include "agent/light/SupervisorChannel.h"

#include <QDateTime>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light {

using namespace hostdetail;

namespace {

QByteArray randomId() {
    unsigned char bytes[8];
    if (::getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes))
        return {};
    return QByteArray(reinterpret_cast<const char*>(bytes), sizeof(bytes)).toHex();
}

} // namespace

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
    zygote.environmentRoot = m_config.environmentRoot;
    zygote.maskedInterpreters = m_config.maskedInterpreters;
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

std::optional<Error> LightWorkspaceHost::create(const LightWorkspaceOptions& options, int count,
                                                LightCreateResult* result) {
    *result = LightCreateResult{};
    if (count < 1 || count > kMaxCreateCount)
        return Error{
            ErrorKind::InvalidArgument, QStringLiteral("invalid_count"),
            QStringLiteral("count must be a whole number from 1 to %1").arg(kMaxCreateCount)};
    if (auto error = LightExecMessage::validateEnv(options.env))
        return error;
    if (auto error = LightExecMessage::validatePorts(options.allowedConnectPorts,
                                                     m_config.controlPlanePorts))
        return error;
    std::string why;
    if (!options.limits.validate(&why))
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_limit"),
                     QString::fromStdString(why)};
    if (!m_pool || m_rootFd < 0)
        return Error{ErrorKind::Unavailable, QStringLiteral("light_unavailable"),
                     m_availability.reason};
    if (options.egressGateway && (!options.allowedConnectPorts.isEmpty() || options.allowUdp))
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_network_policy"),
                     QStringLiteral("under the domain allowlist a light workspace reaches the "
                                    "network only through the egress gateway, from a network "
                                    "namespace of its own: allowedConnectPorts and allowUdp "
                                    "would reach nothing there")};
    if (options.egressGateway && !m_privateProc)
        return Error{ErrorKind::Unavailable, QStringLiteral("light_egress_unavailable"),
                     QStringLiteral("the egress gateway needs a network namespace per light "
                                    "workspace, which needs a root agent")};
    if (!options.environmentPrefix.isEmpty() && !supportsEnvironments())
        return Error{ErrorKind::Unavailable, QStringLiteral("light_environment_unavailable"),
                     QStringLiteral("a science environment in a light workspace needs a mount "
                                    "namespace per workspace (to bind it at /opt/science-env and "
                                    "mask the host interpreters), which needs a root agent")};

    // The prefix as the agent sees it; each supervisor checks it binds this very directory.
    int environmentFd = -1;
    if (!options.environmentPrefix.isEmpty()) {
        environmentFd = ::open(QFile::encodeName(options.environmentPrefix).constData(),
                               O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (environmentFd < 0)
            return Error{ErrorKind::Unavailable, QStringLiteral("environment_unavailable"),
                         QStringLiteral("cannot open the environment's prefix: %1")
                             .arg(QString::fromLocal8Bit(std::strerror(errno)))};
    }
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
        if (environmentFd >= 0) {
            workspace->environmentPrefix = options.environmentPrefix;
            workspace->environmentFd = ::fcntl(environmentFd, F_DUPFD_CLOEXEC, 0);
        }
        workspace->createdMs = nowMs();
        workspace->lastUsedMs = workspace->createdMs;
        made << workspace;
    }
    if (environmentFd >= 0)
        ::close(environmentFd);
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
        return Error{ErrorKind::Internal, QStringLiteral("workspace_create_failed"), failure};
    return std::nullopt;
}

std::shared_ptr<LightWorkspaceHost::Workspace> LightWorkspaceHost::find(const QString& id) const {
    std::lock_guard lock(m_mutex);
    return m_workspaces.value(id);
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

} // namespace runbox::light
