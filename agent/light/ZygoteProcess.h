#pragma once

#include "agent/light/helper/SupervisorProtocol.h"

#include <QString>
#include <QStringList>

#include <mutex>
#include <sys/types.h>

namespace runbox::light {

/// How to start the zygote (see Zygote).
struct ZygoteOptions {
    QString binary; ///< path of runbox-light-supervisor
    QString root;   ///< workspace root (homes are its direct children)
    uid_t uidMin = 0, uidMax = 0;
    bool pidNamespace = false;
    bool privateProc = false;
    QStringList extraReadExecute;
    QString environmentRoot;        ///< `--environment-root` ("" = no environment accepted)
    QStringList maskedInterpreters; ///< `--mask`, each
};

/// The agent's handle on the zygote process: starts it (fork + execve with its socketpair end as
/// fd 3; when not root, the capabilities it needs are raised as ambient so they survive execve)
/// and sends it Spawn requests. Thread-safe; restarts the zygote once if it has died.
class ZygoteProcess final {
public:
    ZygoteProcess() = default;
    ~ZygoteProcess();
    ZygoteProcess(const ZygoteProcess&) = delete;
    ZygoteProcess& operator=(const ZygoteProcess&) = delete;

    bool start(const ZygoteOptions& options, QString* error);
    /// Sends @p request with the supervisor's socket end, home fd and, when @p environmentFd is
    /// not −1 (the request has wire::kSpawnEnvironment), the environment's prefix (all stay
    /// owned by the caller). False with @p error when the zygote cannot be reached.
    bool spawn(const wire::SpawnRequest& request, int controlFd, int homeFd, int environmentFd,
               QString* error);
    /// Closes the socket (the zygote exits on EOF) and reaps it.
    void stop();
    pid_t pid() const { return m_pid; }

private:
    bool startLocked(QString* error);
    void stopLocked();

    std::mutex m_mutex;
    ZygoteOptions m_options;
    int m_socket = -1;
    pid_t m_pid = -1;
};

} // namespace runbox::light
