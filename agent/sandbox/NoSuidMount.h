#pragma once

#include <QString>

namespace runbox::sandbox {

/// Makes a directory a mount point of its own with `nosuid,nodev` for the life of this object
/// (a bind mount onto itself, then a bind remount; mount(2)), so that a set-user-ID or device
/// file that code in a workspace made gives nobody on the host its uid or a device
/// (docs/contracts.md "Sandbox uids"). Needs CAP_SYS_ADMIN in the agent's mount namespace. The
/// destructor detaches the mount it made (umount2(2) MNT_DETACH). A marker in the agent's own
/// state directory (`nosuid-<hash of the path>.mount`, holding the path; owner-only, never
/// through a link) says the mount is the agent's: after a crash the next start finds the mount
/// point, remounts it and, with its marker there, detaches it at its own clean stop; a mount
/// point without the marker (the operator's own file system there) is only remounted, never
/// detached. The marker is never beside the mount, whose parent others may be able to write.
class NoSuidMount final {
public:
    NoSuidMount() = default;
    ~NoSuidMount();
    NoSuidMount(const NoSuidMount&) = delete;
    NoSuidMount& operator=(const NoSuidMount&) = delete;

    /// Mounts @p dir (an existing directory), its marker in @p markerDir (the agent's state
    /// directory, written by the agent alone). Returns an error text, empty on success.
    QString mount(const QString& dir, const QString& markerDir);

    /// The marker in @p markerDir that says the agent made the mount at @p path (canonical).
    static QString markerPath(const QString& markerDir, const QString& path);
    /// Whether @p marker is a regular file of this user's (not a link) that names @p path.
    static bool markerNames(const QString& marker, const QString& path);

private:
    QString m_mounted; ///< canonical path of the bind mount this object made or adopted
    QString m_marker;  ///< its marker, removed once the mount is detached
};

} // namespace runbox::sandbox
