#include "agent/execution/strong/SandboxSpawn.h"

#include <QFile>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace runbox::execution {

namespace {

constexpr int kStdoutPipeBytes = 256 * 1024;
constexpr int kHighFdBase = 64; ///< sources are moved above the targets before dup2

/// The descriptor of one FdBinding (O_CLOEXEC; moved to its number in the child): the file opened
/// with its flags, or a sealed memfd(2) holding its data, read from offset 0.
int openBinding(const sandbox::FdBinding& binding) {
    if (!binding.isData) {
        const int flags = binding.openFlags ? binding.openFlags : O_RDONLY;
        return ::open(QFile::encodeName(binding.path).constData(), flags | O_CLOEXEC);
    }
    const int fd = ::memfd_create("runbox-launch-data", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    const QByteArray& data = binding.data;
    if (::write(fd, data.constData(), size_t(data.size())) != ssize_t(data.size()) ||
        ::lseek(fd, 0, SEEK_SET) != 0 ||
        ::fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// An argv/envp array whose strings live as long as the object.
struct CStringArray {
    std::vector<QByteArray> storage;
    std::vector<char*> pointers;
    void add(const QByteArray& s) { storage.push_back(s); }
    char** finish() {
        for (QByteArray& s : storage)
            pointers.push_back(s.data());
        pointers.push_back(nullptr);
        return pointers.data();
    }
};

} // namespace

bool spawnSandbox(const sandbox::SandboxLaunch& launch, quint64 maxProcesses,
                  const QString& guardPath, SpawnedSandbox* spawned, QString* error) {
    CStringArray argv, envp;
    const bool guarded = !guardPath.isEmpty();
    if (guarded)
        argv.add(QFile::encodeName(guardPath));
    argv.add(QFile::encodeName(launch.program));
    for (const QString& a : launch.arguments)
        argv.add(a.toUtf8());
    for (auto it = launch.environment.begin(); it != launch.environment.end(); ++it)
        envp.add((it.key() + '=' + it.value()).toUtf8());
    const QByteArray program = QFile::encodeName(guarded ? guardPath : launch.program);
    const QByteArray cwd = QFile::encodeName(launch.workingDirectory);

    // (source fd, target fd) pairs; sources are first moved to >= kHighFdBase.
    std::vector<std::pair<int, int>> moves;
    std::vector<int> toCloseInParent;
    auto fail = [&](const QString& what) {
        *error = QStringLiteral("%1: %2").arg(what, QString::fromLocal8Bit(strerror(errno)));
        for (auto& m : moves)
            ::close(m.first);
        for (int fd : toCloseInParent)
            ::close(fd);
        return false;
    };
    auto addMove = [&](int fd, int target) {
        const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kHighFdBase);
        ::close(fd);
        if (high < 0)
            return false;
        moves.push_back({high, target});
        return true;
    };

    int in[2], out[2], err[2], status[2], setup[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0)
        return fail(QStringLiteral("pipe"));
    toCloseInParent.push_back(in[1]);
    if (!addMove(in[0], 0) || ::pipe2(out, O_CLOEXEC) != 0)
        return fail(QStringLiteral("pipe"));
    toCloseInParent.push_back(out[0]);
    // A larger stdout pipe (64 KiB by default) lets a fast writer run on while the agent is
    // busy elsewhere; failure (pipe-user-pages-soft reached, pipe(7)) only costs throughput.
    ::fcntl(out[0], F_SETPIPE_SZ, kStdoutPipeBytes);
    if (!addMove(out[1], 1) || ::pipe2(err, O_CLOEXEC) != 0)
        return fail(QStringLiteral("pipe"));
    toCloseInParent.push_back(err[0]);
    if (!addMove(err[1], 2) || ::pipe2(status, O_CLOEXEC) != 0)
        return fail(QStringLiteral("pipe"));
    toCloseInParent.push_back(status[0]);
    if (!addMove(status[1], launch.jsonStatusFd))
        return fail(QStringLiteral("pipe"));
    if (launch.setupStatusFd >= 0) {
        if (::pipe2(setup, O_CLOEXEC) != 0)
            return fail(QStringLiteral("pipe"));
        toCloseInParent.push_back(setup[0]);
        if (!addMove(setup[1], launch.setupStatusFd))
            return fail(QStringLiteral("pipe"));
    }
    for (const sandbox::FdBinding& b : launch.fds) {
        const int fd = openBinding(b);
        if (fd < 0 || !addMove(fd, b.childFd))
            return fail(b.isData ? QStringLiteral("cannot make the data of fd %1").arg(b.childFd)
                                 : QStringLiteral("cannot open %1").arg(b.path));
    }
    sandbox::SandboxUser::Prepared user;
    if (launch.user && !launch.user->prepare(&user)) {
        errno = EINVAL;
        return fail(QStringLiteral("sandbox user %1 (with %2 groups) cannot be used")
                        .arg(launch.user->uid)
                        .arg(launch.user->groups.size()));
    }
    const bool dropUser = launch.user.has_value();
    const unsigned closeFrom = [&] {
        int highest = 2;
        for (auto& m : moves)
            highest = std::max(highest, m.second);
        return unsigned(highest + 1);
    }();

    char** argvp = argv.finish();
    char** envpp = envp.finish();
    const rlimit nproc{rlim_t(maxProcesses), rlim_t(maxProcesses)};
    const rlimit fsize{rlim_t(launch.maxFileBytes), rlim_t(launch.maxFileBytes)};
    const int cgroupProcsFd = launch.cgroupProcsFd;
    volatile const int deathSignal = guarded ? SIGTERM : SIGKILL;
    const pid_t agentPid = ::getpid();
    volatile int childErrno = 0;

    // vfork: the child only makes async-signal-safe system calls and then execs or _exits.
    const pid_t pid = vfork();
    if (pid == 0) {
        // The launch dies with the agent (the signal survives execve of a program that is not
        // set-user-ID); if the agent died before this prctl, nothing is started. The agent
        // spawns from its main thread, whose exit is what PR_SET_PDEATHSIG watches.
        if (::prctl(PR_SET_PDEATHSIG, deathSignal) != 0 || ::getppid() != agentPid) {
            childErrno = ::getppid() != agentPid ? ESRCH : errno;
            _exit(127);
        }
        ::setpgid(0, 0);
        // Into the execution's cgroup first, so nothing it starts is ever outside it.
        if (cgroupProcsFd >= 0 && ::write(cgroupProcsFd, "0", 1) != 1) {
            childErrno = errno;
            _exit(127);
        }
        if (maxProcesses > 0)
            ::setrlimit(RLIMIT_NPROC, &nproc);
        if (fsize.rlim_cur > 0)
            ::setrlimit(RLIMIT_FSIZE, &fsize);
        // The cwd first, while the state dir can still be entered (it identifies our launches
        // for SandboxSweep); then the sandbox user, and the parent-death signal again, since a
        // credential change clears it (prctl(2)).
        if (!cwd.isEmpty() && ::chdir(cwd.constData()) != 0) {
            childErrno = errno;
            _exit(127);
        }
        if (dropUser) {
            if (const int e = sandbox::SandboxUser::dropInChild(user); e != 0) {
                childErrno = e;
                _exit(127);
            }
            if (::prctl(PR_SET_PDEATHSIG, deathSignal) != 0 || ::getppid() != agentPid) {
                childErrno = ::getppid() != agentPid ? ESRCH : errno;
                _exit(127);
            }
        }
        for (auto& m : moves)
            if (::dup2(m.first, m.second) < 0) {
                childErrno = errno;
                _exit(127);
            }
        ::close_range(closeFrom, ~0U, 0);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int s = 1; s < NSIG; ++s)
            ::signal(s, SIG_DFL);
        ::execve(program.constData(), argvp, envpp);
        childErrno = errno;
        _exit(127);
    }
    for (auto& m : moves)
        ::close(m.first);
    moves.clear();
    if (pid < 0 || childErrno != 0) {
        if (pid > 0)
            ::waitpid(pid, nullptr, 0);
        errno = pid < 0 ? errno : childErrno;
        return fail(QStringLiteral("cannot start %1").arg(launch.program));
    }
    *spawned = SpawnedSandbox{pid, in[1], out[0], err[0], status[0], setup[0]};
    return true;
}

} // namespace runbox::execution
