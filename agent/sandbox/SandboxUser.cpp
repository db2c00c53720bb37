#include "agent/sandbox/SandboxUser.h"

#include <QFile>

#include <cerrno>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::sandbox {

namespace {

int lastCapability() {
    QFile file(QStringLiteral("/proc/sys/kernel/cap_last_cap"));
    bool ok = false;
    const int value = file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toInt(&ok) : 0;
    return ok && value > 0 && value < 64 ? value : 63;
}

long rawSyscall(long number, long a = 0, long b = 0, long c = 0) {
    const long r = ::syscall(number, a, b, c);
    return r < 0 ? -errno : r;
}

} // namespace

bool SandboxUser::prepare(Prepared* out) const {
    if (uid == 0 || groups.size() > qsizetype(sizeof out->groups / sizeof out->groups[0]))
        return false;
    out->uid = uid;
    out->groupCount = int(groups.size());
    for (qsizetype i = 0; i < groups.size(); ++i)
        out->groups[i] = groups[i];
    out->lastCap = lastCapability();
    return true;
}

int SandboxUser::dropInChild(const Prepared& p) noexcept {
    if (p.uid == 0)
        return EPERM;
    // The bounding set first, while CAP_SETPCAP is still held (EPERM without it: an agent with
    // only some capabilities keeps its bounding set, but holds nothing below after capset).
    for (int cap = 0; cap <= p.lastCap; ++cap)
        rawSyscall(SYS_prctl, PR_CAPBSET_DROP, cap);
    if (const long r = rawSyscall(SYS_setgroups, p.groupCount, long(p.groups)); r < 0)
        return int(-r);
    if (const long r = rawSyscall(SYS_setresgid, long(p.uid), long(p.uid), long(p.uid)); r < 0)
        return int(-r);
    if (const long r = rawSyscall(SYS_setresuid, long(p.uid), long(p.uid), long(p.uid)); r < 0)
        return int(-r);
    // From uid 0 to non-zero the kernel clears permitted, effective and ambient; from another
    // non-zero uid (an agent with file or ambient capabilities) it does not, and bwrap refuses
    // to start with capabilities it did not get from a set-user-ID install. Clear all of them.
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (const long r = rawSyscall(SYS_capset, long(&header), long(data)); r < 0)
        return int(-r);
    ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (rawSyscall(SYS_getuid) != long(p.uid) || rawSyscall(SYS_geteuid) != long(p.uid) ||
        rawSyscall(SYS_getgid) != long(p.uid) || rawSyscall(SYS_getegid) != long(p.uid))
        return EPERM;
    __user_cap_data_struct check[2] = {};
    if (rawSyscall(SYS_capget, long(&header), long(check)) < 0 || check[0].permitted ||
        check[1].permitted || check[0].inheritable || check[1].inheritable)
        return EPERM;
    return 0;
}

int clearInheritedCapabilities() noexcept {
    // prctl(2) with all five arguments: PR_CAP_AMBIENT wants arguments 4 and 5 zero (EINVAL).
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
        return errno;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (const long r = rawSyscall(SYS_capget, long(&header), long(data)); r < 0)
        return int(-r);
    data[0].inheritable = data[1].inheritable = 0; // lowering a set is always allowed
    if (const long r = rawSyscall(SYS_capset, long(&header), long(data)); r < 0)
        return int(-r);
    __user_cap_data_struct check[2] = {};
    if (rawSyscall(SYS_capget, long(&header), long(check)) < 0 || check[0].inheritable ||
        check[1].inheritable ||
        ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SETUID, 0, 0) != 0)
        return EPERM;
    return 0;
}

bool agentIsPrivileged() {
    if (::geteuid() == 0)
        return true;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0)
        return true; // cannot tell: treat as privileged (fail closed)
    return data[0].permitted || data[1].permitted || data[0].effective || data[1].effective;
}

} // namespace runbox::sandbox
