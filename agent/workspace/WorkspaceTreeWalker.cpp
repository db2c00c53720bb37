#include "agent/workspace/WorkspaceTreeWalker.h"

#include "agent/workspace/WorkspaceResolver.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace runbox::workspace {

Result<DirectoryNames> DirectoryNames::read(int dirFd, const QByteArray& pathForErrors) {
    const int copy = ::fcntl(dirFd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0)
        return errnoError(errno, QStringLiteral("dup"), pathForErrors);
    DIR* dir = ::fdopendir(copy);
    if (!dir) {
        const int err = errno;
        ::close(copy);
        return errnoError(err, QStringLiteral("opendir"), pathForErrors);
    }
    ::rewinddir(dir); // the duplicate shares the file offset with dirFd
    DirectoryNames names;
    while (true) {
        errno = 0;
        const dirent* ent = ::readdir(dir);
        if (!ent)
            break;
        const char* n = ent->d_name;
        if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
            continue;
        names.m_offsets.push_back(names.m_blob.size());
        names.m_blob.append(n, qsizetype(std::strlen(n)) + 1);
    }
    const int err = errno;
    ::closedir(dir);
    if (err != 0)
        return errnoError(err, QStringLiteral("readdir"), pathForErrors);
    return names;
}

void DirectoryNames::sort() {
    const char* base = m_blob.constData();
    std::sort(m_offsets.begin(), m_offsets.end(),
              [base](qsizetype a, qsizetype b) { return std::strcmp(base + a, base + b) < 0; });
}

namespace {

struct Frame {
    UniqueFd fd;
    struct stat st {};
    DirectoryNames names;
    qsizetype next = 0;
    QByteArray nameInParent;
    qsizetype pathLen = 0;
};

Error treeChanged(const QByteArray& path) {
    return makeError(ErrorKind::Conflict, "tree_changed",
                     QStringLiteral("%1: the directory tree changed during the walk")
                         .arg(QString::fromUtf8(path)));
}

/// openOne() for reading a directory, with O_NOATIME where allowed (the agent owns it, or holds
/// CAP_FOWNER; open(2)): a walk is the agent's bookkeeping and must not update the workspace's
/// access times. Each update also dirtied the inode (ext4_dirty_inode): about 8 % of the main
/// thread's CPU for a light exec of `true`. Falls back to a plain open on EPERM.
int openDirectoryForReading(int parentFd, const QByteArray& name, int flags) {
    const int fd = WorkspaceResolver::openOne(parentFd, name, flags | O_NOATIME);
    if (fd >= 0 || errno != EPERM)
        return fd;
    return WorkspaceResolver::openOne(parentFd, name, flags);
}

/// Opens subdirectory @p name of @p parentFd if it still is the inode @p expected.
/// Returns an invalid fd (no error) when it vanished or was swapped.
Result<UniqueFd> openChildDir(int parentFd, const char* name, const struct stat& expected,
                              const QByteArray& path, bool makeAccessible) {
    const QByteArray n(name);
    int fd = openDirectoryForReading(parentFd, n, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    if (fd < 0 && errno == EACCES && makeAccessible) {
        UniqueFd pinned(WorkspaceResolver::openOne(parentFd, n, O_PATH | O_DIRECTORY));
        struct stat st {};
        if (pinned.valid() && ::fstat(pinned.get(), &st) == 0 && st.st_dev == expected.st_dev &&
            st.st_ino == expected.st_ino)
            WorkspaceResolver::chmodPinned(pinned.get(), (st.st_mode & 07777) | 0700);
        fd = openDirectoryForReading(parentFd, n, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    }
    if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR)
            return UniqueFd();
        return errnoError(errno, QStringLiteral("open"), path);
    }
    UniqueFd owned(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return errnoError(errno, QStringLiteral("stat"), path);
    if (st.st_dev != expected.st_dev || st.st_ino != expected.st_ino)
        return UniqueFd();
    return owned;
}

/// Reopens closed level @p index of @p stack by name from the checkpoint above it (never
/// through ".."), keeping the innermost @p window levels it passes open; each level must be
/// the inode it was when entered (O_PATH: only *at() calls are made on it).
Status reopen(std::vector<Frame>& stack, size_t index, int spacing, int window,
              const QByteArray& path) {
    size_t from = index - index % size_t(spacing);
    while (!stack[from].fd.valid()) // a checkpoint is never closed; this is a safeguard
        --from;
    for (size_t i = from + 1; i <= index; ++i) {
        Frame& f = stack[i];
        if (!f.fd.valid()) {
            UniqueFd fd(WorkspaceResolver::openOne(stack[i - 1].fd.get(), f.nameInParent,
                                                   O_PATH | O_DIRECTORY));
            struct stat st {};
            if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || st.st_dev != f.st.st_dev ||
                st.st_ino != f.st.st_ino)
                return treeChanged(path.left(f.pathLen));
            f.fd = std::move(fd);
        }
        // The level above is not needed once this one is open, unless it is a checkpoint or
        // within the window of the level being reopened.
        const size_t above = i - 1;
        if (above != from && above % size_t(spacing) != 0 && above + size_t(window) <= index)
            stack[above].fd.reset();
    }
    return Status::success();
}

} // namespace

int WorkspaceTreeWalker::window(int maxOpenDirectories) {
    return std::max(8, maxOpenDirectories) / 4;
}

int WorkspaceTreeWalker::checkpointSpacing(int maxOpenDirectories) {
    return 8 * window(maxOpenDirectories);
}

int WorkspaceTreeWalker::maxDepth(int maxOpenDirectories) {
    const int budget = std::max(8, maxOpenDirectories);
    return (budget - window(budget) - 1) * checkpointSpacing(budget);
}

Status WorkspaceTreeWalker::walk(int startDirFd, const Options& options, const EntryFn& onEntry,
                                 const LeaveFn& onLeave, bool* stopped) {
    if (stopped)
        *stopped = false;
    const int window = WorkspaceTreeWalker::window(options.maxOpenDirectories);
    const int spacing = checkpointSpacing(options.maxOpenDirectories);
    const int deepest = maxDepth(options.maxOpenDirectories);
    std::vector<Frame> stack;
    QByteArray path;
    {
        Frame root;
        root.fd.reset(openDirectoryForReading(startDirFd, ".", O_RDONLY | O_DIRECTORY));
        if (!root.fd.valid())
            return errnoError(errno, QStringLiteral("open"), QByteArray());
        if (::fstat(root.fd.get(), &root.st) != 0)
            return errnoError(errno, QStringLiteral("stat"), QByteArray());
        auto names = DirectoryNames::read(root.fd.get(), QByteArray());
        if (!names)
            return names.error();
        root.names = std::move(names.value());
        stack.push_back(std::move(root));
    }

    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.names.size()) {
            Frame done = std::move(stack.back());
            stack.pop_back();
            if (stack.empty())
                break;
            Frame& parent = stack.back();
            path.truncate(done.pathLen);
            if (!parent.fd.valid()) {
                done.fd.reset();
                const Status reopened = reopen(stack, stack.size() - 1, spacing, window, path);
                if (!reopened)
                    return reopened;
            }
            done.fd.reset();
            if (onLeave) {
                const Entry e{parent.fd.get(), done.nameInParent.constData(), &done.st, path,
                              int(stack.size())};
                const Status st = onLeave(e);
                if (!st)
                    return st;
            }
            continue;
        }

        const char* name = top.names.cstr(top.next++);
        path.truncate(top.pathLen);
        if (top.pathLen > 0)
            path.append('/');
        path.append(name);
        struct stat st {};
        if (::fstatat(top.fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                continue; // removed since readdir
            return errnoError(errno, QStringLiteral("stat"), path);
        }
        const int depth = int(stack.size());
        const bool beyond = S_ISDIR(st.st_mode) && depth > deepest;
        const Action action = onEntry(Entry{top.fd.get(), name, &st, path, depth, beyond});
        if (action == Action::Stop) {
            if (stopped)
                *stopped = true;
            return Status::success();
        }
        if (!S_ISDIR(st.st_mode) || action == Action::SkipChildren || beyond)
            continue;

        auto child =
            openChildDir(top.fd.get(), name, st, path, options.makeUnreadableDirectoriesAccessible);
        if (!child)
            return child.error();
        if (!child->valid())
            continue;
        auto names = DirectoryNames::read(child->get(), path);
        if (!names)
            return names.error();
        Frame f;
        f.fd = std::move(child.value());
        f.st = st;
        f.names = std::move(names.value());
        f.nameInParent = QByteArray(name);
        f.pathLen = path.size();
        // `top` may dangle after push_back. Only the innermost `window` levels and every
        // `spacing`-th one (the checkpoints) keep their descriptor.
        stack.push_back(std::move(f));
        if (stack.size() > size_t(window) + 1) {
            const size_t leaving = stack.size() - 1 - size_t(window);
            if (leaving % size_t(spacing) != 0)
                stack[leaving].fd.reset();
        }
    }
    return Status::success();
}

} // namespace runbox::workspace
