#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace runbox::sandbox {

/// How /proc is given to the sandbox.
enum class ProcMode {
    New,  ///< `--proc /proc`: a fresh procfs of the sandbox's own PID namespace
    Bind, ///< `--ro-bind /proc /proc` fallback: the sandbox sees the host's process list
};

/// What the probe concluded about `--disable-userns` (blocks nested user namespaces).
enum class UsernsBlocking {
    Supported,      ///< option works: nested user namespaces are blocked
    OptionUnknown,  ///< bwrap older than 0.8 does not know the option
    OptionRejected, ///< option known but refused (e.g. read-only /proc/sys under LXC)
    Unusable,       ///< no sandbox could be built at all
};

/// Conclusion of the start-up capability probe for one bwrap binary. Immutable once built.
struct SandboxCapability {
    QString bwrapPath;    ///< resolved absolute path of the binary probed
    QString bwrapVersion; ///< first line of `bwrap --version`, empty if unknown
    bool usable = false;  ///< a sandbox can be built; when false nothing runs
    ProcMode procMode = ProcMode::New;
    UsernsBlocking usernsBlocking = UsernsBlocking::Unusable;
    /// bwrap sizes tmpfs mounts (`--size`, bwrap 0.7.0) and remounts /dev read-only: the
    /// sandbox's /tmp and /dev/shm are bounded (docs/bounds.md "tmpfs").
    bool sizedTmpfs = false;
    QString detail;         ///< last meaningful bwrap stderr line of the failure that decided
    QString procDetail;     ///< why `--proc /proc` was refused, when procMode == Bind
    QStringList warnings;   ///< one operator-facing sentence per degradation, naming what is lost
    QString unusableReason; ///< full explanation with sysctl hints when !usable

    /// One readable line for the start-up log, e.g.
    /// "sandbox: bubblewrap 0.8.0 usable; /proc new; nested userns blocked; seccomp x86_64".
    QString summaryLine() const;
    /// `{"usable","bwrapPath","bwrapVersion","procMode":"new"|"bind","nestedUserns":
    ///   "blocked"|"option-unknown"|"option-rejected"|"unusable","sizedTmpfs","detail","procDetail",
    ///   "warnings":[…],"unusableReason"}` as shown in /v1/health (strings empty when unset).
    QJsonObject toJson() const;
};

/// "new" or "bind" (the `procMode` value of toJson()).
QString toString(ProcMode mode);
/// The `nestedUserns` value of toJson(): "blocked" (Supported), "option-unknown",
/// "option-rejected" or "unusable".
QString toString(UsernsBlocking blocking);

} // namespace runbox::sandbox
