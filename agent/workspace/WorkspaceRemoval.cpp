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

bool sameInode(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

Status WorkspaceRemoval::removeContents(int dirFd, const QByteArray& pathForErrors) {
    WorkspaceTreeWalker::Options options;
    options.makeUnreadableDirectoriesAccessible = true;
    struct stat self {};
    if (::fstat(dirFd, &self) == 0 && (self.st_mode & 0700) != 0700)
        WorkspaceResolver::chmodPinned(dirFd, (self.st_mode & 07777) | 0700);
    for (int pass = 0; pass < kAttempts; ++pass) {
        Status failure;
        auto onEntry = [&](const WorkspaceTreeWalker::Entry& e) {
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
    }
    return errnoError(ENOTEMPTY, QStringLiteral("remove"), pathForErrors);
}

Status WorkspaceRemoval::removeEntry(int parentFd, const QByteArray& name, bool recursive,
                                     const QByteArray& pathForErrors) {
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
            const Status emptied = removeContents(dir.get(), pathForErrors);
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
