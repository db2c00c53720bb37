#pragma once

#include <QString>

namespace runbox::sandbox {

/// Makes a directory a mount point of its own with `nosuid,nodev` for the life of this object
/// (a bind mount onto itself, then a bind remount; mount(2)), so that a set-user-ID or device
/// file that code in a workspace made gives nobody on the host its uid or a device
/// (docs/contracts.md "Sandbox uids"). Needs CAP_SYS_ADMIN in the agent's mount namespace. The
/// destructor detaches the mount it made (umount2(2) MNT_DETACH); after a crash the next start
/// finds the mount point and only remounts it.
class NoSuidMount final {
public:
    NoSuidMount() = default;
    ~NoSuidMount();
    NoSuidMount(const NoSuidMount&) = delete;
    NoSuidMount& operator=(const NoSuidMount&) = delete;

    /// Mounts @p dir (an existing directory). Returns an error text, empty on success.
    QString mount(const QString& dir);

private:
    QString m_mounted; ///< canonical path of the bind mount this object made
};

} // namespace runbox::sandbox
