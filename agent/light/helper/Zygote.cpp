#include "agent/light/helper/Zygote.h"

#include "agent/light/helper/LandlockRuleset.h"
#include "agent/light/helper/Supervisor.h"
#include "agent/light/helper/SupervisorProtocol.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::light {

namespace {

struct SystemPath {
    const char* path;
    std::uint64_t access;
};

// What every light workspace may use outside its home (docs/light-workspaces.md): programs and
// libraries read + execute, /etc and /sys read-only (/proc is added by each supervisor, after it
// mounted its own), and the harmless device nodes read + write. /tmp, /dev/shm, /var, /home, /root,
// /run and every other workspace's home stay denied.
constexpr SystemPath kSystemPaths[] = {
    {"/usr", rights::kReadExecute},
    {"/bin", rights::kReadExecute},
    {"/sbin", rights::kReadExecute},
    {"/lib", rights::kReadExecute},
    {"/lib32", rights::kReadExecute},
    {"/lib64", rights::kReadExecute},
    {"/libx32", rights::kReadExecute},
    {"/opt", rights::kReadExecute},
    {"/etc", rights::kReadOnly},
    {"/sys", rights::kReadOnly},
    {"/dev/null", rights::kDeviceReadWrite},
    {"/dev/zero", rights::kDeviceReadWrite},
    {"/dev/full", rights::kDeviceReadWrite},
    {"/dev/random", rights::kDeviceReadWrite},
    {"/dev/urandom", rights::kDeviceReadWrite},
    {"/dev/tty", rights::kDeviceReadWrite},
};

std::vector<PinnedPath> pinSystemPaths(const ZygoteConfig& config) {
    std::vector<PinnedPath> pinned;
    const auto pin = [&pinned](const char* path, std::uint64_t access) {
        const int fd = ::open(path, O_PATH | O_CLOEXEC);
        if (fd >= 0)
            pinned.push_back({fd, access});
    };
    for (const SystemPath& entry : kSystemPaths)
        pin(entry.path, entry.access);
    for (const std::string& path : config.extraReadExecute)
        pin(path.c_str(), rights::kReadExecute);
    return pinned;
}

/// Landlock does not govern connect(2) to a pathname unix socket, so a world-writable host socket
/// (D-Bus, X11, …) would be reachable by path. In the zygote's own mount namespace, which every
/// supervisor's is a copy of, cover the directories that hold them with empty read-only tmpfs —
/// except one that holds the workspace root (then the homes are below it). Done once here rather
/// than in each supervisor: four superblocks made and torn down per workspace cost about 90 µs.
bool maskHostRuntimeDirs(const std::string& root) {
    bool all = true;
    for (const char* dir : {"/run", "/tmp", "/var/tmp", "/dev/shm"}) {
        const std::size_t length = std::strlen(dir);
        if (root.compare(0, length, dir) == 0 && (root.size() == length || root[length] == '/')) {
            all = false;
            continue;
        }
        struct stat st {};
        if (::lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue; // missing, or a symlink such as /var/run → /run (covered there)
        if (::mount("tmpfs", dir, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                    "size=4k,nr_inodes=1,mode=0755") != 0)
            all = false;
    }
    return all;
}

/// Gives the zygote a mount namespace of its own (a slave of the host's, so host mounts still
/// propagate in, never out) with the runtime dirs masked. A failure is kept in @p context and
/// fails every spawn (fail closed), as each supervisor did before.
void prepareMountNamespace(const ZygoteConfig& config, SpawnContext* context) {
    if (::unshare(CLONE_NEWNS) != 0) {
        context->mountNamespaceErrno = errno;
        context->mountNamespaceError = "unshare(CLONE_NEWNS)";
        return;
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) {
        context->mountNamespaceErrno = errno;
        context->mountNamespaceError = "make / a slave mount";
        return;
    }
    context->runtimeDirsMasked = maskHostRuntimeDirs(config.root);
}

/// Whether @p text is @p letter followed by 16 lowercase hex digits (an environment's or a
/// revision's id).
bool isId(const std::string& text, char letter) {
    if (text.size() != 17 || text[0] != letter)
        return false;
    for (std::size_t i = 1; i < text.size(); ++i)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
            return false;
    return true;
}

/// Why the environment of @p request is not acceptable; "" when it is.
std::string environmentRejectReason(const ZygoteConfig& config, const wire::SpawnRequest& request) {
    if (config.environmentRoot.empty())
        return "this zygote accepts no environment";
    if (!config.privateProc)
        return "an environment needs a mount namespace, which needs a root agent";
    if (::memchr(request.environment, '\0', sizeof(request.environment)) == nullptr)
        return "environment path not terminated";
    const std::string path = request.environment;
    const std::string root = config.environmentRoot + "/";
    if (path.size() != root.size() + 35 || path.compare(0, root.size(), root) != 0 ||
        path[root.size() + 17] != '/' || !isId(path.substr(root.size(), 17), 'e') ||
        !isId(path.substr(root.size() + 18), 'r'))
        return "environment prefix is not <environment root>/e<16 hex>/r<16 hex>";
    return {};
}

/// Checks a Spawn request against the zygote's own limits; "" when acceptable.
std::string rejectReason(const ZygoteConfig& config, const wire::SpawnRequest& request) {
    if (request.uid < config.uidMin || request.uid > config.uidMax || request.gid != request.uid)
        return "uid/gid outside the light uid range";
    if (::memchr(request.home, '\0', sizeof(request.home)) == nullptr)
        return "home path not terminated";
    const std::string home = request.home;
    const std::string prefix = config.root + "/";
    if (home.size() <= prefix.size() || home.compare(0, prefix.size(), prefix) != 0 ||
        home.find('/', prefix.size()) != std::string::npos || home.find("..") != std::string::npos)
        return "home is not a direct child of the workspace root";
    if (request.portCount > wire::kMaxPorts)
        return "too many ports";
    if (request.network & ~(wire::kNetworkUdp | wire::kNetworkEgressGateway))
        return "unknown network grant";
    if ((request.network & wire::kNetworkEgressGateway) &&
        (request.portCount > 0 || (request.network & wire::kNetworkUdp)))
        return "the egress gateway's private network cannot be combined with other grants";
    if ((request.network & wire::kNetworkEgressGateway) && !config.privateProc)
        return "the egress gateway needs a network namespace, which needs a root agent";
    const std::uint32_t wanted = (config.pidNamespace ? wire::kSpawnPidNamespace : 0) |
                                 (config.privateProc ? wire::kSpawnPrivateProc : 0);
    if ((request.flags & ~wire::kSpawnEnvironment) != wanted)
        return "spawn flags do not match the zygote's mode";
    if (request.flags & wire::kSpawnEnvironment) {
        if (std::string why = environmentRejectReason(config, request); !why.empty())
            return why;
    }
    std::string why;
    if (!request.limits.validate(&why))
        return why;
    return {};
}

void replyFailure(int controlFd, int error, const std::string& message) {
    auto reply = wire::make<wire::SetupFailed>(wire::Type::SetupFailed);
    reply.errorNumber = error;
    wire::copyString(reply.message, sizeof(reply.message), "zygote: " + message);
    wire::sendMessage(controlFd, &reply, sizeof(reply));
}

void prepareProcess(const ZygoteConfig& config) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (config.parentPid > 0 && ::getppid() != config.parentPid)
        ::_exit(1); // the agent died before we were set up
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP)
            ::sigaction(sig, &action, nullptr);
    }
    action.sa_handler = SIG_IGN;
    action.sa_flags = SA_NOCLDWAIT;
    ::sigaction(SIGCHLD, &action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int fd = 0; fd < 3; ++fd) {
        if (::fcntl(fd, F_GETFD) < 0) {
            const int null = ::open("/dev/null", O_RDWR);
            if (null >= 0 && null != fd) {
                ::dup2(null, fd);
                ::close(null);
            }
        }
    }
    ::umask(077);
}

} // namespace

int Zygote::run(const ZygoteConfig& config) {
    prepareProcess(config);
    const std::vector<PinnedPath> pinned = pinSystemPaths(config);
    SpawnContext context;
    context.pinned = &pinned;
    context.maskedInterpreters = &config.maskedInterpreters;
    // Compiled once, before any spawn: a supervisor only installs its program. A failure fails
    // every spawn (fail closed) with the reason.
    LightSeccompProfile::Set seccomp;
    if (!LightSeccompProfile::compileAll(&seccomp, &context.seccompError) &&
        context.seccompError.empty())
        context.seccompError = "the seccomp profile could not be compiled";
    context.seccomp = &seccomp;
    if (config.privateProc)
        prepareMountNamespace(config, &context);
    // unshare(CLONE_NEWPID) only works while the namespace for children is our own
    // (kernel copy_pid_ns), so each spawn first points it back with setns.
    const int ownPidNamespace = ::open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    wire::SpawnRequest request;
    for (;;) {
        int fds[wire::kMaxFds];
        int fdCount = 0;
        const long got =
            wire::receiveMessage(config.agentFd, &request, sizeof(request), fds, &fdCount);
        if (got == 0)
            return 0;
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EMSGSIZE)
                continue;
            return 1;
        }
        const bool environment = got == static_cast<long>(sizeof(request)) &&
                                 (request.flags & wire::kSpawnEnvironment) != 0;
        if (fdCount != (environment ? 3 : 2) || got != static_cast<long>(sizeof(request)) ||
            request.header.type != static_cast<std::uint32_t>(wire::Type::Spawn)) {
            if (fdCount >= 1)
                replyFailure(fds[0], EINVAL, "malformed spawn request");
            for (int i = 0; i < fdCount; ++i)
                ::close(fds[i]);
            continue;
        }
        const int environmentFd = environment ? fds[2] : -1;
        const auto closeFds = [&fds, environmentFd] {
            ::close(fds[0]);
            ::close(fds[1]);
            if (environmentFd >= 0)
                ::close(environmentFd);
        };
        const std::string reason = rejectReason(config, request);
        if (!reason.empty()) {
            replyFailure(fds[0], EPERM, reason);
            closeFds();
            continue;
        }
        if (config.pidNamespace &&
            (::setns(ownPidNamespace, CLONE_NEWPID) != 0 || ::unshare(CLONE_NEWPID) != 0)) {
            replyFailure(fds[0], errno, "unshare(CLONE_NEWPID) failed");
            closeFds();
            continue;
        }
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(config.agentFd); // never reachable from a workspace
            ::close(ownPidNamespace);
            Supervisor::run(context, request, fds[0], fds[1], environmentFd);
        }
        if (pid < 0)
            replyFailure(fds[0], errno, "fork failed");
        closeFds();
    }
}

} // namespace runbox::light
