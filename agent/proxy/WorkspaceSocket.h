#pragma once

#include "agent/Error.h"

#include <QByteArray>

#include <optional>
#include <sys/types.h>

namespace runbox::proxy {

/// The unix socket a light workspace's code listens on for the port proxy
/// (docs/light-workspaces.md): `~/.runbox/proxy/<port>.sock` in its home.
class WorkspaceSocket final {
public:
    /// The path inside the home, for messages: ".runbox/proxy/<port>.sock".
    static QByteArray relativePath(int port);

    /// Connects to the socket of @p port under the home directory @p homeFd (any descriptor of
    /// the home, O_PATH is fine) without trusting anything the workspace controls:
    /// - `.runbox`, `proxy` and the socket are each opened with openat(O_PATH | O_NOFOLLOW)
    ///   from the previous descriptor, so no symlink is followed in any component (a link is
    ///   refused, never resolved, even to another workspace's or the host's socket);
    /// - the socket's inode must be a socket (S_ISSOCK) owned by @p uid (fstat);
    /// - the connection goes to that very inode (connect(2) through `/proc/self/fd/N`), so a
    ///   rename or swap after the checks changes nothing;
    /// - once connected, SO_PEERCRED must name @p uid (the listener is the workspace's own).
    /// Returns a connected non-blocking, close-on-exec SOCK_STREAM descriptor, or −1 with
    /// @p error: PermissionDenied (403) proxy_socket_refused (link, not a socket, wrong owner,
    /// wrong peer), UpstreamFailed (502) proxy_not_listening (missing, or nobody accepts),
    /// Unavailable (503) proxy_busy (backlog full).
    static int connect(int homeFd, uid_t uid, int port, Error* error);
};

} // namespace runbox::proxy
