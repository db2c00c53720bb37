#include "agent/light/ZygoteProcess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace runbox::light {

namespace {

constexpr int kZygoteFd = 3;
constexpr unsigned kCloseRangeCloexec = 1u << 2;

/// In the forked child (async-signal-safe syscalls only): keep what the light tier uses of a
/// non-root agent's capabilities across execve (LightPrivileges.h, docs/light-workspaces.md) by
/// making them inheritable and ambient: CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL, and
/// CAP_SYS_ADMIN for the PID and mount namespaces when the agent holds it. Every supervisor
/// clears them all after its uid switch (Supervisor.cpp).
void raiseAmbientCapabilities() {
    if (::geteuid() == 0)
        return;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0)
        return;
    const int wanted[] = {CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL, CAP_SYS_ADMIN};
    for (int cap : wanted)
        data[cap / 32].inheritable |= data[cap / 32].permitted & (1u << (cap % 32));
    ::syscall(SYS_capset, &header, data);
    for (int cap : wanted)
        ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
}

} // namespace

ZygoteProcess::~ZygoteProcess() {
    stop();
}

bool ZygoteProcess::start(const ZygoteOptions& options, QString* error) {
    std::lock_guard lock(m_mutex);
    m_options = options;
    return startLocked(error);
}

bool ZygoteProcess::startLocked(QString* error) {
    stopLocked();
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        *error = QStringLiteral("socketpair: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    std::vector<std::string> args = {m_options.binary.toStdString(),
                                     "--zygote",
                                     "--fd",
                                     std::to_string(kZygoteFd),
                                     "--parent",
                                     std::to_string(::getpid()),
                                     "--uid-min",
                                     std::to_string(m_options.uidMin),
                                     "--uid-max",
                                     std::to_string(m_options.uidMax),
                                     "--root",
                                     m_options.root.toStdString()};
    if (m_options.pidNamespace)
        args.emplace_back("--pid-namespace");
    if (m_options.privateProc)
        args.emplace_back("--private-proc");
    for (const QString& path : m_options.extraReadExecute) {
        args.emplace_back("--read-execute");
        args.push_back(path.toStdString());
    }
    if (!m_options.environmentRoot.isEmpty()) {
        args.emplace_back("--environment-root");
        args.push_back(m_options.environmentRoot.toStdString());
    }
    for (const QString& path : m_options.maskedInterpreters) {
        args.emplace_back("--mask");
        args.push_back(path.toStdString());
    }
    std::vector<char*> argv;
    for (std::string& arg : args)
        argv.push_back(arg.data());
    argv.push_back(nullptr);
    char* envp[] = {nullptr};
    const int childEnd = pair[1];

    const pid_t pid = ::fork();
    if (pid == 0) {
        // Async-signal-safe only: the agent may be multi-threaded.
        if (::dup2(childEnd, kZygoteFd) < 0)
            ::_exit(126);
        ::syscall(SYS_close_range, kZygoteFd + 1, ~0u, kCloseRangeCloexec);
        raiseAmbientCapabilities();
        ::execve(argv[0], argv.data(), envp);
        ::_exit(127);
    }
    ::close(pair[1]);
    if (pid < 0) {
        ::close(pair[0]);
        *error = QStringLiteral("fork: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    m_socket = pair[0];
    m_pid = pid;
    return true;
}

bool ZygoteProcess::spawn(const wire::SpawnRequest& request, int controlFd, int homeFd,
                          int environmentFd, QString* error) {
    const int fds[3] = {controlFd, homeFd, environmentFd};
    const int fdCount = environmentFd >= 0 ? 3 : 2;
    std::lock_guard lock(m_mutex);
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (m_socket >= 0 && wire::sendMessage(m_socket, &request, sizeof(request), fds, fdCount))
            return true;
        const int err = errno;
        if (attempt == 0 &&
            (m_socket < 0 || err == EPIPE || err == ECONNRESET || err == ENOTCONN)) {
            if (!startLocked(error))
                return false;
            continue;
        }
        *error = QStringLiteral("cannot reach the light zygote: %1")
                     .arg(QString::fromLocal8Bit(std::strerror(err)));
        return false;
    }
    return false;
}

void ZygoteProcess::stop() {
    std::lock_guard lock(m_mutex);
    stopLocked();
}

void ZygoteProcess::stopLocked() {
    if (m_socket >= 0)
        ::close(m_socket);
    m_socket = -1;
    if (m_pid > 0) {
        // EOF makes it exit at once; reap it (bounded: SIGKILL after ~1 s).
        for (int i = 0; i < 100; ++i) {
            if (::waitpid(m_pid, nullptr, WNOHANG) != 0)
                break;
            if (i == 99) {
                ::kill(m_pid, SIGKILL);
                ::waitpid(m_pid, nullptr, 0);
            }
            ::usleep(10000);
        }
    }
    m_pid = -1;
}

} // namespace runbox::light
