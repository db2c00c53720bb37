#pragma once

#include <QString>

namespace runbox::light {

/// Whether this process may run light workspaces. Root, or these effective capabilities:
/// CAP_SETUID + CAP_SETGID (switch to the workspace uid), CAP_CHOWN (give it its home) and
/// CAP_KILL (end its processes, which belong to another uid). A PID namespace per workspace also
/// needs CAP_SYS_ADMIN (root has it). Source: capabilities(7), kill(2), pid_namespaces(7).
struct LightPrivileges {
    bool sufficient = false;
    bool root = false;
    bool canUsePidNamespace = false;
    QString reason; ///< why not sufficient ("" when sufficient)

    /// Reads this process's effective uid and capabilities (capget(2)).
    static LightPrivileges check();
};

} // namespace runbox::light
