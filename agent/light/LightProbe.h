#pragma once

#include "agent/light/LightTypes.h"

namespace runbox::light {

/// Decides whether light workspaces may run here and what confinement they will get, without
/// starting anything: privileges (LightPrivileges), the kernel's Landlock ABI against the
/// configured minimum (fail closed below it), the supervisor binary, the root path; plus the
/// warnings that name what a weaker setup loses (no network rules below ABI 4, no scopes below 6,
/// no PID namespace, host sockets reachable by path without masking).
class LightProbe final {
public:
    static LightAvailability run(const LightHostConfig& config);
};

} // namespace runbox::light
