#pragma once

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspaceResult.h"

#include <QByteArray>
#include <QByteArrayView>

#include <sys/stat.h>

#include <functional>
#include <vector>

namespace runbox::workspace {

/// The entry names of one directory ('.' and '..' left out), read in one pass with readdir on
/// a duplicate of the descriptor, stored in one compact buffer (about name length + 9 bytes
/// per entry).
class DirectoryNames final {
public:
    /// Reads the names of the directory open (O_RDONLY) at @p dirFd. @p pathForErrors is the
    /// workspace-relative path used in error messages.
    static Result<DirectoryNames> read(int dirFd, const QByteArray& pathForErrors);

    qsizetype size() const { return qsizetype(m_offsets.size()); }
    /// NUL-terminated name @p i, ready for *at() calls.
    const char* cstr(qsizetype i) const { return m_blob.constData() + m_offsets[size_t(i)]; }
    QByteArrayView at(qsizetype i) const { return QByteArrayView(cstr(i)); }
    /// Sorts the names bytewise (memcmp order), for stable listings and merges.
    void sort();

private:
    QByteArray m_blob;
    std::vector<qsizetype> m_offsets;
};

/// Depth-first walk of a directory tree through descriptors only: every entry is fstatat'ed
/// with AT_SYMLINK_NOFOLLOW, every subdirectory is opened with openat(O_NOFOLLOW|O_DIRECTORY)
/// from its parent's descriptor and checked to be the inode just stat'ed, so a symlink is
/// never followed and a directory swapped mid-walk is skipped rather than entered.
///
/// Linear in the number of entries at any depth, with at most Options::maxOpenDirectories
/// descriptors open (docs/contracts.md "Workspace file API": "Deep trees"). A closed ancestor
/// is never reopened through ".." (on a bind mount, which a root agent's workspaces are, each
/// ".." lookup costs the depth: the kernel checks the result is still under the mount's root,
/// path_connected() in fs/namei.c, so a walk of an N-level chain cost N², 12 s at 30,000
/// levels). Instead every checkpointSpacing()-th level stays open, the innermost window()
/// levels too, and a closed ancestor is reopened by name from the checkpoint above it, each
/// level checked to be the same dev/ino as when it was entered (else 409 `tree_changed`):
/// at most checkpointSpacing() / (2 × window()) extra opens per level. A directory deeper
/// than maxDepth() is reported with Entry::beyondDepthLimit and not entered.
/// Memory: the names of the directories on the current path. Cost: one fstatat per entry
/// plus getdents per directory.
class WorkspaceTreeWalker final {
public:
    /// One entry, valid only during the callback.
    struct Entry {
        int parentFd;                ///< descriptor of the entry's directory (O_RDONLY or O_PATH)
        const char* name;            ///< NUL-terminated entry name
        const struct stat* st;       ///< lstat of the entry
        QByteArrayView relativePath; ///< from the walk's start directory, e.g. "a/b/c"
        int depth;                   ///< 1 for the start directory's own entries
        /// A directory the walk will not enter: it lies deeper than maxDepth(). Callers that
        /// must see everything say the walk was incomplete (or, removal, move it up).
        bool beyondDepthLimit = false;
    };
    enum class Action { Continue, SkipChildren, Stop };

    /// Default descriptor budget of one walk. Several walks run at once (the file pool's four
    /// threads, a usage walk, the quota watcher and snapshots on the event loop), all within
    /// the descriptors the agent reserves for walks (agent/service/OpenFileLimit.cpp).
    static constexpr int kMaxOpenDirectories = 256;

    struct Options {
        /// Descriptors the walk may hold at once (at least 8). The depth it can enter follows
        /// from it: maxDepth().
        int maxOpenDirectories = kMaxOpenDirectories;
        /// When a directory cannot be opened (EACCES; e.g. mode 000 set by sandboxed code),
        /// give it u+rwx through its pinned O_PATH descriptor and retry (used by removal).
        bool makeUnreadableDirectoriesAccessible = false;
    };

    /// Innermost levels kept open with @p maxOpenDirectories: a quarter of the budget.
    static int window(int maxOpenDirectories);
    /// Every this many levels one stays open (a checkpoint): 8 × window().
    static int checkpointSpacing(int maxOpenDirectories);
    /// Deepest level entered: the checkpoints the rest of the budget holds, times their
    /// spacing (256 descriptors: 191 × 512 = 97,792 levels; 8: 5 × 16 = 80).
    static int maxDepth(int maxOpenDirectories);

    /// Called for every entry, parents before children.
    using EntryFn = std::function<Action(const Entry&)>;
    /// Called after all of a directory's entries were visited (post-order), with its parent's
    /// descriptor; a failed Status aborts the walk with that error.
    using LeaveFn = std::function<Status(const Entry&)>;

    /// Walks the tree under @p startDirFd (any descriptor of a directory, O_PATH included).
    /// Returns an error when the walk could not be completed; @p stopped (optional) is set when
    /// a callback returned Action::Stop.
    static Status walk(int startDirFd, const Options& options, const EntryFn& onEntry,
                       const LeaveFn& onLeave = {}, bool* stopped = nullptr);
};

} // namespace runbox::workspace
