#pragma once

#include <QString>

namespace runbox::sandbox {

/// The seccomp profiles (libseccomp BPF) a sandbox runs under. The deny list, the errno values
/// and the architecture rules are documented in SeccompFilter.cpp and docs/sandbox.md.
enum class SeccompProfileKind {
    Baseline, ///< network none: the socket family is denied too
    Network,  ///< egress through the bridge: AF_UNIX/AF_INET/AF_INET6 stream and datagram
              ///< sockets only (no raw, packet, netlink, MPTCP…); everything else as baseline
    Npu,      ///< NPU passthrough: sockets allowed (CANN needs them), netns stays private
    /// Network none, but a unix stream socket to listen on and accept the port proxy's
    /// connections (socket: AF_UNIX SOCK_STREAM only; socketpair, connect, sendmsg, sendmmsg
    /// refused): an execution served through the port proxy (ProxyStage).
    UnixSockets,
};

/// Every profile, as the agent publishes them at start-up.
inline constexpr SeccompProfileKind kAllSeccompProfileKinds[] = {
    SeccompProfileKind::Baseline, SeccompProfileKind::Network, SeccompProfileKind::Npu,
    SeccompProfileKind::UnixSockets};

QString toString(SeccompProfileKind kind);

/// Builds a profile with libseccomp and publishes it as a BPF file for `bwrap --seccomp FD`.
class SeccompProfile final {
public:
    /// Exports the profile to `<stateDir>/seccomp/<kind>-<arch>.bpf`, mode 0600, published
    /// atomically (write to a temp file, rename: a launch that already opened the old file keeps
    /// a whole program). Re-exports at most once per process and kind. Returns the path, or an
    /// empty string with @p error set when libseccomp refused.
    /// Thread-safe. The file is re-exported (new inode) only when it no longer is the one this
    /// process published (removed or replaced) or after resetCacheForTests(). The directory
    /// `<stateDir>/seccomp` is created with mode 0700.
    static QString publish(SeccompProfileKind kind, const QString& stateDir, QString* error);
    /// Forgets what was published, so the next publish() exports again (tests only).
    static void resetCacheForTests();
    /// Native architecture name as used in file names and health ("x86_64", "aarch64").
    static QString nativeArch();
};

} // namespace runbox::sandbox
