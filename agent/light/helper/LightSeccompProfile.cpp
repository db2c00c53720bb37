#include "agent/light/helper/LightSeccompProfile.h"

#include <cerrno>
#include <cstring>
#include <linux/seccomp.h>
#include <memory>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::light {

namespace {

using FilterPtr = std::unique_ptr<void, decltype(&seccomp_release)>;

constexpr scmp_datum_t kLow32 = 0xffffffffULL;
constexpr scmp_datum_t kSockTypeMask = 0xf; // SOCK_TYPE_MASK, include/linux/net.h
/// The type argument without SOCK_NONBLOCK and SOCK_CLOEXEC (the only flags socket(2) accepts).
constexpr scmp_datum_t kTypeWithoutFlags = kLow32 & ~scmp_datum_t(SOCK_NONBLOCK | SOCK_CLOEXEC);
constexpr int kRefused = EACCES; // socket(2): "permission to create a socket … is denied"

bool failWith(std::string* error, const std::string& what, int rc) {
    if (error)
        *error = what + ": " + std::strerror(rc < 0 ? -rc : rc);
    return false;
}

/// Adds one refusal of syscall @p nr when all of @p cmp hold (libseccomp ANDs them).
bool refuse(scmp_filter_ctx ctx, int nr, std::initializer_list<scmp_arg_cmp> cmp,
            std::string* error) {
    const int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(kRefused), nr,
                                          static_cast<unsigned>(cmp.size()), cmp.begin());
    return rc == 0 || failWith(error, "libseccomp refused a socket rule", rc);
}

/// Refuses every @p nr call whose argument 0 (the family) is not one of @p allowed (ascending;
/// the last one is the largest): each value below the largest that is not allowed, then
/// everything above it.
bool refuseOtherFamilies(scmp_filter_ctx ctx, int nr, std::initializer_list<scmp_datum_t> allowed,
                         std::string* error) {
    const scmp_datum_t largest = *(allowed.end() - 1);
    for (scmp_datum_t family = 0; family < largest; ++family) {
        bool ok = false;
        for (scmp_datum_t a : allowed)
            ok = ok || a == family;
        if (!ok && !refuse(ctx, nr, {SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, family)}, error))
            return false;
    }
    return refuse(ctx, nr, {SCMP_A0(SCMP_CMP_GT, largest)}, error);
}

/// Refuses @p family × a type of @p type with a protocol other than 0 and @p protocol.
bool refuseOtherProtocols(scmp_filter_ctx ctx, int nr, scmp_datum_t family, scmp_datum_t type,
                          scmp_datum_t protocol, std::string* error) {
    const scmp_arg_cmp isFamily = SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, family);
    const scmp_arg_cmp isType = SCMP_A1(SCMP_CMP_MASKED_EQ, kTypeWithoutFlags, type);
    for (scmp_datum_t other = 1; other < protocol; ++other) {
        if (!refuse(ctx, nr, {isFamily, isType, SCMP_A2(SCMP_CMP_MASKED_EQ, kLow32, other)}, error))
            return false;
    }
    return refuse(ctx, nr, {isFamily, isType, SCMP_A2(SCMP_CMP_GT, protocol)}, error);
}

bool addSocketRules(scmp_filter_ctx ctx, const LightSocketGrant& grant, std::string* error) {
    const int socketNr = seccomp_syscall_resolve_name("socket");
    const int pairNr = seccomp_syscall_resolve_name("socketpair");
    if (socketNr < 0 || pairNr < 0) {
        if (error)
            *error = "libseccomp does not know socket/socketpair on this architecture";
        return false;
    }
    // socketpair(2) makes connected AF_UNIX pairs only (inet has none).
    if (!refuseOtherFamilies(ctx, pairNr, {AF_UNIX}, error))
        return false;
    // No unix datagram sockets: what a closed sender left queued on a datagram receiver is listed
    // nowhere, so no bound could count it (docs/bounds.md "Unix socket buffers").
    const scmp_arg_cmp isDatagram = SCMP_A1(SCMP_CMP_MASKED_EQ, kSockTypeMask, SOCK_DGRAM);
    if (!refuse(ctx, pairNr, {isDatagram}, error) ||
        !refuse(ctx, socketNr, {SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, AF_UNIX), isDatagram}, error))
        return false;
    const bool inet = grant.inetStream || grant.inetDatagram;
    if (!(inet ? refuseOtherFamilies(ctx, socketNr, {AF_UNIX, AF_INET, AF_INET6}, error)
               : refuseOtherFamilies(ctx, socketNr, {AF_UNIX}, error)))
        return false;
    // Type flags other than SOCK_NONBLOCK/SOCK_CLOEXEC (the kernel says EINVAL to them today;
    // refused here so that a future flag cannot change what a type compares equal to).
    for (unsigned bit = 4; bit < 32; ++bit) {
        const scmp_datum_t flag = scmp_datum_t(1) << bit;
        if ((flag & kTypeWithoutFlags) &&
            !refuse(ctx, socketNr, {SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag)}, error))
            return false;
    }
    if (!inet)
        return true;
    for (const scmp_datum_t family : {scmp_datum_t(AF_INET), scmp_datum_t(AF_INET6)}) {
        const scmp_arg_cmp isFamily = SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, family);
        for (scmp_datum_t type = 0; type <= kSockTypeMask; ++type) {
            const bool allowed = (type == SOCK_STREAM && grant.inetStream) ||
                                 (type == SOCK_DGRAM && grant.inetDatagram);
            if (!allowed &&
                !refuse(ctx, socketNr, {isFamily, SCMP_A1(SCMP_CMP_MASKED_EQ, kSockTypeMask, type)},
                        error))
                return false;
        }
        if (grant.inetStream &&
            !refuseOtherProtocols(ctx, socketNr, family, SOCK_STREAM, IPPROTO_TCP, error))
            return false;
        if (grant.inetDatagram &&
            !refuseOtherProtocols(ctx, socketNr, family, SOCK_DGRAM, IPPROTO_UDP, error))
            return false;
    }
    return true;
}

/// TCP Fast Open connects inside sendto/sendmsg (MSG_FASTOPEN, tcp_sendmsg_fastopen), without
/// the socket_connect LSM hook Landlock's connect rules live on (measured: test_light_network
/// reached a port the ruleset does not allow). The flag is refused on every send call.
bool refuseFastOpen(scmp_filter_ctx ctx, std::string* error) {
    struct SendCall {
        const char* name;
        unsigned flagsArg; ///< sendto(2) and sendmmsg(2): argument 3; sendmsg(2): argument 2
    };
    for (const SendCall& call :
         {SendCall{"sendto", 3}, SendCall{"sendmsg", 2}, SendCall{"sendmmsg", 3}}) {
        const int nr = seccomp_syscall_resolve_name(call.name);
        if (nr < 0)
            continue;
        const scmp_arg_cmp cmp{call.flagsArg, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN};
        if (!refuse(ctx, nr, {cmp}, error))
            return false;
    }
    return true;
}

FilterPtr build(const LightSocketGrant& grant, std::string* error) {
    FilterPtr none(nullptr, &seccomp_release);
    FilterPtr ctx(seccomp_init(SCMP_ACT_ALLOW), &seccomp_release);
    if (!ctx) {
        if (error)
            *error = "libseccomp could not create a filter context";
        return none;
    }
    if (const int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        rc != 0) {
        failWith(error, "libseccomp refused the bad-arch action", rc);
        return none;
    }
    // memfd_secret(2): its pages are in no counter the memory watchdog reads (docs/bounds.md
    // "Shared memory objects"); callers fall back to ordinary memory, as where it is disabled.
    for (const char* name :
         {"io_uring_setup", "io_uring_enter", "io_uring_register", "clone3", "memfd_secret"}) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr < 0)
            continue; // not a syscall of this architecture
        if (const int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc != 0) {
            failWith(error, std::string("libseccomp refused the rule for ") + name, rc);
            return none;
        }
    }
    // Namespaces: the supervisor made the workspace's before installing this filter; its code
    // makes none. Without this a light exec could create user namespaces and, inside them,
    // network namespaces with sockets of their own (an attack on the memory bound found it):
    // kernel surface the workspace does not need. unshare(2) and setns(2) → EPERM, clone(2)
    // with any CLONE_NEW* flag → EPERM (flags are argument 0 on x86_64 and aarch64), clone3(2)
    // → ENOSYS above, so that glibc and runtimes fall back to clone(2), whose flags can be seen.
    for (const char* name : {"unshare", "setns"}) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr < 0)
            continue;
        if (const int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0); rc != 0) {
            failWith(error, std::string("libseccomp refused the rule for ") + name, rc);
            return none;
        }
    }
    if (const int cloneNr = seccomp_syscall_resolve_name("clone"); cloneNr >= 0) {
        for (const scmp_datum_t flag : {0x00020000ULL, 0x02000000ULL, 0x04000000ULL, 0x08000000ULL,
                                        0x10000000ULL, 0x20000000ULL, 0x40000000ULL}) {
            // CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (linux/sched.h);
            // CLONE_NEWTIME (0x80) is the exit signal's byte in clone(2) and not a flag there.
            if (const int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), cloneNr, 1,
                                                SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
                rc != 0) {
                failWith(error, "libseccomp refused the rule for clone", rc);
                return none;
            }
        }
    }
    // System V IPC: a light workspace shares the host's IPC namespace, where segments, queues
    // and semaphore sets outlive the workspace (and its uid's next tenant could attach them)
    // and their memory is no process's (svipc(7)). Refused as ENOSYS, like a kernel built
    // without CONFIG_SYSVIPC; POSIX shared memory needs /dev/shm, which light does not grant.
    // POSIX message queues live in the host's IPC namespace too (an mqueue made by a workspace
    // outlived it): mq_open is refused the same way.
    for (const char* name :
         {"shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
          "semop", "semtimedop", "semctl", "ipc", "mq_open"}) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr < 0)
            continue; // not a syscall of this architecture (ipc(2) is i386's multiplexer)
        if (const int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc != 0) {
            failWith(error, std::string("libseccomp refused the rule for ") + name, rc);
            return none;
        }
    }
    // fallocate(2) that allocates → EOPNOTSUPP, as in the strong tier (SeccompFilter.cpp): one
    // call reserves gigabytes faster than the workspace quota watcher can look. Only
    // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (3), which frees blocks, stays.
    if (const int nr = seccomp_syscall_resolve_name("fallocate"); nr >= 0) {
        if (const int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EOPNOTSUPP), nr, 1,
                                            SCMP_A1(SCMP_CMP_NE, 3));
            rc != 0) {
            failWith(error, "libseccomp refused the rule for fallocate", rc);
            return none;
        }
    }
    if (!addSocketRules(ctx.get(), grant, error) || !refuseFastOpen(ctx.get(), error))
        return none;
    return ctx;
}

} // namespace

bool LightSeccompProfile::compile(const LightSocketGrant& grant, std::vector<sock_filter>* program,
                                  std::string* error) {
#if defined(__x86_64__)
    constexpr std::uint32_t expected = SCMP_ARCH_X86_64;
#elif defined(__aarch64__)
    constexpr std::uint32_t expected = SCMP_ARCH_AARCH64;
#else
    constexpr std::uint32_t expected = 0;
#endif
    if (expected == 0 || seccomp_arch_native() != expected) {
        if (error)
            *error = "the light seccomp profile is only built for x86_64 and aarch64";
        return false;
    }
    const FilterPtr ctx = build(grant, error);
    if (!ctx)
        return false;
    // libseccomp 2.5 exports only to a descriptor: a memfd, read back whole.
    const int fd = ::memfd_create("runbox-light-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        return failWith(error, "memfd_create", errno);
    const int rc = seccomp_export_bpf(ctx.get(), fd);
    const off_t size = ::lseek(fd, 0, SEEK_END);
    bool ok = rc == 0 && size > 0 && size % off_t(sizeof(sock_filter)) == 0 &&
              size <= off_t(BPF_MAXINSNS * sizeof(sock_filter));
    if (ok) {
        program->assign(std::size_t(size) / sizeof(sock_filter), sock_filter{});
        ok = ::pread(fd, program->data(), std::size_t(size), 0) == ssize_t(size);
    }
    ::close(fd);
    if (!ok) {
        program->clear();
        if (error)
            *error = rc != 0 ? std::string("libseccomp could not export the light profile: ") +
                                   std::strerror(-rc)
                             : "libseccomp exported a malformed light profile (" +
                                   std::to_string(size) + " bytes)";
    }
    return ok;
}

bool LightSeccompProfile::compileAll(Set* set, std::string* error) {
    for (int index = 0; index < 4; ++index) {
        const LightSocketGrant grant{(index & 1) != 0, (index & 2) != 0};
        if (!compile(grant, &set->programs[index], error))
            return false;
    }
    return true;
}

bool LightSeccompProfile::install(const std::vector<sock_filter>& program, std::string* error) {
    if (program.empty()) {
        if (error)
            *error = "no seccomp program was prepared";
        errno = EINVAL;
        return false;
    }
    sock_fprog fprog{};
    fprog.len = static_cast<unsigned short>(program.size());
    fprog.filter = const_cast<sock_filter*>(program.data());
    // No flags: the supervisor is single-threaded (no TSYNC), and the filter's own errors are
    // what it should answer (no SECCOMP_FILTER_FLAG_LOG).
    if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) {
        const int err = errno;
        failWith(error, "seccomp(SECCOMP_SET_MODE_FILTER)", err);
        errno = err;
        return false;
    }
    return true;
}

} // namespace runbox::light
