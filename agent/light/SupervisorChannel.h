#pragma once

#include "agent/light/LightExecution.h"
#include "agent/light/helper/SupervisorProtocol.h"

#include <QString>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace runbox::light {

/// The agent's end of one supervisor's control socket: sends Exec/Kill, and (on the light event
/// thread) turns Hello / Started / ExecFailed / Exited / SetupFailed / EOF into state changes and
/// finished executions. Owns the socket and the supervisor's pidfd. Thread-safe.
class SupervisorChannel final : public std::enable_shared_from_this<SupervisorChannel> {
public:
    enum class State { Starting, Ready, Closed };

    /// Takes ownership of @p socketFd (blocking SOCK_SEQPACKET; reads use MSG_DONTWAIT).
    SupervisorChannel(int socketFd, QString workspaceId);
    ~SupervisorChannel();
    SupervisorChannel(const SupervisorChannel&) = delete;
    SupervisorChannel& operator=(const SupervisorChannel&) = delete;

    int socketFd() const { return m_socket; }
    /// Called on the light event thread with the egress gateway's listening socket of the
    /// supervisor's private network (owned by the callee), when its Hello brings one. Set before
    /// the spawn is sent.
    void setGatewayListenerHandler(std::function<void(int listenerFd)> handler) {
        m_gatewayHandler = std::move(handler);
    }
    void setWatchKey(std::uint64_t key) { m_watchKey = key; }
    std::uint64_t watchKey() const { return m_watchKey; }

    /// Registers @p execution and sends its Exec message with @p fds (stdin, stdout, stderr).
    /// False with @p error when the supervisor is gone or the send failed (nothing registered).
    bool sendExec(const std::shared_ptr<LightExecution>& execution, const QByteArray& message,
                  const int* fds, QString* error);
    /// Asks the supervisor to SIGKILL the tree of exec @p execId.
    void requestKill(std::uint64_t execId);
    /// Asks the supervisor to SIGKILL every process of the workspace outside a running exec's
    /// tree (wire::kKillBackground); it is done before the supervisor reads its next message.
    void requestKillBackground() { requestKill(wire::kKillBackground); }

    State state() const;
    /// Waits up to @p timeoutMs for the state to leave Starting; true when it did.
    bool waitUntilSettled(int timeoutMs) const;
    int abi() const;
    std::uint32_t confinement() const;
    int hostPid() const;
    QString setupError() const;
    int runningCount() const;

    /// Marks every running exec as cancelled (the workspace is being deleted).
    void cancelAll();
    /// Ends the channel now: every exec still pending finishes as Lost with @p message.
    void abandon(const QString& message);
    /// SIGKILLs the supervisor through its pidfd (with a PID namespace: every process of the
    /// workspace) and waits up to @p timeoutMs for it to be gone. True when confirmed gone (or
    /// never started); false when it could not be confirmed.
    bool terminate(int timeoutMs);

    /// Event-thread entry: drains the socket. False once the channel is closed (unwatch it).
    bool onReadable();

private:
    void handleMessage(const char* data, std::size_t size, int* fds, int fdCount);
    void closeWith(LightExitStatus::Kind kind, const QString& message);
    std::shared_ptr<LightExecution> take(std::uint64_t execId);
    std::shared_ptr<LightExecution> find(std::uint64_t execId);

    const int m_socket;
    const QString m_workspaceId;
    std::uint64_t m_watchKey = 0;
    std::function<void(int)> m_gatewayHandler;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_settled;
    State m_state = State::Starting;
    int m_pidfd = -1;
    int m_hostPid = 0;
    int m_abi = 0;
    std::uint32_t m_confinement = 0;
    QString m_setupError;
    std::unordered_map<std::uint64_t, std::shared_ptr<LightExecution>> m_executions;
};

} // namespace runbox::light
