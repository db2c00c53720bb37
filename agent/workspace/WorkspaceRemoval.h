#pragma once

#include "agent/workspace/WorkspaceResult.h"
#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QByteArray>

#include <atomic>

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
    /// @p pathForErrors: workspace-relative path for messages. @p stop, when given and set
    /// (from any thread), ends a removal under way early with 503 `removal_stopped`, what is
    /// left staying where it is.
    static Status removeEntry(int parentFd, const QByteArray& name, bool recursive,
                              const QByteArray& pathForErrors,
                              const std::atomic<bool>* stop = nullptr);

    /// Removes everything inside the directory @p dirFd, which stays. Retries a few passes
    /// while entries keep appearing (a still-running writer), then 409 directory_not_empty.
    /// Linear in the entries at any depth: a directory deeper than the walk enters
    /// (WorkspaceTreeWalker::maxDepth() of @p maxOpenDirectories) is moved up into @p dirFd
    /// and removed by a later pass. @p stop as for removeEntry().
    static Status removeContents(int dirFd, const QByteArray& pathForErrors,
                                 int maxOpenDirectories = WorkspaceTreeWalker::kMaxOpenDirectories,
                                 const std::atomic<bool>* stop = nullptr);
};

} // namespace runbox::workspace
