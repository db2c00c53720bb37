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

} // namespace

Status WorkspaceTreeWalker::walk(int startDirFd, const Options& options, const EntryFn& onEntry,
                                 const LeaveFn& onLeave, bool* stopped) {
    if (stopped)
        *stopped = false;
    const int maxOpen = std::max(1, options.maxOpenDirectories);
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
                UniqueFd up(::openat(done.fd.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
                struct stat st {};
                if (!up.valid() || ::fstat(up.get(), &st) != 0 || st.st_dev != parent.st.st_dev ||
                    st.st_ino != parent.st.st_ino)
                    return treeChanged(path.left(parent.pathLen));
                parent.fd = std::move(up);
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
        const Action action = onEntry(Entry{top.fd.get(), name, &st, path, depth});
        if (action == Action::Stop) {
            if (stopped)
                *stopped = true;
            return Status::success();
        }
        if (!S_ISDIR(st.st_mode) || action == Action::SkipChildren)
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
        // `top` may dangle after push_back; only the last maxOpen levels keep their fd.
        stack.push_back(std::move(f));
        if (qsizetype(stack.size()) > maxOpen)
            stack[stack.size() - 1 - size_t(maxOpen)].fd.reset();
    }
    return Status::success();
}

} // namespace runbox::workspace
