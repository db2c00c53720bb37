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
    /// Resolves @p bwrap as execvp(3) would (a name with '/' is taken as a path and made
    /// absolute; any other name is searched in $PATH, or the C library's default path when PATH
    /// is unset) to an executable regular file. Returns the absolute path, or an empty string
    /// with @p error set to a sentence naming what is missing.
    static QString resolve(const QString& bwrap, QString* error);
    /// The operator hint naming the install commands (apt-get, dnf, pacman, apk).
    static QString installHint();
};

} // namespace runbox::sandbox
