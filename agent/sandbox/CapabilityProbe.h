#pragma once

#include "agent/sandbox/SandboxCapability.h"
#include "agent/sandbox/SandboxUser.h"

#include <optional>

namespace runbox::sandbox {

/// Real probe launches that decide, in order, the /proc shape and --disable-userns support
/// (docs/sandbox.md "Start-up order"; the wording follows the original runner's operator messages).
class CapabilityProbe final {
public:
    /// Probes @p bwrapPath (already through BwrapPreflight). The result is cached per binary
    /// identity (path + device + inode + size + mtime) for the life of the process, so every
    /// launcher shares one conclusion; a replaced binary is probed again. With @p user (a
    /// privileged agent) every probe launch runs as that unprivileged host user, as executions
    /// will. The last probe checks that /proc/sys and /proc/sysrq-trigger are read-only inside
    /// a sandbox with the ro-binds every launch gets (BwrapCommand); if not, the sandbox is
    /// unusable (fail closed).
    static SandboxCapability probe(const QString& bwrapPath,
                                   const std::optional<SandboxUser>& user = std::nullopt);
    /// Drops the cache (tests only).
    static void resetCacheForTests();
};

} // namespace runbox::sandbox
