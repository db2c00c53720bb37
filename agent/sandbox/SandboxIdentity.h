#pragma once

#include <QString>

namespace runbox::sandbox {

/// Synthetic /etc/passwd and /etc/group for the sandbox: one line each for the uid/gid the
/// sandboxed code runs as, home /tmp. Tools such as CANN and ssh call getpwuid(3) and fail hard
/// without an entry; the host's real files are never shown.
class SandboxIdentity final {
public:
    /// Writes `<dir>/passwd` and `<dir>/group` (0644, atomically) for the agent's own uid/gid
    /// (unprivileged user namespaces map it to itself). The user name is the agent user's,
    /// reduced to [A-Za-z0-9._-], or "runbox". Returns an error text, empty on success.
    static QString write(const QString& dir);
    static QString passwdPath(const QString& dir) { return dir + QStringLiteral("/passwd"); }
    static QString groupPath(const QString& dir) { return dir + QStringLiteral("/group"); }
};

} // namespace runbox::sandbox
