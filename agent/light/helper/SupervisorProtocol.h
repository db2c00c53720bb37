#pragma once

// Messages between the agent, the zygote and the per-workspace supervisors of light workspaces
// (see docs/light-workspaces.md). All sockets are AF_UNIX SOCK_SEQPACKET
// socketpairs, so every message is one atomic datagram and file descriptors travel with it
// (SCM_RIGHTS). Fixed-layout structs, host endianness: both ends are the same build.

#include "agent/light/helper/Rlimits.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <type_traits>

namespace runbox::light::wire {

enum class Type : std::uint32_t {
    /// agent → zygote. fds: [supervisor's control socket, home directory (O_PATH)], then with
    /// kSpawnEnvironment the environment revision's prefix (O_PATH|O_DIRECTORY)
    Spawn = 1,
    Exec = 2, ///< agent → supervisor. fds: [stdin, stdout, stderr]
    /// agent → supervisor: SIGKILL the whole process tree of one exec; with execId
    /// kKillBackground, every process of the workspace outside a running exec's tree
    Kill = 3,
    /// supervisor → agent, once confined. fds: [pidfd of the supervisor], then with
    /// kNetworkEgressGateway the gateway's listening socket in the workspace's network namespace
    Hello = 16,
    SetupFailed = 17, ///< supervisor or zygote → agent; the supervisor is gone
    Started = 18,     ///< the exec's process runs (pid in the workspace's PID namespace)
    ExecFailed = 19,  ///< the exec never started (chdir / execve failed); no Exited follows
    Exited = 20,      ///< the exec's leader ended; last message for that exec
};

inline constexpr std::size_t kMaxPorts = 64;               ///< TCP connect ports per ruleset
inline constexpr std::size_t kMaxHomePath = 1024;          ///< bytes incl. NUL
inline constexpr std::size_t kMaxExecMessage = 192 * 1024; ///< whole Exec message, bytes
inline constexpr int kMaxFds = 3;

struct Header {
    std::uint32_t type = 0;
    std::uint32_t size = 0;   ///< whole message, bytes
    std::uint64_t execId = 0; ///< 0 when not about an exec
};

// Spawn flags.
inline constexpr std::uint32_t kSpawnPidNamespace = 1u << 0; ///< supervisor is init of a new PID ns
inline constexpr std::uint32_t kSpawnPrivateProc = 1u << 1;  ///< new mount ns + fresh /proc
/// The workspace's science environment: SpawnRequest::environment bound read-only at
/// /opt/science-env and the host interpreters masked in its mount namespace (needs
/// kSpawnPrivateProc; WorkspaceMounts::mountEnvironment, docs/light-workspaces.md).
inline constexpr std::uint32_t kSpawnEnvironment = 1u << 2;

struct SpawnRequest {
    Header header;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    std::uint32_t flags = 0;
    std::int32_t minAbi = 6;
    Rlimits limits;
    std::uint32_t portCount = 0;
    std::uint16_t ports[kMaxPorts] = {};
    std::uint32_t network = 0;    ///< kNetwork* grants (the seccomp profile's sockets)
    char home[kMaxHomePath] = {}; ///< absolute path of the home (NUL-terminated)
    /// With kSpawnEnvironment: absolute path of the revision's prefix, a grandchild of the
    /// zygote's environment root (`<root>/e<16 hex>/r<16 hex>`, NUL-terminated); the third
    /// descriptor is that directory as the agent opened it.
    char environment[kMaxHomePath] = {};
};

// SpawnRequest::network: which AF_INET/AF_INET6 sockets the workspace may create
// (LightSeccompProfile). TCP is granted with the TCP connect ports (portCount > 0).
inline constexpr std::uint32_t kNetworkUdp = 1u << 0; ///< UDP sockets, to anywhere
/// A network namespace of its own with only `lo`, TCP connect to the egress gateway's port there
/// (WorkspaceNetwork); not with kNetworkUdp or TCP ports (they would reach nothing).
inline constexpr std::uint32_t kNetworkEgressGateway = 1u << 1;

// Confinement flags reported in Hello.
inline constexpr std::uint32_t kHasFsRules = 1u << 0;
inline constexpr std::uint32_t kHasNetRules = 1u << 1;
inline constexpr std::uint32_t kHasScopeAbstractUnix = 1u << 2;
inline constexpr std::uint32_t kHasScopeSignal = 1u << 3;
inline constexpr std::uint32_t kHasPidNamespace = 1u << 4;
inline constexpr std::uint32_t kHasPrivateProc = 1u << 5;
inline constexpr std::uint32_t kHasMaskedRuntimeDirs = 1u << 6; ///< /run, /tmp… covered
inline constexpr std::uint32_t kHasSeccomp = 1u << 7;           ///< LightSeccompProfile installed
inline constexpr std::uint32_t kHasInetStream = 1u << 8;        ///< … allowing TCP sockets
inline constexpr std::uint32_t kHasInetDatagram = 1u << 9;      ///< … allowing UDP sockets
inline constexpr std::uint32_t kHasEgressGateway = 1u << 10; ///< own network ns, gateway listener
/// The science environment at /opt/science-env (read-only) with the host interpreters masked.
inline constexpr std::uint32_t kHasEnvironment = 1u << 11;

struct Hello {
    Header header;
    std::int32_t abi = 0;
    std::uint32_t confinement = 0;
    std::int32_t hostPid = 0; ///< supervisor's pid as the agent sees it
};

struct SetupFailed {
    Header header;
    std::int32_t errorNumber = 0;
    char message[480] = {};
};

/// Kill's execId for the workspace's background processes: every process that is not in a
/// running exec's tree (what earlier execs left running; docs/bounds.md "Light workspaces
/// between executions"). Exec ids start at 1.
inline constexpr std::uint64_t kKillBackground = 0;

// Exec flags.
inline constexpr std::uint32_t kExecKillTreeOnExit = 1u << 0; ///< leader gone → kill the rest
inline constexpr std::uint32_t kExecNarrowPorts = 1u << 1;    ///< add a nested TCP-connect layer

/// Followed by `stringsSize` bytes: argc NUL-terminated args, envc "NAME=value", then cwd.
struct ExecRequest {
    Header header;
    std::uint32_t flags = 0;
    std::uint32_t argc = 0;
    std::uint32_t envc = 0;
    std::uint32_t portCount = 0;
    std::uint16_t ports[kMaxPorts] = {};
    std::uint32_t stringsSize = 0;
    /// RLIMIT_NPROC of this exec's tree (the request's maxProcesses; it counts every process of
    /// the workspace's uid, getrlimit(2)); 0 = the workspace's own (SpawnRequest::limits).
    std::uint64_t maxProcs = 0;
};

struct Started {
    Header header;
    std::int32_t pid = 0;
};

struct ExecFailed {
    Header header;
    std::int32_t errorNumber = 0;
    char stage[32] = {}; ///< "chdir", "execve", "fork", "landlock", "request", "rlimits"
};

// Exited flags.
inline constexpr std::uint32_t kExitedShepherdLost = 1u << 1; ///< tracking process died first

struct Exited {
    Header header;
    std::int32_t waitStatus = 0; ///< as from waitpid(2)
    std::uint32_t flags = 0;
};

struct Kill {
    Header header;
};

template <typename T> T make(Type type, std::uint64_t execId = 0) {
    static_assert(std::is_trivially_copyable_v<T>);
    T message{};
    message.header.type = static_cast<std::uint32_t>(type);
    message.header.size = sizeof(T);
    message.header.execId = execId;
    return message;
}

/// Copies @p text into @p out (size @p capacity), truncated, always NUL-terminated.
void copyString(char* out, std::size_t capacity, const std::string& text);

/// sendmsg(2) of one message with up to kMaxFds descriptors (MSG_NOSIGNAL). False with errno set.
bool sendMessage(int socket, const void* data, std::size_t size, const int* fds = nullptr,
                 int fdCount = 0);
/// recvmsg(2) of one message into @p buffer; received descriptors (MSG_CMSG_CLOEXEC) go to
/// @p fds (up to kMaxFds; extras are closed). Returns the size, 0 on EOF, −1 on error (errno), and
/// −1 with errno EMSGSIZE when the message or its descriptors were truncated (fds closed).
/// @p flags adds recvmsg flags (MSG_DONTWAIT).
long receiveMessage(int socket, void* buffer, std::size_t capacity, int* fds, int* fdCount,
                    int flags = 0);
/// The header of one received message: copies it to @p header and returns true, or, when the
/// message is shorter than a header, closes its @p fds and returns false (both ends drop such a
/// message).
bool readHeader(const char* data, std::size_t size, int* fds, int fdCount, Header* header);

} // namespace runbox::light::wire
