#pragma once

#include "agent/sandbox/SeccompProfile.h"

#include <QString>
#include <QStringList>

namespace runbox::sandbox {

/// The deny list of each seccomp profile, compiled with libseccomp for the native architecture
/// only. Used by SeccompProfile::publish(); the rules are documented in SeccompFilter.cpp.
class SeccompFilter final {
public:
    /// The largest SysV shared memory segment a strong sandbox may make, in bytes (shmget(2)
    /// past it: EINVAL; SeccompFilter.cpp's rules say why).
    static constexpr unsigned long long kMaxSysvSegmentBytes = 64 * 1024;

    /// Builds the filter for @p kind and writes the classic-BPF program (the format
    /// `bwrap --seccomp FD` reads: an array of 8-byte `struct sock_filter`) to @p fd.
    /// Returns false with @p error set when libseccomp refuses or the architecture is
    /// unsupported.
    static bool exportBpf(SeccompProfileKind kind, int fd, QString* error);

    /// Names of the syscalls @p kind refuses outright or conditionally (for docs and tests),
    /// whether or not the running libseccomp knows them.
    static QStringList deniedSyscalls(SeccompProfileKind kind);
};

} // namespace runbox::sandbox
