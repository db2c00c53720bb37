#pragma once

#include "agent/light/helper/Rlimits.h"

#include <cstdint>
#include <sys/types.h>

namespace runbox::light {

/// Everything one exec needs, prepared by the supervisor before it forks the shepherd.
struct ShepherdJob {
    std::uint64_t execId = 0;
    std::uint32_t flags = 0;        ///< wire::kExec* flags
    int controlFd = -1;             ///< to the agent (Started / ExecFailed / Exited)
    int stdioFds[3] = {-1, -1, -1}; ///< become 0, 1, 2 of the command
    int nestedRulesetFd = -1;       ///< optional extra Landlock layer (network narrowing)
    char* const* argv = nullptr;
    char* const* envp = nullptr;
    const char* const* candidates = nullptr; ///< program paths to try, in order (PATH search)
    const char* cwd = nullptr;
    Rlimits limits; ///< RLIMIT_CPU is set here, per exec (the rest is inherited)
    /// RLIMIT_NPROC of the command (wire::ExecRequest::maxProcs), set in the command before
    /// execve when below the workspace's; 0 = the workspace's. The shepherd keeps the
    /// workspace's, so starting the command is never refused by it.
    std::uint64_t maxProcs = 0;
};

/// The per-exec tracking process ("shepherd"), forked by the supervisor for each exec. It is a
/// child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every orphan of the exec's tree — setsid'd
/// or double-forked included — reparents to it, which is what lets a timeout kill the whole tree
/// and nothing else of the workspace. It starts the command with clone(CLONE_VM|CLONE_VFORK) (the
/// child only makes syscalls before execve: setsid, dup2, signal reset, chdir, optional nested
/// Landlock layer, close-on-exec of every other fd), reports Started or ExecFailed, reaps
/// everything that reparents to it, and reports the leader's wait status in Exited. When the
/// leader ends, the rest of its tree is left to the workspace (background processes) unless
/// kExecKillTreeOnExit asks to kill it first.
class Shepherd final {
public:
    /// Runs in the freshly forked shepherd; never returns.
    [[noreturn]] static void run(const ShepherdJob& job);
};

} // namespace runbox::light
