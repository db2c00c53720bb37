#pragma once

#include <QByteArray>
#include <QString>

#include <sys/types.h>

namespace runbox::light {

/// Workspace homes on disk, handled only through directory descriptors: created with mkdirat +
/// fchownat (never following a link), removed with an unlinkat walk that never follows a symlink
/// and never crosses into another filesystem.
class HomeDirectory final {
public:
    /// Opens the workspace root @p root (created 0711 when missing; an existing one must belong to
    /// the agent's euid and not be writable by group or others, and is set to 0711 so each
    /// workspace uid can reach its own home but list nobody's). Returns an O_DIRECTORY fd or −1.
    static int openRoot(const QString& root, QString* error);

    /// Creates `root/<id>` (@p id: a home's name, 16 hex digits) 0700 owned by @p uid:@p gid with
    /// `.tmp` (0700, same owner) inside. Returns an O_PATH fd on the new home, or −1 with @p error
    /// (nothing is left behind).
    static int create(int rootFd, const QByteArray& id, uid_t uid, gid_t gid, QString* error);

    /// Removes `root/<id>` (@p id: a home's name) and everything below it (or only what is below
    /// it when @p keepTop). Symlinks are removed, never followed; a directory on another device
    /// (a mount) is refused. True when done; a missing home counts as done.
    static bool remove(int rootFd, const QByteArray& id, bool keepTop, QString* error);

    /// remove(), and when that is refused to a non-root agent (a directory the workspace made
    /// unreadable, and no CAP_DAC_OVERRIDE), empties the home in a child running as @p uid, the
    /// owner of everything in it, then removes the home itself.
    static bool removeAs(int rootFd, const QByteArray& id, uid_t uid, QString* error);

    /// Prepares the workspace root at start-up: homes left by an earlier run (16-hex-digit names)
    /// and spare homes (SpareHomes) are removed; a root without our marker file
    /// (.runbox-light-root) must be empty (then it is marked), so a misconfigured root such as
    /// /home is refused, never emptied. @p root is for messages only.
    static bool cleanStale(int rootFd, const QString& root, QString* error);
};

} // namespace runbox::light
