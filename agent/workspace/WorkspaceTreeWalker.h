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
/// Depth is unbounded but open descriptors are not: only the innermost
/// Options::maxOpenDirectories levels stay open; a closed ancestor is reopened through ".."
/// of its child and must have the same dev/ino as when it was entered (else 409
/// `tree_changed`), the approach of gnulib's fts. Memory: the names of the directories on the
/// current path. Cost: one fstatat per entry plus getdents per directory.
class WorkspaceTreeWalker final {
public:
    /// One entry, valid only during the callback.
    struct Entry {
        int parentFd;                ///< open (O_RDONLY) descriptor of the entry's directory
        const char* name;            ///< NUL-terminated entry name
        const struct stat* st;       ///< lstat of the entry
        QByteArrayView relativePath; ///< from the walk's start directory, e.g. "a/b/c"
        int depth;                   ///< 1 for the start directory's own entries
    };
    enum class Action { Continue, SkipChildren, Stop };

    struct Options {
        int maxOpenDirectories = 64;
        /// When a directory cannot be opened (EACCES; e.g. mode 000 set by sandboxed code),
        /// give it u+rwx through its pinned O_PATH descriptor and retry (used by removal).
        bool makeUnreadableDirectoriesAccessible = false;
    };

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
