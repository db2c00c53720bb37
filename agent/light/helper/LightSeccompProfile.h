#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <string>
#include <vector>

namespace runbox::light {

/// Which sockets a light workspace may create, fixed when the workspace is created
/// (docs/light-workspaces.md "Network"). AF_UNIX is always allowed.
struct LightSocketGrant {
    /// AF_INET/AF_INET6 SOCK_STREAM with protocol 0 or IPPROTO_TCP (the workspace has TCP
    /// connect rules in its Landlock ruleset, which then decides the ports).
    bool inetStream = false;
    /// AF_INET/AF_INET6 SOCK_DGRAM with protocol 0 or IPPROTO_UDP, to and from anywhere:
    /// Landlock has no UDP rights (landlock(7)), so only the operator's explicit grant opens it.
    bool inetDatagram = false;

    /// 0..3, the index of this grant's program in a LightSeccompProfile::Set.
    int index() const { return (inetStream ? 1 : 0) | (inetDatagram ? 2 : 0); }
};

/// The light tier's seccomp profile: a libseccomp filter, exported once as classic BPF and
/// installed by each workspace's supervisor right after its Landlock ruleset (every exec inherits
/// it). Rules (seccomp(2), socket(2), socketpair(2); the strong tier's profiles are in
/// agent/sandbox/SeccompFilter.cpp):
/// - default action ALLOW: this filter only closes what Landlock leaves open;
/// - native architecture only: any other audit arch (i386 through int 0x80, whose socketcall(2)
///   multiplexer would bypass the socket(2) checks) and, on x86-64, any x32 syscall number
///   kills the process (SECCOMP_RET_KILL_PROCESS);
/// - io_uring_setup/io_uring_enter/io_uring_register → ENOSYS, so IORING_OP_SOCKET and
///   IORING_OP_CONNECT can never create or connect a socket outside these checks (callers fall
///   back to plain syscalls on ENOSYS);
/// - no new namespaces: unshare(2) and setns(2) → EPERM, clone(2) with a CLONE_NEW* flag →
///   EPERM, clone3(2) → ENOSYS (glibc falls back to clone(2));
/// - socket(2): AF_UNIX with any type and protocol; AF_INET/AF_INET6 only as the grant says; any
///   other family (netlink, packet, vsock, …), any other type (raw, seqpacket…), any other
///   protocol (IPPROTO_MPTCP, IPPROTO_SCTP, IPPROTO_SMC, ICMP "ping", UDP-Lite…) and any type flag
///   other than SOCK_NONBLOCK/SOCK_CLOEXEC → EACCES ("permission to create a socket of the
///   specified type and/or protocol is denied", socket(2));
/// - socketpair(2): AF_UNIX only, else EACCES;
/// - sendto(2), sendmsg(2), sendmmsg(2) with MSG_FASTOPEN → EACCES: TCP Fast Open connects
///   without connect(2), past Landlock's TCP connect rules;
/// - System V IPC → ENOSYS (segments would outlive the workspace in the host's IPC namespace);
/// - memfd_secret(2) → ENOSYS: its pages are in no counter the memory watchdog can read
///   (docs/bounds.md "Shared memory objects");
/// - fallocate(2) in any mode but FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE → EOPNOTSUPP
///   (fallocate(2): "the filesystem does not support this operation"): one call reserves
///   gigabytes faster than the workspace quota watcher can look (docs/bounds.md "Disk").
/// Arguments the kernel reads as `int` are compared on their low 32 bits; a value with high bits
/// set is refused.
class LightSeccompProfile final {
public:
    /// One classic-BPF program per grant, indexed by LightSocketGrant::index().
    struct Set {
        std::vector<sock_filter> programs[4];
    };

    /// Compiles the program of @p grant with libseccomp (native arch only). False with @p error.
    static bool compile(const LightSocketGrant& grant, std::vector<sock_filter>* program,
                        std::string* error);
    /// Compiles all four programs (done once by the zygote). False with @p error.
    static bool compileAll(Set* set, std::string* error);
    /// Installs @p program on the calling thread with seccomp(2) SECCOMP_SET_MODE_FILTER (the
    /// caller has set PR_SET_NO_NEW_PRIVS). Inherited across fork and execve; cannot be removed.
    /// One system call. False with @p error (errno kept).
    static bool install(const std::vector<sock_filter>& program, std::string* error);
};

} // namespace runbox::light
