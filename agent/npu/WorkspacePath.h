#pragma once

#include <QString>

namespace runbox::npu {

/// Resolves a workspace-relative path given to the host broker (`${input:NAME}`) and makes sure
/// the result stays inside the workspace, following symlinks the way the kernel would
/// (realpath per component). The broker runs on the host, so this is its only fence.
class WorkspacePath final {
public:
    /// Resolves @p relative under @p workspaceRoot. Refused: empty, NUL, backslash, absolute,
    /// a `..` or empty segment, a symlink (at any depth) that leads outside the root or dangles,
    /// and a non-directory used as a directory. The path need not exist; existing components
    /// are resolved, the rest appended. Returns the absolute canonical path, or an empty string
    /// with a human reason in @p error.
    static QString resolveInside(const QString& workspaceRoot, const QString& relative,
                                 QString* error);
    /// True when @p path equals @p root or lies below it (both canonical, no trailing slash).
    static bool isInside(const QString& root, const QString& path);
};

} // namespace runbox::npu
