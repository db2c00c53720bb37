#pragma once

#include "agent/sandbox/SandboxLaunch.h"

#include <QString>

#include <sys/types.h>

namespace runbox::execution {

/// The parent's ends of a started sandbox's pipes (O_CLOEXEC, blocking; -1 where none).
struct SpawnedSandbox {
    pid_t pid = -1;
    int stdinFd = -1;       ///< write end of the child's fd 0
    int stdoutFd = -1;      ///< read end of fd 1 (F_SETPIPE_SZ 256 KiB where allowed)
    int stderrFd = -1;      ///< read end of fd 2
    int statusFd = -1;      ///< read end of SandboxLaunch::jsonStatusFd
    int setupStatusFd = -1; ///< read end of SandboxLaunch::setupStatusFd, when it has one
};

/// Starts @p launch: the descriptor plan (pipes for 0/1/2, the json status fd, the set-up status
/// fd, every FdBinding opened or made a sealed memfd, all moved above the targets before dup2),
/// then a vfork child that sets PR_SET_PDEATHSIG, its own process group, joins the launch's
/// cgroup (SandboxLaunch::cgroupProcsFd), sets RLIMIT_NPROC @p maxProcesses (0 = inherit) and
/// RLIMIT_FSIZE (SandboxLaunch::maxFileBytes), the cwd, the sandbox user (SandboxUser::dropInChild)
/// and the death signal again, installs the descriptors, closes every other one (close_range(2)),
/// resets the signal mask and dispositions and execs: under @p guardPath
/// (runbox-sandbox-guard, death signal SIGTERM) when given, else bwrap itself (SIGKILL). The
/// child makes only async-signal-safe calls and gives up if the agent is already gone
/// (prctl(2)). Returns false with @p error, nothing left open, when it could not start.
bool spawnSandbox(const sandbox::SandboxLaunch& launch, quint64 maxProcesses,
                  const QString& guardPath, SpawnedSandbox* spawned, QString* error);

} // namespace runbox::execution
