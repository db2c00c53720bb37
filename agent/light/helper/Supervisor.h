#pragma once

#include "agent/light/helper/LightSeccompProfile.h"
#include "agent/light/helper/SupervisorProtocol.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace runbox::light {

/// A system path opened once (O_PATH) by the zygote, granted to every workspace.
struct PinnedPath {
    int fd = -1;
    std::uint64_t access = 0;
};

/// What the zygote prepared once for every supervisor it forks.
struct SpawnContext {
    const std::vector<PinnedPath>* pinned = nullptr; ///< system paths granted to every workspace
    /// The zygote's own mount namespace (root only) covers /run, /tmp, /var/tmp and /dev/shm
    /// with empty read-only tmpfs; each supervisor's namespace is a copy of it.
    bool runtimeDirsMasked = false;
    std::string mountNamespaceError; ///< why the zygote has no mount namespace ("" = it has one)
    int mountNamespaceErrno = 0;
    /// The seccomp programs, compiled once by the zygote; each supervisor installs the one of
    /// its grant after its Landlock ruleset.
    const LightSeccompProfile::Set* seccomp = nullptr;
    std::string seccompError; ///< why they could not be compiled ("" = they were)
    /// The host interpreters a workspace with an environment gets masked (the zygote's
    /// `--mask` arguments, EnvironmentStage::hostInterpreters).
    const std::vector<std::string>* maskedInterpreters = nullptr;
};

/// The per-workspace supervisor: one long-lived process per light workspace that holds the
/// workspace's single Landlock domain. Forked by the zygote (as init of a new PID namespace with a
/// private /proc when the agent is root), it confines itself once — rlimits, setgroups(0) +
/// setresgid + setresuid to the workspace uid, non-dumpable, child subreaper, NO_NEW_PRIVS,
/// landlock_restrict_self, then the seccomp profile of its socket grant (LightSeccompProfile) —
/// reports Hello, then serves Exec and Kill requests from the agent over
/// its control socket until that socket closes. Each exec runs under a Shepherd, so every process
/// of the workspace is a descendant of this supervisor and shares its domain: a background process
/// started by one exec can be signalled and reached over abstract sockets by a later one, while
/// other workspaces and the host stay out of scope.
class Supervisor final {
public:
    /// Runs in the child the zygote forked; never returns. Sends SetupFailed and exits when any
    /// confinement step fails (fail closed). @p environmentFd: the environment's prefix as the
    /// agent opened it (with wire::kSpawnEnvironment), else −1.
    [[noreturn]] static void run(const SpawnContext& context, const wire::SpawnRequest& request,
                                 int controlFd, int homeFd, int environmentFd);

private:
    explicit Supervisor(int controlFd) : m_control(controlFd) {}
    [[noreturn]] void setUp(const SpawnContext& context, const wire::SpawnRequest& request,
                            int homeFd, int environmentFd);
    [[noreturn]] void fail(const char* stage, int error, const std::string& message);
    [[noreturn]] void loop();
    void handleMessage(const char* data, std::size_t size, int* fds, int fdCount);
    void handleExec(const char* data, std::size_t size, int* fds, int fdCount);
    void handleKill(std::uint64_t execId);
    /// Kill with wire::kKillBackground: SIGKILLs every process outside a running exec's tree.
    void killBackground();
    /// One pass of it; true while one of those processes was still alive.
    bool killBackgroundPass();
    void reapChildren();
    void sendExecFailed(std::uint64_t execId, int error, const char* stage);

    int m_control = -1;
    int m_signalFd = -1;
    int m_abi = 0;
    std::string m_home;
    std::map<pid_t, std::uint64_t> m_shepherds; ///< shepherd pid → exec id
    std::set<std::uint64_t> m_killPending;      ///< execs whose tree is being killed
    bool m_backgroundKillPending = false;       ///< background processes still being killed
    Rlimits m_limits;
};

} // namespace runbox::light
