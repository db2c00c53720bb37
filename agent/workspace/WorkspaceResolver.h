#pragma once

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspacePath.h"
#include "agent/workspace/WorkspaceResult.h"

#include <sys/types.h>

#include <optional>
#include <vector>

namespace runbox::workspace {

/// A directory made by WorkspaceResolver::makeDirectories: pinned parent, name, identity.
struct CreatedDirectory {
    UniqueFd parent; ///< O_PATH descriptor of the directory it was made in
    QByteArray name;
    dev_t dev = 0;
    ino_t ino = 0;
};

/// Owner given to files and directories the file API creates (light workspaces: the
/// workspace's uid/gid; strong ones under a root agent: docs/contracts.md "Sandbox uids"). Applied
/// with fchown on the new descriptor, never by name.
struct WorkspaceOwner {
    uid_t uid = 0;
    gid_t gid = 0;
};

/// Resolves workspace paths to directory descriptors, by the kernel, from the workspace root
/// descriptor (docs/contracts.md "Workspace file API"). Every lookup is `openat2(2)` with
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` (Linux ≥ 5.6), so no
/// symlink anywhere in the path is followed and nothing can resolve outside the root. Where
/// openat2 is unavailable (ENOSYS, or EPERM from a container's seccomp filter; probed once) each
/// component is opened in turn with `openat(O_NOFOLLOW | O_DIRECTORY)`, which gives the same
/// guarantees for the already-validated segments of a WorkspacePath (no `..`, no '/').
///
/// Only directories are opened here; callers act on the last component with *at() calls
/// relative to the returned parent descriptor and AT_SYMLINK_NOFOLLOW / O_NOFOLLOW, so a
/// concurrent swap of a directory for a symlink can at worst make an operation fail (ELOOP,
/// ENOENT), never reach outside the workspace. Stateless and thread-safe.
class WorkspaceResolver final {
public:
    /// True when openat2 is used (probed once per process); false means the per-component
    /// fallback. For `/v1/health`.
    static bool usingOpenat2();
    /// Tests only: force the per-component fallback even when openat2 works.
    static void setForceFallbackForTesting(bool force);

    /// Opens directory @p dir beneath @p rootFd with @p flags (O_PATH or O_RDONLY; O_DIRECTORY
    /// and O_CLOEXEC are added). Errors: 404 not_found, 400 symlink_not_followed,
    /// 400 not_a_directory, 403 permission_denied (WorkspaceResult.h).
    static Result<UniqueFd> openDirectory(int rootFd, const WorkspacePath& dir, int flags);

    /// Opens directory @p dir, creating each missing component with mkdirat under its (already
    /// opened) parent, mode @p mode exactly (fchmod after creation, so the umask does not
    /// apply), fchown'ed to @p owner when given. Returns the directory, opened O_PATH.
    /// With @p created, each directory this call made is appended to it (outermost first), so
    /// that a failed operation can take them back with removeCreated().
    static Result<UniqueFd> makeDirectories(int rootFd, const WorkspacePath& dir, mode_t mode,
                                            const std::optional<WorkspaceOwner>& owner,
                                            std::vector<CreatedDirectory>* created = nullptr);
    /// Removes the directories in @p created, innermost first, each only if the name still
    /// refers to the very directory that was made (same device and inode) and it is empty
    /// (rmdir(2) refuses otherwise: whatever someone put there since stays, with its parents).
    /// Clears @p created. Never follows a link (unlinkat on the pinned parent).
    static void removeCreated(std::vector<CreatedDirectory>* created);

    /// Opens the directory that holds the last segment of @p path (O_PATH); with
    /// @p createParents it is created like makeDirectories(…, 0755, owner).
    /// The root has no parent: 400 invalid_path.
    static Result<UniqueFd> openParent(int rootFd, const WorkspacePath& path, bool createParents,
                                       const std::optional<WorkspaceOwner>& owner,
                                       std::vector<CreatedDirectory>* created = nullptr);

    /// Opens one validated @p name inside directory @p dirFd with @p flags without following a
    /// symlink (openat2 RESOLVE_NO_SYMLINKS or openat O_NOFOLLOW). Returns -1 and sets errno.
    static int openOne(int dirFd, const QByteArray& name, int flags, mode_t mode = 0);

    /// chmod of the very inode behind @p pinnedFd (an O_PATH descriptor) through
    /// /proc/self/fd/N, never a name lookup. Returns 0 or -1 with errno.
    static int chmodPinned(int pinnedFd, mode_t mode);
};

} // namespace runbox::workspace
