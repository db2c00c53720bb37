#include "agent/light/LightProbe.h"

#include "agent/light/helper/LandlockRuleset.h"

#include <QFileInfo>

namespace runbox::light {

LightAvailability LightProbe::run(const LightHostConfig& config) {
    LightAvailability result;
    result.privileges = LightPrivileges::check();
    std::string why;
    const int abi = LandlockRuleset::probeAbi(&why);
    const bool pidNamespace = config.pidNamespace && result.privileges.canUsePidNamespace;
    result.expected.landlockAbi = abi;
    result.expected.filesystem = abi >= 1;
    result.expected.network = abi >= 4;
    result.expected.scopeAbstractUnix = result.expected.scopeSignal = abi >= 6;
    result.expected.pidNamespace = pidNamespace;
    result.expected.privateProc = pidNamespace && config.privateProc;
    result.expected.hostRuntimeDirsMasked = result.expected.privateProc;
    result.expected.seccomp = true; // the supervisor refuses to start without it
    for (const char* dir : {"/run/", "/tmp/", "/var/tmp/", "/dev/shm/"}) {
        if (config.workspaceRoot.startsWith(QLatin1String(dir)))
            result.expected.hostRuntimeDirsMasked = false;
    }
    if (!result.privileges.sufficient) {
        result.reason = result.privileges.reason;
    } else if (abi < config.minLandlockAbi || abi < 1) {
        result.reason =
            QStringLiteral("Landlock ABI %1 is below the required %2%3")
                .arg(abi)
                .arg(config.minLandlockAbi)
                .arg(why.empty() ? QString()
                                 : QStringLiteral(" (%1)").arg(QString::fromStdString(why)));
    } else if (!QFileInfo(config.supervisorPath).isExecutable()) {
        result.reason = QStringLiteral("supervisor binary %1 is missing or not executable")
                            .arg(config.supervisorPath);
    } else if (!config.workspaceRoot.startsWith(QLatin1Char('/'))) {
        result.reason = QStringLiteral("the light workspace root must be an absolute path");
    } else {
        result.available = true;
    }
    if (abi < 4)
        result.warnings << QStringLiteral("Landlock ABI %1 < 4: TCP bind/connect are not "
                                          "restricted")
                               .arg(abi);
    if (abi < 6)
        result.warnings << QStringLiteral("Landlock ABI %1 < 6: abstract unix sockets and "
                                          "signals are not scoped")
                               .arg(abi);
    if (!result.expected.hostRuntimeDirsMasked)
        result.warnings << QStringLiteral("world-writable host unix sockets under /run, /tmp, "
                                          "/var/tmp or /dev/shm are reachable by path (needs a "
                                          "private /proc mount namespace and a workspace root "
                                          "outside those directories)");
    if (!pidNamespace)
        result.warnings << QStringLiteral("no PID namespace per workspace (needs CAP_SYS_ADMIN): "
                                          "deletion relies on the uid sweep, and /proc shows "
                                          "other processes' metadata");
    return result;
}

} // namespace runbox::light
