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

    /// Creates `root/<id>` 0700 owned by @p uid:@p gid with `.tmp` (0700, same owner) inside.
    /// Returns an O_PATH fd on the new home, or −1 with @p error (nothing is left behind).
    static int create(int rootFd, const QByteArray& id, uid_t uid, gid_t gid, QString* error);

    /// Removes `root/<id>` and everything below it (or only what is below it when
    /// @p keepTop). Symlinks are removed, never followed; a directory on another device (a mount)
    /// is refused. True when done; a missing home counts as done.
    static bool remove(int rootFd, const QByteArray& id, bool keepTop, QString* error);
};

} // namespace runbox::light
