#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::bounds {

/// Whether this process holds CAP_SYS_ADMIN in its effective set (capget(2)): what quotactl(2)
/// Q_SETQUOTA and setns(2) into another network namespace need.
inline bool holdsEffectiveCapSysAdmin() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    return (data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32))) != 0;
}

} // namespace runbox::bounds
