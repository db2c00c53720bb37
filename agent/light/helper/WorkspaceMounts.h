#pragma once

#include <string>
#include <vector>

namespace runbox::light {

/// The mounts a supervisor makes in its workspace's private mount namespace, as root, before
/// its Landlock ruleset (docs/light-workspaces.md "Supervisor"). No Qt; each returns false with
/// @p why (errno set) on failure, and the supervisor then fails closed.
class WorkspaceMounts final {
public:
    /// The path every revision is built at and its files embed (docs/environments.md).
    static constexpr const char* kEnvironmentMount = "/opt/science-env";

    /// Covers the light root with an empty read-only tmpfs and binds only @p home back at its
    /// path, so other workspaces' homes are out of sight. Landlock does not govern connect(2) on
    /// pathname unix sockets, and an owner may chmod its home: without this a workspace could
    /// reach the sockets another one publishes (docs/light-workspaces.md "Network").
    static bool hideOtherHomes(const char* home, std::string* why);

    /// The workspace's science environment (docs/environments.md "Selection"):
    /// 1. the prefix is taken by @p prefix in this namespace (openat2 without any symlink, then
    ///    open_tree: a descriptor from the agent's namespace cannot be bound here) and must be
    ///    the very directory @p prefixFd (the agent's O_PATH descriptor) is: same st_dev and
    ///    st_ino, else nothing is mounted;
    /// 2. when /opt/science-env is no directory on the host, /opt is covered by a tmpfs that holds
    ///    the host's /opt entries again (directories and files bound back recursively, symbolic
    ///    links copied, sockets, FIFOs and devices left out) and the mount point, read-only once
    ///    done; the host's /opt stays as it is;
    /// 3. each of @p masked (absolute paths under /usr/, the host interpreters
    ///    EnvironmentStage::hostInterpreters lists) that is a regular file, opened without
    ///    following any link, is covered by an empty read-only file (mode 0444) from a scratch
    ///    tmpfs; a listed path that no longer exists is skipped;
    /// 4. the prefix is bound at /opt/science-env, read-only, nosuid, nodev.
    static bool mountEnvironment(const char* prefix, int prefixFd,
                                 const std::vector<std::string>& masked, std::string* why);

    /// Whether @p path is acceptable as a masked interpreter: absolute, under /usr/, no `.` or
    /// `..` component, no empty component, at most 255 bytes (checked by the zygote at start).
    static bool validMaskedPath(const std::string& path);
};

} // namespace runbox::light
