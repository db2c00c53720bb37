#include "agent/light/helper/Supervisor.h"

#include "agent/light/helper/LandlockRuleset.h"
#include "agent/light/helper/ProcessTree.h"
#include "agent/light/helper/Shepherd.h"
#include "agent/light/helper/WorkspaceMounts.h"
#include "agent/light/helper/WorkspaceNetwork.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace runbox::light {

namespace {

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

/// Empties every capability set of this process (effective, permitted, inheritable, ambient) and
/// checks it; false (errno set) otherwise. After the uid switch: a switch from uid 0 clears them
/// by itself, but one from a non-root zygote (an agent given the light tier's capabilities, e.g.
/// systemd's AmbientCapabilities=, docs/service.md) keeps them all, and the ambient set would
/// hand them to every workspace command through execve. Source: capabilities(7) "Effect of user
/// ID changes on capabilities", prctl(2) PR_CAP_AMBIENT_CLEAR_ALL.
bool clearAllCapabilities() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct none[2] = {};
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 ||
        ::syscall(SYS_capset, &header, none) != 0)
        return false;
    __user_cap_data_struct check[2] = {};
    if (::syscall(SYS_capget, &header, check) != 0)
        return false;
    for (const __user_cap_data_struct& d : check)
        if (d.effective || d.permitted || d.inheritable) {
            errno = EPERM;
            return false;
        }
    return ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SETUID, 0, 0) == 0;
}

/// Splits the NUL-separated strings of an Exec request; false when malformed.
bool splitStrings(const char* data, std::size_t size, std::size_t expected,
                  std::vector<char*>* out) {
    std::size_t offset = 0;
    while (offset < size && out->size() < expected) {
        const void* end = std::memchr(data + offset, '\0', size - offset);
        if (!end)
            return false;
        out->push_back(const_cast<char*>(data + offset));
        offset = static_cast<std::size_t>(static_cast<const char*>(end) - data) + 1;
    }
    return out->size() == expected && offset == size;
}

/// Program paths to try for @p program: itself when it has a '/', else each PATH entry of the
/// exec's own environment (execvp would search the supervisor's PATH instead).
std::vector<std::string> programCandidates(const char* program, char* const* envp) {
    if (std::strchr(program, '/'))
        return {program};
    const char* path = kDefaultPath;
    for (char* const* entry = envp; *entry; ++entry) {
        if (std::strncmp(*entry, "PATH=", 5) == 0)
            path = *entry + 5;
    }
    std::vector<std::string> candidates;
    const std::string all = path;
    std::size_t start = 0;
    for (;;) {
        const std::size_t colon = all.find(':', start);
        std::string dir =
            all.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        candidates.push_back((dir.empty() ? std::string(".") : dir) + "/" + program);
        if (colon == std::string::npos)
            break;
        start = colon + 1;
    }
    return candidates;
}

} // namespace

void Supervisor::run(const SpawnContext& context, const wire::SpawnRequest& request, int controlFd,
                     int homeFd, int environmentFd) {
    // A local, not a static: a guarded static would dirty (copy on write) two more pages of the
    // zygote's memory in every supervisor. setUp never returns, so it lives until _exit.
    Supervisor supervisor(controlFd);
    supervisor.setUp(context, request, homeFd, environmentFd);
}

void Supervisor::fail(const char* stage, int error, const std::string& message) {
    auto reply = wire::make<wire::SetupFailed>(wire::Type::SetupFailed);
    reply.errorNumber = error;
    wire::copyString(reply.message, sizeof(reply.message),
                     std::string(stage) + ": " + message +
                         (error ? std::string(" (") + std::strerror(error) + ")" : ""));
    wire::sendMessage(m_control, &reply, sizeof(reply));
    ::_exit(1);
}

void Supervisor::setUp(const SpawnContext& context, const wire::SpawnRequest& request, int homeFd,
                       int environmentFd) {
    const std::vector<PinnedPath>& pinned = *context.pinned;
    // Children are reaped here (the zygote auto-reaps with SIG_IGN; undo that) via a signalfd.
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &defaults, nullptr);
    sigset_t childSignals;
    sigemptyset(&childSignals);
    sigaddset(&childSignals, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &childSignals, nullptr);
    m_signalFd = ::signalfd(-1, &childSignals, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_signalFd < 0)
        fail("signalfd", errno, "cannot watch children");

    char self[32] = {};
    const ssize_t selfLength = ::readlink("/proc/self", self, sizeof(self) - 1);
    const int hostPid = selfLength > 0 ? std::atoi(self) : 0;

    std::uint32_t confinement = 0;
    if (request.flags & wire::kSpawnPidNamespace)
        confinement |= wire::kHasPidNamespace;
    if (request.flags & wire::kSpawnPrivateProc) {
        // A copy of the zygote's mount namespace, where the host runtime dirs are masked already
        // (Zygote.cpp): only the workspace's own /proc is mounted here.
        if (!context.mountNamespaceError.empty())
            fail("mount namespace", context.mountNamespaceErrno, context.mountNamespaceError);
        if (::unshare(CLONE_NEWNS) != 0)
            fail("mount namespace", errno, "unshare(CLONE_NEWNS)");
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0)
            fail("mount namespace", errno, "make / a slave mount");
        if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
            fail("private /proc", errno, "mount proc");
        if (std::string hidden; !WorkspaceMounts::hideOtherHomes(request.home, &hidden))
            fail("mount namespace", errno, hidden);
        if (request.flags & wire::kSpawnEnvironment) {
            if (std::string why; !WorkspaceMounts::mountEnvironment(
                    request.environment, environmentFd, *context.maskedInterpreters, &why))
                fail("environment", errno, why);
            confinement |= wire::kHasEnvironment;
        }
        confinement |= wire::kHasPrivateProc;
        if (context.runtimeDirsMasked)
            confinement |= wire::kHasMaskedRuntimeDirs;
    }

    std::string why;
    // The egress gateway's private network (WorkspaceNetwork): made while still root; the
    // listener goes to the agent with Hello.
    const bool egressGateway = (request.network & wire::kNetworkEgressGateway) != 0;
    int gatewayListener = -1;
    if (egressGateway) {
        gatewayListener =
            WorkspaceNetwork::enterPrivateNetwork(WorkspaceNetwork::kGatewayPort, &why);
        if (gatewayListener < 0)
            fail("network namespace", errno, why);
        confinement |= wire::kHasEgressGateway;
    }

    m_abi = LandlockRuleset::probeAbi(&why);
    if (m_abi < request.minAbi)
        fail("landlock", 0,
             "kernel Landlock ABI " + std::to_string(m_abi) + " is below the required " +
                 std::to_string(request.minAbi) + (why.empty() ? "" : " (" + why + ")"));
    LandlockRuleset ruleset;
    if (!ruleset.create(m_abi, true, &why))
        fail("landlock", 0, why);
    for (const PinnedPath& path : pinned) {
        if (!ruleset.allowPath(path.fd, path.access, &why))
            fail("landlock", 0, why);
    }
    // The environment's own rule: Landlock does not look at a mount point it walks up through,
    // so /opt's pinned rule does not reach what is mounted at /opt/science-env.
    // And /opt itself, which may now be the tmpfs mountEnvironment put over it: Landlock skips
    // a covered mount point when it walks up, so the pinned rule on the host's /opt would no
    // longer reach the entries bound back there.
    if ((confinement & wire::kHasEnvironment) &&
        (!ruleset.allowPath(WorkspaceMounts::kEnvironmentMount, rights::kReadExecute, false,
                            &why) ||
         !ruleset.allowPath("/opt", rights::kReadExecute, false, &why)))
        fail("landlock", 0, why);
    if (!ruleset.allowPath("/proc", rights::kReadOnly, false, &why) ||
        !ruleset.allowPath(homeFd, rights::kEverything, &why))
        fail("landlock", 0, why);
    for (std::uint32_t i = 0; i < request.portCount && i < wire::kMaxPorts; ++i) {
        if (!ruleset.allowConnectPort(request.ports[i], &why))
            fail("landlock", 0, why);
    }
    if (egressGateway && !ruleset.allowConnectPort(WorkspaceNetwork::kGatewayPort, &why))
        fail("landlock", 0, why);
    confinement |= wire::kHasFsRules;
    if (ruleset.handledNet())
        confinement |= wire::kHasNetRules;
    if (ruleset.scoped() & landlock::kScopeAbstractUnixSocket)
        confinement |= wire::kHasScopeAbstractUnix;
    if (ruleset.scoped() & landlock::kScopeSignal)
        confinement |= wire::kHasScopeSignal;

    m_limits = request.limits;
    if (!request.limits.applyToSelf(&why, false))
        fail("rlimits", 0, why);
    if (::setgroups(0, nullptr) != 0)
        fail("setgroups", errno, "drop supplementary groups");
    if (::setresgid(request.gid, request.gid, request.gid) != 0)
        fail("setresgid", errno, "switch group");
    if (::setresuid(request.uid, request.uid, request.uid) != 0)
        fail("setresuid", errno, "switch user");
    uid_t ruid, euid, suid;
    if (::getresuid(&ruid, &euid, &suid) != 0 || ruid != request.uid || euid != request.uid ||
        suid != request.uid)
        fail("setresuid", 0, "uid did not change");
    if (!clearAllCapabilities())
        fail("capabilities", errno, "cannot clear the capability sets after the uid switch");
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    ::umask(022); // the zygote runs with 077; workspace code gets the usual default
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    if (!ruleset.restrictSelf(&why))
        fail("landlock", 0, why);
    ruleset.close();
    // After the Landlock ruleset (restrictSelf set NO_NEW_PRIVS), before any exec: the
    // supervisor's own work from here on (poll, recvmsg, fork, landlock, execve, /proc walks)
    // creates no socket and uses no io_uring, so every exec simply inherits the filter.
    const LightSocketGrant grant{request.portCount > 0 || egressGateway,
                                 (request.network & wire::kNetworkUdp) != 0};
    if (!context.seccompError.empty() || !context.seccomp)
        fail("seccomp", 0, context.seccompError);
    if (!LightSeccompProfile::install(context.seccomp->programs[grant.index()], nullptr))
        fail("seccomp", errno, "cannot install the seccomp profile");
    confinement |= wire::kHasSeccomp;
    if (grant.inetStream)
        confinement |= wire::kHasInetStream;
    if (grant.inetDatagram)
        confinement |= wire::kHasInetDatagram;

    struct stat byFd {
    }, byPath{};
    if (::fstat(homeFd, &byFd) != 0 || ::chdir(request.home) != 0 || ::stat(".", &byPath) != 0 ||
        byFd.st_dev != byPath.st_dev || byFd.st_ino != byPath.st_ino)
        fail("home", errno, "cannot enter the workspace home");
    m_home = request.home;
    ::close(homeFd);
    if (environmentFd >= 0)
        ::close(environmentFd);
    for (const PinnedPath& path : pinned)
        ::close(path.fd);

    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
    if (pidfd < 0)
        fail("pidfd", errno, "pidfd_open");
    auto hello = wire::make<wire::Hello>(wire::Type::Hello);
    hello.abi = m_abi;
    hello.confinement = confinement;
    hello.hostPid = hostPid;
    const int helloFds[2] = {pidfd, gatewayListener};
    if (!wire::sendMessage(m_control, &hello, sizeof(hello), helloFds, egressGateway ? 2 : 1))
        ::_exit(1);
    ::close(pidfd);
    if (gatewayListener >= 0)
        ::close(gatewayListener); // the agent's copy keeps it listening
    loop();
}

void Supervisor::loop() {
    static char buffer[wire::kMaxExecMessage + 4096];
    for (;;) {
        pollfd fds[2] = {{m_control, POLLIN, 0}, {m_signalFd, POLLIN, 0}};
        // While a kill is pending, walk its tree again every 10 ms: a process forked between
        // two walks (or a leader not yet started when the Kill arrived) is caught next time.
        const bool killing = !m_killPending.empty() || m_backgroundKillPending;
        if (::poll(fds, 2, killing ? 10 : 1000) < 0 && errno != EINTR)
            ::_exit(1);
        reapChildren(); // also on timeout: a lost SIGCHLD never leaves zombies behind
        for (std::uint64_t execId :
             std::vector<std::uint64_t>(m_killPending.begin(), m_killPending.end()))
            handleKill(execId);
        if (m_backgroundKillPending)
            m_backgroundKillPending = killBackgroundPass();
        if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        int received[wire::kMaxFds];
        int receivedCount = 0;
        const long got =
            wire::receiveMessage(m_control, buffer, sizeof(buffer), received, &receivedCount);
        if (got == 0 || (got < 0 && errno != EMSGSIZE && errno != EAGAIN && errno != EINTR)) {
            // The agent is gone (or deleted us): end every process of the workspace, then exit.
            ProcessTree::killDescendants(::getpid(), 1000, true);
            ::_exit(0);
        }
        if (got > 0)
            handleMessage(buffer, static_cast<std::size_t>(got), received, receivedCount);
    }
}

void Supervisor::handleMessage(const char* data, std::size_t size, int* fds, int fdCount) {
    wire::Header header;
    if (!wire::readHeader(data, size, fds, fdCount, &header))
        return;
    if (header.type == static_cast<std::uint32_t>(wire::Type::Exec)) {
        handleExec(data, size, fds, fdCount);
        return;
    }
    for (int i = 0; i < fdCount; ++i)
        ::close(fds[i]);
    if (header.type == static_cast<std::uint32_t>(wire::Type::Kill))
        handleKill(header.execId);
}

void Supervisor::sendExecFailed(std::uint64_t execId, int error, const char* stage) {
    auto message = wire::make<wire::ExecFailed>(wire::Type::ExecFailed, execId);
    message.errorNumber = error;
    wire::copyString(message.stage, sizeof(message.stage), stage);
    wire::sendMessage(m_control, &message, sizeof(message));
}

void Supervisor::handleExec(const char* data, std::size_t size, int* fds, int fdCount) {
    wire::ExecRequest request;
    std::memcpy(&request.header, data, sizeof(request.header)); // size ≥ header: checked by caller
    std::vector<char*> strings;
    bool valid = size >= sizeof(request);
    if (valid) {
        std::memcpy(&request, data, sizeof(request));
        valid = fdCount == 3 && request.argc >= 1 && request.portCount <= wire::kMaxPorts &&
                request.stringsSize == size - sizeof(request) &&
                splitStrings(data + sizeof(request), request.stringsSize,
                             std::size_t{request.argc} + request.envc + 1, &strings);
    }
    if (!valid) {
        for (int i = 0; i < fdCount; ++i)
            ::close(fds[i]);
        sendExecFailed(request.header.execId, EINVAL, "request");
        return;
    }
    std::vector<char*> argv(strings.begin(), strings.begin() + request.argc);
    argv.push_back(nullptr);
    std::vector<char*> envp(strings.begin() + request.argc,
                            strings.begin() + request.argc + request.envc);
    envp.push_back(nullptr);
    const char* cwd = strings.back();
    const std::vector<std::string> candidates = programCandidates(argv[0], envp.data());
    std::vector<const char*> candidatePointers;
    for (const std::string& candidate : candidates)
        candidatePointers.push_back(candidate.c_str());
    candidatePointers.push_back(nullptr);

    LandlockRuleset nested;
    if (request.flags & wire::kExecNarrowPorts) {
        std::string why;
        bool ok = nested.createNetworkOnly(m_abi, &why);
        for (std::uint32_t i = 0; ok && i < request.portCount; ++i)
            ok = nested.allowConnectPort(request.ports[i], &why);
        if (!ok) {
            for (int i = 0; i < fdCount; ++i)
                ::close(fds[i]);
            sendExecFailed(request.header.execId, errno, "landlock");
            return;
        }
    }

    ShepherdJob job;
    job.execId = request.header.execId;
    job.flags = request.flags;
    job.controlFd = m_control;
    for (int i = 0; i < 3; ++i)
        job.stdioFds[i] = fds[i];
    job.nestedRulesetFd = nested.fd();
    job.argv = argv.data();
    job.envp = envp.data();
    job.candidates = candidatePointers.data();
    job.cwd = cwd[0] ? cwd : m_home.c_str();
    job.limits = m_limits;
    job.maxProcs = request.maxProcs;

    const pid_t shepherd = ::fork();
    if (shepherd == 0) {
        ::close(m_signalFd);
        Shepherd::run(job);
    }
    const int forkError = errno;
    for (int i = 0; i < 3; ++i)
        ::close(fds[i]);
    if (shepherd < 0) {
        sendExecFailed(request.header.execId, forkError, "fork");
        return;
    }
    m_shepherds[shepherd] = request.header.execId;
}

void Supervisor::handleKill(std::uint64_t execId) {
    if (execId == wire::kKillBackground) {
        killBackground();
        return;
    }
    for (const auto& [shepherd, id] : m_shepherds) {
        if (id != execId)
            continue;
        // Freeze the shepherd so it cannot exit mid-walk (its orphans would then reparent here
        // and leave the exec's tree); kill everything below it; let it report the leader.
        m_killPending.insert(execId);
        ::kill(shepherd, SIGSTOP);
        ProcessTree::killDescendants(shepherd, 1000, false);
        ::kill(shepherd, SIGCONT);
        return;
    }
    m_killPending.erase(execId); // finished (or unknown): nothing left to kill
}

void Supervisor::killBackground() {
    // Before the next message (an Exec queued behind this Kill): the agent's bounds between
    // executions must leave the next one a workspace without them (docs/bounds.md).
    for (int round = 0; round < 200; ++round) {
        reapChildren();
        if (!killBackgroundPass()) {
            m_backgroundKillPending = false;
            return;
        }
        timespec pause{0, 1000000}; // 1 ms: the killed exit, their orphans reparent here
        ::nanosleep(&pause, nullptr);
    }
    m_backgroundKillPending = true; // the loop walks again every 10 ms
}

bool Supervisor::killBackgroundPass() {
    // Every process of the workspace descends from this subreaper. A child that is no shepherd
    // is an orphan of an exec that ended: its whole tree is background. A process forked
    // after the walk, or orphaned by a kill, is a child here by the next pass.
    bool anyAlive = false;
    for (pid_t child : ProcessTree::children(::getpid())) {
        if (m_shepherds.count(child) != 0)
            continue;
        std::vector<pid_t> tree = ProcessTree::descendants(child);
        tree.insert(tree.begin(), child);
        for (pid_t pid : tree) {
            if (ProcessTree::isDead(pid))
                continue;
            anyAlive = true;
            ::kill(pid, SIGKILL);
        }
    }
    return anyAlive;
}

void Supervisor::reapChildren() {
    signalfd_siginfo info;
    while (::read(m_signalFd, &info, sizeof(info)) > 0) {
    }
    for (;;) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        const auto it = m_shepherds.find(pid);
        if (it == m_shepherds.end())
            continue; // an orphan of the workspace, reparented to us
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            // The shepherd was killed (by the workspace's own code): the exec's result is lost.
            auto exited = wire::make<wire::Exited>(wire::Type::Exited, it->second);
            exited.waitStatus = status;
            exited.flags = wire::kExitedShepherdLost;
            wire::sendMessage(m_control, &exited, sizeof(exited));
        }
        m_killPending.erase(it->second);
        m_shepherds.erase(it);
    }
}

} // namespace runbox::light
