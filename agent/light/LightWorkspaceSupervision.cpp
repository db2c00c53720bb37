// LightWorkspaceHost: the supervisors of its workspaces, warmed up ahead of use, and exec.
#include "agent/light/LightExecMessage.h"
#include "agent/light/LightWorkspaceEntry.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light {

using namespace hostdetail;

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
    if (workspace.environmentFd >= 0) {
        request.flags |= wire::kSpawnEnvironment;
        wire::copyString(request.environment, sizeof(request.environment),
                         QFile::encodeName(workspace.environmentPrefix).toStdString());
    }
    const bool sent =
        m_zygote.spawn(request, pair[1], workspace.homeFd, workspace.environmentFd, error);
    ::close(pair[1]);
    if (!sent) {
        m_loop.unwatch(channel->watchKey());
        return nullptr;
    }
    workspace.channel = channel;
    return channel;
}

bool LightWorkspaceHost::hasProcesses(const QString& id) const {
    const auto workspace = find(id);
    if (!workspace)
        return false;
    std::shared_ptr<SupervisorChannel> channel;
    {
        std::lock_guard lock(workspace->mutex);
        channel = workspace->channel;
    }
    if (!channel || channel->state() != SupervisorChannel::State::Ready || channel->hostPid() <= 0)
        return false;
    // Single-threaded: its main thread's children are all of them (every process of the
    // workspace descends from it, a subreaper).
    QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(channel->hostPid()));
    return children.open(QIODevice::ReadOnly) && !children.readAll().trimmed().isEmpty();
}

bool LightWorkspaceHost::killBackground(const QString& id) {
    const auto workspace = find(id);
    if (!workspace)
        return false;
    std::lock_guard lock(workspace->mutex);
    const auto& channel = workspace->channel;
    if (workspace->deleting || !channel || channel->state() != SupervisorChannel::State::Ready)
        return false;
    channel->requestKillBackground();
    return true;
}

std::shared_ptr<LightExecution>
LightWorkspaceHost::exec(const QString& id, const LightExecRequest& request, Error* error) {
    const auto workspace = find(id);
    if (!workspace) {
        *error = Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
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
                *error = Error{ErrorKind::Conflict, QStringLiteral("light_policy_widened"),
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
            *error = Error{ErrorKind::Conflict, QStringLiteral("workspace_deleting"),
                           QStringLiteral("light workspace %1 is being deleted").arg(id)};
            return nullptr;
        }
        QString why;
        const auto channel = ensureChannel(*workspace, &why);
        if (!channel) {
            *error = Error{ErrorKind::Unavailable, QStringLiteral("light_unavailable"), why};
            return nullptr;
        }
        if (!channel->sendExec(execution, message, fds, &why)) {
            // A supervisor that failed its setup closes its socket right after SetupFailed: a
            // send that meets the closed socket first waits (bounded, only on this failure) for
            // that message to be read, so the caller gets the reason rather than EPIPE.
            channel->waitUntilSettled(kSetupReasonWaitMs);
            const QString setup = channel->setupError();
            LightExitStatus status;
            status.kind =
                setup.isEmpty() ? LightExitStatus::Kind::Lost : LightExitStatus::Kind::SetupFailed;
            status.message = setup.isEmpty() ? why : setup;
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

} // namespace runbox::light
