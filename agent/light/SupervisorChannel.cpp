#include "agent/light/SupervisorChannel.h"

#include "agent/light/helper/SupervisorProtocol.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <vector>

namespace runbox::light {

namespace {

template <typename T> bool readAs(const char* data, std::size_t size, T* out) {
    if (size != sizeof(T))
        return false;
    std::memcpy(out, data, sizeof(T));
    return true;
}

LightExitStatus statusFromWait(int waitStatus) {
    LightExitStatus status;
    if (WIFEXITED(waitStatus)) {
        status.kind = LightExitStatus::Kind::Exited;
        status.exitCode = WEXITSTATUS(waitStatus);
    } else if (WIFSIGNALED(waitStatus)) {
        status.kind = LightExitStatus::Kind::Signaled;
        status.signal = WTERMSIG(waitStatus);
    }
    return status;
}

} // namespace

SupervisorChannel::SupervisorChannel(int socketFd, QString workspaceId)
    : m_socket(socketFd), m_workspaceId(std::move(workspaceId)) {}

SupervisorChannel::~SupervisorChannel() {
    ::close(m_socket);
    if (m_pidfd >= 0)
        ::close(m_pidfd);
}

bool SupervisorChannel::sendExec(const std::shared_ptr<LightExecution>& execution,
                                 const QByteArray& message, const int* fds, QString* error) {
    {
        std::lock_guard lock(m_mutex);
        if (m_state == State::Closed) {
            *error = m_setupError.isEmpty() ? QStringLiteral("the workspace supervisor is gone")
                                            : m_setupError;
            return false;
        }
        m_executions.emplace(execution->id(), execution);
    }
    execution->attach(shared_from_this());
    if (!wire::sendMessage(m_socket, message.constData(), static_cast<std::size_t>(message.size()),
                           fds, 3)) {
        *error = QStringLiteral("cannot reach the workspace supervisor: %1")
                     .arg(QString::fromLocal8Bit(std::strerror(errno)));
        take(execution->id());
        return false;
    }
    return true;
}

void SupervisorChannel::requestKill(std::uint64_t execId) {
    auto kill = wire::make<wire::Kill>(wire::Type::Kill, execId);
    wire::sendMessage(m_socket, &kill, sizeof(kill));
}

SupervisorChannel::State SupervisorChannel::state() const {
    std::lock_guard lock(m_mutex);
    return m_state;
}

bool SupervisorChannel::waitUntilSettled(int timeoutMs) const {
    std::unique_lock lock(m_mutex);
    return m_settled.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                              [this] { return m_state != State::Starting; });
}

int SupervisorChannel::abi() const {
    std::lock_guard lock(m_mutex);
    return m_abi;
}

std::uint32_t SupervisorChannel::confinement() const {
    std::lock_guard lock(m_mutex);
    return m_confinement;
}

int SupervisorChannel::hostPid() const {
    std::lock_guard lock(m_mutex);
    return m_hostPid;
}

QString SupervisorChannel::setupError() const {
    std::lock_guard lock(m_mutex);
    return m_setupError;
}

int SupervisorChannel::runningCount() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_executions.size());
}

void SupervisorChannel::cancelAll() {
    std::vector<std::shared_ptr<LightExecution>> running;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, execution] : m_executions)
            running.push_back(execution);
    }
    for (const auto& execution : running)
        execution->markCancelled();
}

void SupervisorChannel::abandon(const QString& message) {
    closeWith(LightExitStatus::Kind::Lost, message);
}

bool SupervisorChannel::terminate(int timeoutMs) {
    int pidfd;
    {
        std::lock_guard lock(m_mutex);
        pidfd = m_pidfd;
    }
    if (pidfd < 0) {
        // Never confirmed running: closing our end makes a supervisor still starting exit (and
        // kill what it started) as soon as it reads EOF; there is nothing else to wait for.
        ::shutdown(m_socket, SHUT_RDWR);
        return state() != State::Ready;
    }
    ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    pollfd gone{pidfd, POLLIN, 0};
    int ready;
    do {
        ready = ::poll(&gone, 1, timeoutMs);
    } while (ready < 0 && errno == EINTR);
    return ready == 1;
}

bool SupervisorChannel::onReadable() {
    char buffer[1024];
    bool resetSeen = false;
    for (;;) {
        int fds[wire::kMaxFds];
        int fdCount = 0;
        // MSG_DONTWAIT: the socket stays blocking for the senders.
        const long got =
            wire::receiveMessage(m_socket, buffer, sizeof(buffer), fds, &fdCount, MSG_DONTWAIT);
        if (got > 0) {
            handleMessage(buffer, static_cast<std::size_t>(got), fds, fdCount);
            if (state() == State::Closed)
                return false;
            continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EINTR || errno == EMSGSIZE))
            return true;
        // A supervisor (or the zygote) that closes its end with our Exec still unread in its
        // queue leaves ECONNRESET, reported once, before the messages it sent (its SetupFailed
        // with the reason): read on (unix(7) close with unread data, sock_error clears it).
        if (got < 0 && errno == ECONNRESET && !resetSeen) {
            resetSeen = true;
            continue;
        }
        closeWith(LightExitStatus::Kind::Lost, QStringLiteral("the workspace supervisor ended"));
        return false;
    }
}

void SupervisorChannel::handleMessage(const char* data, std::size_t size, int* fds, int fdCount) {
    wire::Header header;
    if (!wire::readHeader(data, size, fds, fdCount, &header))
        return;
    const auto type = static_cast<wire::Type>(header.type);
    if (type == wire::Type::Hello) {
        wire::Hello hello;
        const bool withGateway =
            readAs(data, size, &hello) && (hello.confinement & wire::kHasEgressGateway) != 0;
        if (readAs(data, size, &hello) && fdCount == (withGateway ? 2 : 1)) {
            if (withGateway) {
                // Handed on before Ready: no exec of this supervisor has run yet, and a
                // connection made before the agent adopts the socket waits in its backlog.
                if (m_gatewayHandler)
                    m_gatewayHandler(fds[1]);
                else
                    ::close(fds[1]);
            }
            {
                std::lock_guard lock(m_mutex);
                m_pidfd = fds[0];
                m_abi = hello.abi;
                m_confinement = hello.confinement;
                m_hostPid = hello.hostPid;
                if (m_state == State::Starting)
                    m_state = State::Ready;
            }
            m_settled.notify_all();
            return;
        }
    }
    for (int i = 0; i < fdCount; ++i)
        ::close(fds[i]);
    if (type == wire::Type::SetupFailed) {
        wire::SetupFailed failed;
        QString message = QStringLiteral("light workspace setup failed");
        if (readAs(data, size, &failed)) {
            failed.message[sizeof(failed.message) - 1] = '\0';
            message = QStringLiteral("light workspace setup failed: %1")
                          .arg(QString::fromUtf8(failed.message));
        }
        closeWith(LightExitStatus::Kind::SetupFailed, message);
    } else if (type == wire::Type::Started) {
        wire::Started started;
        if (readAs(data, size, &started)) {
            if (auto execution = find(header.execId))
                execution->markStarted(started.pid);
        }
    } else if (type == wire::Type::ExecFailed) {
        wire::ExecFailed failed;
        if (readAs(data, size, &failed)) {
            failed.stage[sizeof(failed.stage) - 1] = '\0';
            if (auto execution = take(header.execId)) {
                LightExitStatus status;
                status.kind = LightExitStatus::Kind::SpawnFailed;
                status.errorNumber = failed.errorNumber;
                status.message = QStringLiteral("%1: %2").arg(
                    QString::fromUtf8(failed.stage),
                    QString::fromLocal8Bit(std::strerror(failed.errorNumber)));
                execution->finish(status);
            }
        }
    } else if (type == wire::Type::Exited) {
        wire::Exited exited;
        if (readAs(data, size, &exited)) {
            if (auto execution = take(header.execId)) {
                LightExitStatus status = statusFromWait(exited.waitStatus);
                if (exited.flags & wire::kExitedShepherdLost) {
                    status.kind = LightExitStatus::Kind::Lost;
                    status.message = QStringLiteral("the exec's tracking process was killed "
                                                    "from inside the workspace");
                }
                execution->finish(status);
            }
        }
    }
}

void SupervisorChannel::closeWith(LightExitStatus::Kind kind, const QString& message) {
    std::unordered_map<std::uint64_t, std::shared_ptr<LightExecution>> pending;
    {
        std::lock_guard lock(m_mutex);
        if (m_state == State::Closed)
            return;
        const bool neverReady = m_state == State::Starting;
        m_state = State::Closed;
        if (kind == LightExitStatus::Kind::SetupFailed || neverReady)
            m_setupError = message;
        pending.swap(m_executions);
    }
    m_settled.notify_all();
    for (auto& [id, execution] : pending) {
        LightExitStatus status;
        status.kind = kind;
        status.message = message;
        execution->finish(status);
    }
}

std::shared_ptr<LightExecution> SupervisorChannel::take(std::uint64_t execId) {
    std::lock_guard lock(m_mutex);
    const auto it = m_executions.find(execId);
    if (it == m_executions.end())
        return nullptr;
    auto execution = it->second;
    m_executions.erase(it);
    return execution;
}

std::shared_ptr<LightExecution> SupervisorChannel::find(std::uint64_t execId) {
    std::lock_guard lock(m_mutex);
    const auto it = m_executions.find(execId);
    return it == m_executions.end() ? nullptr : it->second;
}

} // namespace runbox::light
