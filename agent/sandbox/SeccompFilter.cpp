#include "agent/sandbox/SeccompFilter.h"

#include <QLoggingCategory>

#include <memory>

#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/socket.h>

// The rules (docs/sandbox.md "seccomp profiles", docs/contracts.md "Strong sandbox"; numbers
// per architecture come from libseccomp):
// - Default action ALLOW: this is a deny list on top of bwrap's namespaces and --cap-drop ALL.
// - Only the native architecture (x86_64 or aarch64) is in the filter. Every other audit arch
//   (i386 via int 0x80, arm32 compat) hits the bad-arch action, KILL_PROCESS; on x86_64
//   libseccomp also sends x32 syscalls (nr | 0x40000000, same audit arch) to the bad-arch
//   action when SCMP_ARCH_X32 is not in the filter. Never KILL_THREAD: a half-killed
//   multi-threaded process can deadlock.
// - EPERM for everything denied, except clone3, io_uring_* and memfd_secret which get ENOSYS:
//   glibc (2.34+) and runtimes fall back from clone3 to clone on ENOSYS (threads keep working,
//   and clone's flags can be inspected while clone3's live behind a pointer), io_uring users
//   fall back to plain syscalls, and memfd_secret(2) users to ordinary memory, as on the many
//   kernels without it. A secret memory area's pages are in no counter the memory watchdog can
//   read (not Shmem, not statm, st_blocks 0: 256 MiB held unmapped showed nowhere), so they
//   would escape maxMemoryBytes (docs/bounds.md "Shared memory objects").
// - Conditional rules: clone(2) with any CLONE_NEW* flag (flags are argument 0 on both x86_64
//   and aarch64; only the tls/child_tid order differs between them, CLONE_BACKWARDS; s390's
//   stack-first order does not concern us); personality(2) other than PER_LINUX (0) or the
//   query 0xffffffff; ioctl(2) TIOCSTI / TIOCLINUX. personality and ioctl take an `unsigned
//   int` in the kernel, so the comparison is on the low 32 bits of the argument: a value with
//   high bits set must not slip past. fallocate(2) in any mode that allocates (everything but
//   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) gets EOPNOTSUPP, the answer of a filesystem
//   without it: one call reserves gigabytes in microseconds (36 GiB/s measured here, against
//   ~0.3–2 GiB/s for write(2)), far past the workspace quota before any watcher can look
//   (docs/bounds.md "Disk"); glibc's posix_fallocate then writes the blocks instead.
//   shmget(2) of a segment larger than SeccompFilter::kMaxSysvSegmentBytes gets EINVAL, the
//   answer past SHMMAX: a segment no process has attached holds its pages in the sandbox's own
//   IPC namespace, where no counter the memory watchdog can read shows them (docs/bounds.md
//   "Shared memory objects"), so what it can hold that way is bounded instead, at shmmni (4096
//   in a fresh IPC namespace) x 64 KiB = 256 MiB. PostgreSQL's interlock segment is a page.
// - Network profile (egress through the bridge, agent/egress/README.md): socket(2) is allowed
//   only for domain AF_UNIX / AF_INET / AF_INET6, type SOCK_STREAM / SOCK_DGRAM (plus the
//   SOCK_NONBLOCK / SOCK_CLOEXEC flags) and protocol 0 / IPPROTO_TCP / IPPROTO_UDP, and not for
//   AF_UNIX SOCK_DGRAM; socketpair(2) only for SOCK_STREAM; everything else is EPERM: raw and
//   packet sockets, netlink, IPPROTO_MPTCP (262), SCTP, vsock, unix datagrams (the memory a
//   closed sender left queued on a unix datagram receiver is listed nowhere, so no bound could
//   count it: docs/bounds.md "Unix socket buffers") …
//   libseccomp compares each argument once per rule, so each refused value (or range) is its own
//   rule. The kernel reads all three arguments as `int` (socket(2)): exact values are compared on
//   the low 32 bits; the "greater than" rules compare all 64 bits, which refuses every value with
//   high bits set (harmless: no valid call has any).
// - UnixSockets profile (an execution served through the port proxy): it may listen on a unix
//   stream socket and accept the agent's connections, nothing more. socket(2) only for AF_UNIX
//   (all 64 bits compared) and SOCK_STREAM (the low 4 bits of the type); socketpair(2),
//   connect(2), sendmsg(2) and sendmmsg(2) are refused, so the sandbox can neither pair its own
//   sockets, whose buffers are kernel memory no bound counts in a strong sandbox, nor pass a
//   descriptor in flight (SCM_RIGHTS: a memfd held only by a socket queue); its only peers are
//   the proxy's connections, which the agent reads.

namespace runbox::sandbox {
namespace {

Q_LOGGING_CATEGORY(lcSeccomp, "runbox.sandbox.seccomp")

struct Denial {
    const char* name;
    int errnoValue;
    bool socketFamily; ///< allowed by the network and NPU profiles
};

// clang-format off
constexpr Denial kDenials[] = {
    // The socket family: network none means no sockets at all, not even AF_UNIX.
    {"socket", EPERM, true}, {"socketpair", EPERM, true}, {"connect", EPERM, true},
    {"bind", EPERM, true}, {"listen", EPERM, true}, {"accept", EPERM, true},
    {"accept4", EPERM, true},
    // Debugging and reaching into other processes.
    {"ptrace", EPERM, false}, {"process_vm_readv", EPERM, false},
    {"process_vm_writev", EPERM, false}, {"kcmp", EPERM, false},
    {"perf_event_open", EPERM, false},
    // Mounts (old and new API) and namespaces.
    {"mount", EPERM, false}, {"umount2", EPERM, false}, {"pivot_root", EPERM, false},
    {"open_tree", EPERM, false}, {"move_mount", EPERM, false}, {"fsopen", EPERM, false},
    {"fsconfig", EPERM, false}, {"fsmount", EPERM, false}, {"fspick", EPERM, false},
    {"mount_setattr", EPERM, false}, {"unshare", EPERM, false}, {"setns", EPERM, false},
    {"open_by_handle_at", EPERM, false}, {"name_to_handle_at", EPERM, false},
    // Host administration.
    {"swapon", EPERM, false}, {"swapoff", EPERM, false}, {"reboot", EPERM, false},
    {"kexec_load", EPERM, false}, {"kexec_file_load", EPERM, false},
    {"init_module", EPERM, false}, {"finit_module", EPERM, false},
    {"delete_module", EPERM, false}, {"acct", EPERM, false}, {"quotactl", EPERM, false},
    // Kernel keyring, eBPF, userfaultfd.
    {"add_key", EPERM, false}, {"request_key", EPERM, false}, {"keyctl", EPERM, false},
    {"bpf", EPERM, false}, {"userfaultfd", EPERM, false},
    // ENOSYS so that callers fall back (see above).
    {"clone3", ENOSYS, false}, {"io_uring_setup", ENOSYS, false},
    {"io_uring_enter", ENOSYS, false}, {"io_uring_register", ENOSYS, false},
    {"memfd_secret", ENOSYS, false},
    // SysV message queues: kernel memory no counter shows (msgmni 32000 queues of msgmnb 16 KiB
    // in a fresh IPC namespace, 500 MiB), as light refuses them (LightSeccompProfile).
    {"msgget", ENOSYS, false},
    // SysV semaphore sets: kernel memory too (semmni 32000 sets of semmsl 32000, ~45 GiB),
    // 4.9 GiB held under a 256 MiB limit; and POSIX message queues. Both ENOSYS, as light.
    {"semget", ENOSYS, false}, {"mq_open", ENOSYS, false},
};
// clang-format on

/// CLONE_NEW* flags valid in clone(2). CLONE_NEWTIME (0x80) is left out on purpose: in clone(2)
/// the low byte is the exit signal (CSIGNAL), so 0x80 is not a namespace flag there; unshare
/// and clone3, the only ways to ask for a time namespace, are refused outright.
constexpr scmp_datum_t kCloneNamespaceFlags[] = {
    0x00020000, // CLONE_NEWNS
    0x02000000, // CLONE_NEWCGROUP
    0x04000000, // CLONE_NEWUTS
    0x08000000, // CLONE_NEWIPC
    0x10000000, // CLONE_NEWUSER
    0x20000000, // CLONE_NEWPID
    0x40000000, // CLONE_NEWNET
};

constexpr scmp_datum_t kLow32 = 0xffffffffULL;
constexpr scmp_datum_t kTiocsti = 0x5412;   // asm-generic/ioctls.h, same on both arches
constexpr scmp_datum_t kTioclinux = 0x541C; // asm-generic/ioctls.h
/// FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (linux/falloc.h): frees blocks, never allocates.
constexpr scmp_datum_t kFallocatePunchHole = 0x02 | 0x01;
/// The largest SysV shared memory segment shmget(2) may make (bytes): see the rules above.
constexpr scmp_datum_t kMaxSysvSegmentBytes = SeccompFilter::kMaxSysvSegmentBytes;

using FilterPtr = std::unique_ptr<void, decltype(&seccomp_release)>;

bool sameArchAsBuild(QString* error) {
#if defined(__x86_64__)
    constexpr uint32_t expected = SCMP_ARCH_X86_64;
#elif defined(__aarch64__)
    constexpr uint32_t expected = SCMP_ARCH_AARCH64;
#else
    constexpr uint32_t expected = 0;
#endif
    if (expected == 0 || seccomp_arch_native() != expected) {
        *error = QStringLiteral("seccomp profiles are only built for x86_64 and aarch64; this "
                                "agent runs on another architecture");
        return false;
    }
    return true;
}

/// The syscall number on the native arch, or -1 (with a logged note) when this libseccomp does
/// not know the name there.
int resolve(const char* name) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR || nr < 0) {
        qCInfo(lcSeccomp,
               "seccomp: libseccomp %u.%u.%u does not know syscall %s on this "
               "architecture; no rule added for it",
               seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro, name);
        return -1;
    }
    return nr;
}

bool addRule(scmp_filter_ctx ctx, int errnoValue, int nr, const char* name, unsigned count,
             const scmp_arg_cmp* cmp, QString* error) {
    const int rc =
        seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(uint32_t(errnoValue)), nr, count, cmp);
    if (rc != 0) {
        *error = QStringLiteral("libseccomp refused the rule for %1: %2")
                     .arg(QString::fromLatin1(name), QString::fromLocal8Bit(std::strerror(-rc)));
        return false;
    }
    return true;
}

bool addConditionalRules(scmp_filter_ctx ctx, QString* error) {
    if (const int clone = resolve("clone"); clone >= 0) {
        for (const scmp_datum_t flag : kCloneNamespaceFlags) {
            const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
            if (!addRule(ctx, EPERM, clone, "clone", 1, &cmp, error))
                return false;
        }
    }
    if (const int personality = resolve("personality"); personality >= 0) {
        // Allowed: low 32 bits all 0 (PER_LINUX) or all 1 (the 0xffffffff query). Any other
        // value has two adjacent bits that differ, which is what each rule matches.
        for (unsigned bit = 0; bit < 31; ++bit) {
            const scmp_datum_t low = scmp_datum_t(1) << bit;
            const scmp_datum_t pair = low | (low << 1);
            for (const scmp_datum_t value : {low, low << 1}) {
                const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, pair, value);
                if (!addRule(ctx, EPERM, personality, "personality", 1, &cmp, error))
                    return false;
            }
        }
    }
    if (const int ioctl = resolve("ioctl"); ioctl >= 0) {
        for (const scmp_datum_t request : {kTiocsti, kTioclinux}) {
            const scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, kLow32, request);
            if (!addRule(ctx, EPERM, ioctl, "ioctl", 1, &cmp, error))
                return false;
        }
    }
    if (const int fallocate = resolve("fallocate"); fallocate >= 0) {
        // The kernel reads mode as int; a mode with high bits set is refused too (harmless).
        const scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_NE, kFallocatePunchHole);
        if (!addRule(ctx, EOPNOTSUPP, fallocate, "fallocate", 1, &cmp, error))
            return false;
    }
    if (const int shmget = resolve("shmget"); shmget >= 0) {
        // size_t: all 64 bits compared.
        const scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_GT, kMaxSysvSegmentBytes);
        if (!addRule(ctx, EINVAL, shmget, "shmget", 1, &cmp, error))
            return false;
    }
    return true;
}

constexpr scmp_datum_t kSockTypeMask = 0xf; // SOCK_TYPE_MASK, include/linux/net.h

/// The UnixSockets profile's socket rules (see the rules at the top): socket(2) for AF_UNIX
/// SOCK_STREAM only (the domain's 64 bits compared; the type's low 4 bits, SOCK_TYPE_MASK);
/// socketpair, connect, sendmsg and sendmmsg refused outright.
bool addUnixListenerRules(scmp_filter_ctx ctx, QString* error) {
    const int socketNr = resolve("socket");
    if (socketNr >= 0) {
        const scmp_arg_cmp domain = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
        if (!addRule(ctx, EPERM, socketNr, "socket", 1, &domain, error))
            return false;
        for (scmp_datum_t type = 0; type <= 0xf; ++type) {
            if (type == SOCK_STREAM)
                continue;
            const scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type);
            if (!addRule(ctx, EPERM, socketNr, "socket", 1, &cmp, error))
                return false;
        }
    }
    for (const char* name : {"socketpair", "connect", "sendmsg", "sendmmsg"}) {
        const int nr = resolve(name);
        if (nr >= 0 && !addRule(ctx, EPERM, nr, name, 0, nullptr, error))
            return false;
    }
    return true;
}

/// socket(2) and socketpair(2) argument filtering of the Network profile (see the rules at the
/// top).
bool addNetworkSocketRules(scmp_filter_ctx ctx, QString* error) {
    // socketpair(2): stream pairs only. What a datagram (or seqpacket) socket received from a
    // peer that is now closed is listed nowhere (docs/bounds.md "Unix socket buffers").
    if (const int pairNr = resolve("socketpair"); pairNr >= 0)
        for (scmp_datum_t type = 0; type <= kSockTypeMask; ++type) {
            if (type == SOCK_STREAM)
                continue;
            const scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, kSockTypeMask, type);
            if (!addRule(ctx, EPERM, pairNr, "socketpair", 1, &cmp, error))
                return false;
        }
    const int socketNr = resolve("socket");
    if (socketNr < 0)
        return true;
    // AF_UNIX datagram sockets, for the same reason: an unconnected receiver held 1.3 GiB of
    // datagrams from closed senders (11 of up to 8 MiB each per receiver) that no dump shows.
    const scmp_arg_cmp unixDatagram[] = {SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, AF_UNIX),
                                         SCMP_A1(SCMP_CMP_MASKED_EQ, kSockTypeMask, SOCK_DGRAM)};
    if (!addRule(ctx, EPERM, socketNr, "socket", 2, unixDatagram, error))
        return false;
    const auto deny = [&](const scmp_arg_cmp& cmp) {
        return addRule(ctx, EPERM, socketNr, "socket", 1, &cmp, error);
    };
    // Domains: AF_UNIX (1), AF_INET (2) and AF_INET6 (10) only.
    for (scmp_datum_t domain = 0; domain <= 10; ++domain) {
        if (domain == AF_UNIX || domain == AF_INET || domain == AF_INET6)
            continue;
        if (!deny(SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, domain)))
            return false;
    }
    if (!deny(SCMP_A0(SCMP_CMP_GT, 10)))
        return false;
    // Types: SOCK_STREAM (1) and SOCK_DGRAM (2) only; SOCK_RAW, SOCK_PACKET, SOCK_SEQPACKET… no.
    for (scmp_datum_t type = 0; type <= kSockTypeMask; ++type) {
        if (type == SOCK_STREAM || type == SOCK_DGRAM)
            continue;
        if (!deny(SCMP_A1(SCMP_CMP_MASKED_EQ, kSockTypeMask, type)))
            return false;
    }
    // Protocols: 0 (the default of the domain/type), IPPROTO_TCP (6), IPPROTO_UDP (17) only.
    for (scmp_datum_t protocol = 1; protocol < IPPROTO_UDP; ++protocol) {
        if (protocol == IPPROTO_TCP)
            continue;
        if (!deny(SCMP_A2(SCMP_CMP_MASKED_EQ, kLow32, protocol)))
            return false;
    }
    return deny(SCMP_A2(SCMP_CMP_GT, IPPROTO_UDP)); // IPPROTO_MPTCP is 262
}

FilterPtr buildFilter(SeccompProfileKind kind, QString* error) {
    FilterPtr ctx(seccomp_init(SCMP_ACT_ALLOW), &seccomp_release);
    if (!ctx) {
        *error = QStringLiteral("libseccomp could not create a filter context");
        return FilterPtr(nullptr, &seccomp_release);
    }
    if (const int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        rc != 0) {
        *error = QStringLiteral("libseccomp refused the bad-arch action: %1")
                     .arg(QString::fromLocal8Bit(std::strerror(-rc)));
        return FilterPtr(nullptr, &seccomp_release);
    }
    const bool allowSockets = kind != SeccompProfileKind::Baseline;
    for (const Denial& denial : kDenials) {
        if (denial.socketFamily && allowSockets)
            continue;
        const int nr = resolve(denial.name);
        if (nr >= 0 && !addRule(ctx.get(), denial.errnoValue, nr, denial.name, 0, nullptr, error))
            return FilterPtr(nullptr, &seccomp_release);
    }
    if (!addConditionalRules(ctx.get(), error))
        return FilterPtr(nullptr, &seccomp_release);
    if (kind == SeccompProfileKind::Network && !addNetworkSocketRules(ctx.get(), error))
        return FilterPtr(nullptr, &seccomp_release);
    if (kind == SeccompProfileKind::UnixSockets && !addUnixListenerRules(ctx.get(), error))
        return FilterPtr(nullptr, &seccomp_release);
    return ctx;
}

} // namespace

bool SeccompFilter::exportBpf(SeccompProfileKind kind, int fd, QString* error) {
    if (!sameArchAsBuild(error))
        return false;
    const FilterPtr ctx = buildFilter(kind, error);
    if (!ctx)
        return false;
    if (const int rc = seccomp_export_bpf(ctx.get(), fd); rc != 0) {
        *error = QStringLiteral("libseccomp could not export the %1 profile: %2")
                     .arg(toString(kind), QString::fromLocal8Bit(std::strerror(-rc)));
        return false;
    }
    return true;
}

QStringList SeccompFilter::deniedSyscalls(SeccompProfileKind kind) {
    QStringList names;
    for (const Denial& denial : kDenials) {
        if (!denial.socketFamily || kind == SeccompProfileKind::Baseline)
            names << QString::fromLatin1(denial.name);
    }
    names << QStringLiteral("clone") << QStringLiteral("personality") << QStringLiteral("ioctl")
          << QStringLiteral("fallocate") << QStringLiteral("shmget");
    if (kind == SeccompProfileKind::Network || kind == SeccompProfileKind::UnixSockets)
        names << QStringLiteral("socket"); // raw, packet, netlink, MPTCP…: see the rules above
    if (kind == SeccompProfileKind::UnixSockets)
        names << QStringLiteral("socketpair") << QStringLiteral("connect")
              << QStringLiteral("sendmsg") << QStringLiteral("sendmmsg");
    return names;
}

} // namespace runbox::sandbox
