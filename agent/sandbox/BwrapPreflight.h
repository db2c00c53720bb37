#pragma once

#include <QString>

namespace runbox::sandbox {

/// Checks before anything else that bwrap exists and is recent enough to sandbox at all.
class BwrapPreflight final {
public:
    /// Resolves @p bwrap (absolute path, or a name looked up in PATH as execvp would) and runs
    /// `bwrap --help`; the help must list --cap-drop --die-with-parent --new-session --seccomp
    /// --unshare-all --unshare-user. Returns an empty string and sets @p resolvedPath when fine,
    /// otherwise the operator message (what is missing, how to install it: apt, dnf, pacman, apk)
    /// on which the agent refuses to start.
    static QString check(const QString& bwrap, QString* resolvedPath);
};

} // namespace runbox::sandbox
