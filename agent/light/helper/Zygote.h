#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace runbox::light {

/// Start-up options of the zygote (runbox-light-supervisor --zygote …).
struct ZygoteConfig {
    int agentFd = 3;              ///< SOCK_SEQPACKET to the agent
    pid_t parentPid = 0;          ///< the agent; the zygote dies with it (PR_SET_PDEATHSIG)
    uid_t uidMin = 0, uidMax = 0; ///< only uids (and gids) in this range are accepted
    std::string root;             ///< homes must be directly under this directory
    bool pidNamespace = false;    ///< each supervisor is init of a new PID namespace
    bool privateProc = false;     ///< … with its own mount namespace and /proc
    std::vector<std::string> extraReadExecute; ///< more read+execute trees (e.g. /srv/conda)
    /// Where environment revisions live (`<state>/environments`): a Spawn's prefix must be
    /// `<environmentRoot>/e<16 hex>/r<16 hex>`; "" = no environment is accepted.
    std::string environmentRoot;
    /// The host interpreters a workspace with an environment gets masked (each checked by
    /// WorkspaceMounts::validMaskedPath at start).
    std::vector<std::string> maskedInterpreters;
};

/// The light tier's small privileged helper (the kpmcore pattern: narrow, allow-listed). Started
/// once by the agent, it pins the system paths (O_PATH) every workspace may use, then answers only
/// Spawn requests arriving on its socketpair: it checks the uid range and the home location, and
/// forks a Supervisor — after unshare(CLONE_NEWPID) when configured, so the supervisor is init of
/// its own PID namespace. Forking this small single-threaded process is much cheaper than forking
/// or exec'ing from the agent. Supervisors are auto-reaped (SIGCHLD ignored); the agent watches
/// them through the pidfd each supervisor sends in Hello. The zygote exits when the agent closes
/// the socket and is killed with it (PR_SET_PDEATHSIG).
class Zygote final {
public:
    /// Serves requests until the agent goes away; returns the process exit code.
    static int run(const ZygoteConfig& config);
};

} // namespace runbox::light
