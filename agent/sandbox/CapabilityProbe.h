#pragma once

#include "agent/sandbox/SandboxCapability.h"

namespace runbox::sandbox {

/// Real probe launches that decide, in order, the /proc shape and --disable-userns support
/// (issue #2; the wording follows the original runner's operator messages).
class CapabilityProbe final {
public:
    /// Probes @p bwrapPath (already through BwrapPreflight). The result is cached per binary
    /// identity (path + device + inode + size + mtime) for the life of the process, so every
    /// launcher shares one conclusion; a replaced binary is probed again.
    static SandboxCapability probe(const QString& bwrapPath);
    /// Drops the cache (tests only).
    static void resetCacheForTests();
};

} // namespace runbox::sandbox
