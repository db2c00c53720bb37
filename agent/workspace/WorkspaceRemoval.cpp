#include "agent/workspace/WorkspaceRemoval.h"

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspaceResolver.h"
#include "agent/workspace/WorkspaceTreeWalker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace runbox::workspace {

namespace {

constexpr int kAttempts = 4;

/// unlinkat that, on EACCES, gives the containing directory u+rwx once and retries.
int unlinkForced(int dirFd, const char* name, int flags) {
    if (::unlinkat(dirFd, name, flags) == 0)
        return 0;
    if (errno != EACCES)
        return -1;
    struct stat st {};
    if (::fstat(dirFd, &st) != 0)
        return -1;
    if (WorkspaceResolver::chmodPinned(dirFd, (st.st_mode & 07777) | 0700) != 0)
        return -1;
    return ::unlinkat(dirFd, name, flags);
}

/// Moves directory @p name of @p parentFd into @p topFd under a fresh name (renameat2
/// RENAME_NOREPLACE, which acts on the entry itself and never follows a link), so the next pass
/// reaches it near the top: a chain deeper than the walk enters is removed in
/// depth / WorkspaceTreeWalker::maxDepth() passes, each linear. Returns 0 or -1 with errno.
int moveUp(int parentFd, const char* name, int topFd, qint64* counter) {
    bool madeWritable = false;
    for (int tries = 0; tries < 64; ++tries) {
        const QByteArray target = ".runbox-removing-" + QByteArray::number(++*counter);
        if (::renameat2(parentFd, name, topFd, target.constData(), RENAME_NOREPLACE) == 0)
            return 0;
        if (errno == EACCES && !madeWritable) { // made unwritable by sandboxed code
            madeWritable = true;
            struct stat st {};
            if (::fstat(parentFd, &st) != 0 ||
                WorkspaceResolver::chmodPinned(parentFd, (st.st_mode & 07777) | 0700) != 0)
                return -1;
            continue;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

bool stopped(const std::atomic<bool>* stop) {
    return stop && stop->load(std::memory_order_relaxed);
}

Error stoppedError(const QByteArray& pathForErrors) {
    return makeError(ErrorKind::Unavailable, QStringLiteral("removal_stopped"),
                     QStringLiteral("%1: removal stopped (the agent is stopping)")
                         .arg(QString::fromUtf8(pathForErrors)));
}

bool sameInode(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

Status WorkspaceRemoval::removeContents(int dirFd, const QByteArray& pathForErrors,
                                        int maxOpenDirectories, const std::atomic<bool>* stop) {
    WorkspaceTreeWalker::Options options;
    options.makeUnreadableDirectoriesAccessible = true;
    options.maxOpenDirectories = maxOpenDirectories;
    qint64 moved = 0; // subtrees moved up, also the counter of their names
    struct stat self {};
    if (::fstat(dirFd, &self) == 0 && (self.st_mode & 0700) != 0700)
        WorkspaceResolver::chmodPinned(dirFd, (self.st_mode & 07777) | 0700);
    // A pass that moved deep subtrees up made progress (each removes maxDepth() levels of
    // them): only passes that did not count against the attempts.
    for (int pass = 0; pass < kAttempts;) {
        Status failure;
        const qint64 movedBefore = moved;
        auto onEntry = [&](const WorkspaceTreeWalker::Entry& e) {
            if (stopped(stop)) {
                failure = stoppedError(pathForErrors);
                return WorkspaceTreeWalker::Action::Stop;
            }
            if (e.beyondDepthLimit) {
                if (moveUp(e.parentFd, e.name, dirFd, &moved) != 0 && errno != ENOENT) {
                    failure =
                        errnoError(errno, QStringLiteral("rename"), e.relativePath.toByteArray());
                    return WorkspaceTreeWalker::Action::Stop;
                }
                return WorkspaceTreeWalker::Action::Continue;
            }
            if (S_ISDIR(e.st->st_mode))
                return WorkspaceTreeWalker::Action::Continue;
            if (unlinkForced(e.parentFd, e.name, 0) != 0 && errno != ENOENT && errno != EISDIR) {
                failure = errnoError(errno, QStringLiteral("unlink"), e.relativePath.toByteArray());
                return WorkspaceTreeWalker::Action::Stop;
            }
            return WorkspaceTreeWalker::Action::Continue;
        };
        auto onLeave = [&](const WorkspaceTreeWalker::Entry& e) -> Status {
            // ENOTEMPTY / ENOTDIR: something appeared or was swapped; the next pass sees it.
            if (unlinkForced(e.parentFd, e.name, AT_REMOVEDIR) != 0 && errno != ENOENT &&
                errno != ENOTEMPTY && errno != ENOTDIR && errno != EEXIST)
                return errnoError(errno, QStringLiteral("rmdir"), e.relativePath.toByteArray());
            return Status::success();
        };
        const Status walked = WorkspaceTreeWalker::walk(dirFd, options, onEntry, onLeave);
        if (!failure)
            return failure;
        if (!walked && walked.error().code != QLatin1String("tree_changed"))
            return walked;
        UniqueFd readable(WorkspaceResolver::openOne(dirFd, ".", O_RDONLY | O_DIRECTORY));
        if (!readable.valid())
            return errnoError(errno, QStringLiteral("open"), pathForErrors);
        auto left = DirectoryNames::read(readable.get(), pathForErrors);
        if (!left)
            return left.error();
        if (left->size() == 0)
            return Status::success();
        if (moved == movedBefore)
            ++pass;
    }
    return errnoError(ENOTEMPTY, QStringLiteral("remove"), pathForErrors);
}

Status WorkspaceRemoval::removeEntry(int parentFd, const QByteArray& name, bool recursive,
                                     const QByteArray& pathForErrors,
                                     const std::atomic<bool>* stop) {
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        struct stat st {};
        if (::fstatat(parentFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errnoError(errno, QStringLiteral("stat"), pathForErrors);
        if (!S_ISDIR(st.st_mode)) {
            if (unlinkForced(parentFd, name.constData(), 0) == 0)
                return Status::success();
            if (errno == EISDIR)
                continue; // swapped for a directory meanwhile
            return errnoError(errno, QStringLiteral("unlink"), pathForErrors);
        }
        if (recursive) {
            UniqueFd dir(WorkspaceResolver::openOne(parentFd, name, O_PATH | O_DIRECTORY));
            struct stat opened {};
            if (!dir.valid() || ::fstat(dir.get(), &opened) != 0 || !sameInode(st, opened))
                continue; // swapped for a link or replaced
            const Status emptied = removeContents(dir.get(), pathForErrors,
                                                  WorkspaceTreeWalker::kMaxOpenDirectories, stop);
            if (!emptied)
                return emptied;
            struct stat now {};
            if (::fstatat(parentFd, name.constData(), &now, AT_SYMLINK_NOFOLLOW) != 0 ||
                !sameInode(now, opened))
                continue; // the name no longer refers to the directory we emptied
        }
        if (unlinkForced(parentFd, name.constData(), AT_REMOVEDIR) == 0)
            return Status::success();
        if (errno == ENOTDIR || (recursive && (errno == ENOTEMPTY || errno == EEXIST)))
            continue;
        return errnoError(errno == EEXIST ? ENOTEMPTY : errno, QStringLiteral("rmdir"),
                          pathForErrors);
    }
    return makeError(ErrorKind::Conflict, "tree_changed",
                     QStringLiteral("%1: kept changing during removal; try again")
                         .arg(QString::fromUtf8(pathForErrors)));
}

} // namespace runbox::workspace
