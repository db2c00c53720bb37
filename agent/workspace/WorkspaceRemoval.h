#pragma once

#include "agent/workspace/WorkspaceResult.h"
#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QByteArray>

namespace runbox::workspace {

/// Deletion through descriptors only (docs/contracts.md "Workspace file API";
/// docs/light-workspaces.md "Lifecycle"). A symlink is removed as a link (its target is never
/// touched), a directory's contents are walked with WorkspaceTreeWalker (never following a link),
/// and directories made unreadable or unwritable by sandboxed code (mode 000/555) are given u+rwx
/// through a pinned descriptor first, so sandboxed code cannot make its own tree undeletable.
class WorkspaceRemoval final {
public:
    /// Removes entry @p name of directory @p parentFd (any descriptor, O_PATH included).
    /// Non-directories (files, symlinks, FIFOs, sockets) are unlinked; a directory is removed
    /// when empty, or with @p recursive after its contents. A concurrent swap (directory ↔
    /// link) is retried a few times, then 409 tree_changed. Errors: 404 not_found,
    /// 409 directory_not_empty (not recursive), 403 permission_denied.
    /// @p pathForErrors: workspace-relative path for messages.
    static Status removeEntry(int parentFd, const QByteArray& name, bool recursive,
                              const QByteArray& pathForErrors);

    /// Removes everything inside the directory @p dirFd, which stays. Retries a few passes
    /// while entries keep appearing (a still-running writer), then 409 directory_not_empty.
    /// Linear in the entries at any depth: a directory deeper than the walk enters
    /// (WorkspaceTreeWalker::maxDepth() of @p maxOpenDirectories) is moved up into @p dirFd
    /// and removed by a later pass.
    static Status removeContents(int dirFd, const QByteArray& pathForErrors,
                                 int maxOpenDirectories = WorkspaceTreeWalker::kMaxOpenDirectories);
};

} // namespace runbox::workspace
