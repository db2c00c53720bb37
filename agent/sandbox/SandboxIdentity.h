#pragma once

#include <QByteArray>
#include <QString>

#include <sys/types.h>

namespace runbox::sandbox {

/// Synthetic /etc/passwd and /etc/group for the sandbox: one line each for the uid/gid the
/// sandboxed code runs as, home /tmp. Tools such as CANN and ssh call getpwuid(3) and fail hard
/// without an entry; the host's real files are never shown. Handed to bwrap as data
/// (`--ro-bind-data`), so no file of the agent's state dir has to be readable by the sandbox.
class SandboxIdentity final {
public:
    /// One user: uid = gid.
    struct Entry {
        uid_t uid = 0;
        QString name = QStringLiteral("runbox"); ///< [A-Za-z0-9._-] only
    };
    /// The agent's own uid/gid (an unprivileged user namespace maps it to itself) under the
    /// agent user's name, reduced to [A-Za-z0-9._-], or "runbox".
    static Entry forAgent();
    /// A sandbox user's uid (privileged agents, SandboxUser), named "runbox".
    static Entry forUid(uid_t uid) { return Entry{uid, QStringLiteral("runbox")}; }

    /// `name:x:uid:gid:Runbox sandbox:/tmp:/bin/sh\n`
    static QByteArray passwd(const Entry& entry);
    /// `name:x:gid:\n`
    static QByteArray group(const Entry& entry);
};

} // namespace runbox::sandbox
