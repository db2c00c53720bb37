#include "agent/workspace/WorkspaceResolver.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

namespace runbox::workspace {

namespace {

constexpr quint64 kResolveFlags = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
/// openat2 answers EAGAIN when a concurrent rename might have let a lookup escape; retry.
constexpr int kEagainRetries = 16;

std::atomic<bool> g_forceFallback{false};

long rawOpenat2(int dirFd, const char* path, int flags, mode_t mode) {
    open_how how{};
    how.flags = quint64(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    how.resolve = kResolveFlags;
    long rc;
    int tries = 0;
    do {
        rc = ::syscall(SYS_openat2, dirFd, path, &how, sizeof how);
    } while (rc < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < kEagainRetries);
    return rc;
}

bool probeOpenat2() {
    const long fd = rawOpenat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY, 0);
    if (fd >= 0) {
        ::close(int(fd));
        return true;
    }
    return !(errno == ENOSYS || errno == EPERM);
}

bool openat2Works() {
    static const bool available = probeOpenat2();
    return available && !g_forceFallback.load(std::memory_order_relaxed);
}

/// After an ENOTDIR from an O_NOFOLLOW|O_DIRECTORY open, tells a symlink (ELOOP) apart.
int refineErrno(int dirFd, const char* name, int err) {
    if (err != ENOTDIR)
        return err;
    struct stat st {};
    if (::fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return ELOOP;
    return err;
}

} // namespace

bool WorkspaceResolver::usingOpenat2() {
    return openat2Works();
}

void WorkspaceResolver::setForceFallbackForTesting(bool force) {
    g_forceFallback.store(force);
}

int WorkspaceResolver::openOne(int dirFd, const QByteArray& name, int flags, mode_t mode) {
    if (openat2Works()) {
        // RESOLVE_NO_SYMLINKS also refuses a trailing symlink (ELOOP) unless O_PATH|O_NOFOLLOW.
        const long fd = rawOpenat2(dirFd, name.constData(), flags, mode);
        return int(fd);
    }
    int fd;
    do {
        fd = ::openat(dirFd, name.constData(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        errno = refineErrno(dirFd, name.constData(), errno);
    return fd;
}

Result<UniqueFd> WorkspaceResolver::openDirectory(int rootFd, const WorkspacePath& dir, int flags) {
    flags |= O_DIRECTORY;
    const QByteArray rel = dir.toRelative();
    if (dir.isRoot() || openat2Works()) {
        const int fd = openOne(rootFd, dir.isRoot() ? QByteArray(".") : rel, flags);
        if (fd < 0)
            return errnoError(errno, QStringLiteral("open"), rel);
        return UniqueFd(fd);
    }
    // Fallback: one component at a time, never following a link; intermediates are O_PATH.
    UniqueFd cur;
    int curFd = rootFd;
    const auto& segs = dir.segments();
    for (qsizetype i = 0; i < segs.size(); ++i) {
        const bool last = i + 1 == segs.size();
        const int fd = openOne(curFd, segs[i], last ? flags : (O_PATH | O_DIRECTORY));
        if (fd < 0)
            return errnoError(errno, QStringLiteral("open"), rel);
        cur.reset(fd);
        curFd = fd;
    }
    return cur;
}

Result<UniqueFd> WorkspaceResolver::makeDirectories(int rootFd, const WorkspacePath& dir,
                                                    mode_t mode,
                                                    const std::optional<WorkspaceOwner>& owner,
                                                    std::vector<CreatedDirectory>* created) {
    const QByteArray rel = dir.toRelative();
    const int rootCopy = openOne(rootFd, ".", O_PATH | O_DIRECTORY);
    if (rootCopy < 0)
        return errnoError(errno, QStringLiteral("open"), QByteArray());
    UniqueFd cur(rootCopy);
    for (const QByteArray& seg : dir.segments()) {
        int fd = openOne(cur.get(), seg, O_PATH | O_DIRECTORY);
        if (fd < 0 && errno == ENOENT) {
            if (::mkdirat(cur.get(), seg.constData(), 0700) == 0) {
                // Fix ownership and mode on the new directory itself (not by name later).
                UniqueFd made(openOne(cur.get(), seg, O_RDONLY | O_DIRECTORY));
                if (!made.valid())
                    return errnoError(errno, QStringLiteral("open"), rel);
                struct stat st {};
                if (created && ::fstat(made.get(), &st) == 0) {
                    const int parentCopy = openOne(cur.get(), ".", O_PATH | O_DIRECTORY);
                    if (parentCopy >= 0)
                        created->push_back(
                            CreatedDirectory{UniqueFd(parentCopy), seg, st.st_dev, st.st_ino});
                }
                if (owner && ::fchown(made.get(), owner->uid, owner->gid) != 0)
                    return errnoError(errno, QStringLiteral("chown"), rel);
                if (::fchmod(made.get(), mode & 07777) != 0)
                    return errnoError(errno, QStringLiteral("chmod"), rel);
            } else if (errno != EEXIST) {
                return errnoError(errno, QStringLiteral("mkdir"), rel);
            }
            fd = openOne(cur.get(), seg, O_PATH | O_DIRECTORY);
        }
        if (fd < 0)
            return errnoError(errno, QStringLiteral("open"), rel);
        cur.reset(fd);
    }
    return cur;
}

void WorkspaceResolver::removeCreated(std::vector<CreatedDirectory>* created) {
    for (auto it = created->rbegin(); it != created->rend(); ++it) {
        struct stat st {};
        if (::fstatat(it->parent.get(), it->name.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode) && st.st_dev == it->dev && st.st_ino == it->ino)
            ::unlinkat(it->parent.get(), it->name.constData(), AT_REMOVEDIR);
    }
    created->clear();
}

Result<UniqueFd> WorkspaceResolver::openParent(int rootFd, const WorkspacePath& path,
                                               bool createParents,
                                               const std::optional<WorkspaceOwner>& owner,
                                               std::vector<CreatedDirectory>* created) {
    if (path.isRoot())
        return makeError(ErrorKind::InvalidArgument, "invalid_path",
                         QStringLiteral("invalid path: the workspace root has no parent"));
    if (createParents)
        return makeDirectories(rootFd, path.parent(), 0755, owner, created);
    return openDirectory(rootFd, path.parent(), O_PATH);
}

int WorkspaceResolver::chmodPinned(int pinnedFd, mode_t mode) {
    char procPath[64];
    std::snprintf(procPath, sizeof procPath, "/proc/self/fd/%d", pinnedFd);
    return ::chmod(procPath, mode);
}

} // namespace runbox::workspace
