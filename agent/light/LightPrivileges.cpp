#include "agent/light/LightPrivileges.h"

#include <QStringList>

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::light {

LightPrivileges LightPrivileges::check() {
    LightPrivileges result;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    const bool haveCaps = ::syscall(SYS_capget, &header, data) == 0;
    const auto has = [&](int cap) {
        return haveCaps && (data[cap / 32].effective & (1u << (cap % 32)));
    };
    result.root = ::geteuid() == 0;
    result.canUsePidNamespace = has(CAP_SYS_ADMIN);
    QStringList missing;
    const std::pair<int, const char*> needed[] = {{CAP_SETUID, "CAP_SETUID"},
                                                  {CAP_SETGID, "CAP_SETGID"},
                                                  {CAP_CHOWN, "CAP_CHOWN"},
                                                  {CAP_KILL, "CAP_KILL"}};
    for (const auto& [cap, name] : needed) {
        if (!has(cap))
            missing << QLatin1String(name);
    }
    result.sufficient = missing.isEmpty();
    if (!result.sufficient)
        result.reason = QStringLiteral("light workspaces need root or the capabilities %1 "
                                       "(missing: %2)")
                            .arg(QStringLiteral("CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL"),
                                 missing.join(QStringLiteral(", ")));
    return result;
}

} // namespace runbox::light
