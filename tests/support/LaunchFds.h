#pragma once

#include "agent/sandbox/SandboxLaunch.h"

namespace runbox::testsupport {

/// The path behind descriptor @p childFd of @p launch (e.g. sandbox::LaunchFd::kSeccomp), empty
/// when it hands over no such file.
inline QString fdPath(const sandbox::SandboxLaunch& launch, int childFd) {
    for (const sandbox::FdBinding& b : launch.fds)
        if (b.childFd == childFd && !b.isData)
            return b.path;
    return {};
}

} // namespace runbox::testsupport
