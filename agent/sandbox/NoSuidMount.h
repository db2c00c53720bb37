#pragma once

#include <QString>

namespace runbox::sandbox {

/// Makes a directory a mount point of its own with `nosuid,nodev` for the life of this object
/// (a bind mount onto itself, then a bind remount; mount(2)), so that a set-user-ID or device
/// file that code in a workspace made gives nobody on the host its uid or a device
/// (docs/contracts.md "Sandbox uids"). Needs CAP_SYS_ADMIN in the agent's mount namespace. The
/// destructor detaches the mount it made (umount2(2) MNT_DETACH). A marker `DIR.mounted` beside
/// the directory says the mount is the agent's: after a crash the next start finds the mount
/// point, remounts it and, with the marker there, detaches it at its own clean stop; a mount
/// point without the marker (the operator's own file system there) is only remounted, never
/// detached.
class NoSuidMount final {
public:
    NoSuidMount() = default;
    ~NoSuidMount();
    NoSuidMount(const NoSuidMount&) = delete;
    NoSuidMount& operator=(const NoSuidMount&) = delete;

    /// Mounts @p dir (an existing directory). Returns an error text, empty on success.
    QString mount(const QString& dir);

    /// The marker beside @p path (a canonical directory) that says the agent made its mount.
    static QString markerPath(const QString& path);

private:
    QString m_mounted; ///< canonical path of the bind mount this object made or adopted
};

} // namespace runbox::sandbox
