#pragma once

#include "agent/workspace/WorkspaceFd.h"

#include <QString>

namespace runbox::http {

/// The directory a unix socket is made in, opened so that no one but root and the agent's user
/// can change what its path names (docs/contracts.md "Unix socket"). Resolves the path one
/// component at a time as the kernel would (path_resolution(7)), each opened with O_NOFOLLOW
/// and checked on its descriptor (fstat(2)), symlinks followed by hand (at most 40, ELOOP):
/// - every directory passed through, the final one included, belongs to root or the agent's
///   user and is neither group- nor world-writable unless sticky;
/// - in a sticky directory others may write, the next component belongs to root or the agent's
///   user (else its owner could rename it away and put another in its place);
/// - a symlink met on the way belongs to root or the agent's user (Debian's /var/run -> /run
///   is root's; a user's link in /tmp is refused).
class SocketDirectory final {
public:
    /// Opens the directory @p path (absolute) as an O_PATH descriptor of the directory it
    /// resolves to, under the rules above. On refusal returns an invalid descriptor and sets
    /// @p error to a reason naming the component and why; @p canonical gets the resolved path
    /// (no symlink, "." or "..") on success.
    static workspace::UniqueFd open(const QString& path, QString* canonical, QString* error);
};

} // namespace runbox::http
