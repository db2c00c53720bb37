#include "agent/light/HomeDirectory.h"

#include "agent/light/SpareHomes.h"

#include <QList>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace runbox::light {

namespace {

QString errnoText(const char* what, int err) {
    return QStringLiteral("%1: %2").arg(QLatin1String(what),
                                        QString::fromLocal8Bit(std::strerror(err)));
}

/// Mount id of @p fd (statx STATX_MNT_ID, Linux ≥ 5.8): a bind mount of the same filesystem has
/// the same st_dev, so only the mount id tells a mount point apart.
bool mountIdOf(int fd, std::uint64_t* id) {
    struct statx stx {};
    if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0 ||
        !(stx.stx_mask & STATX_MNT_ID))
        return false;
    *id = stx.stx_mnt_id;
    return true;
}

/// Sets FS_TOPDIR_FL (chattr +T, ioctl_iflags(2)) on the workspace root. ext4's Orlov allocator
/// then spreads the homes below it over the block groups instead of packing them into the root's
/// group, where create/delete churn leaves many recently freed inodes that every new inode
/// allocation walks past on a filesystem without a journal (ext4 ialloc.c, recently_deleted()).
/// Best effort: other filesystems ignore or refuse the flag.
void markTopDirectory(int fd) {
    int flags = 0;
    if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_TOPDIR_FL)) {
        flags |= FS_TOPDIR_FL;
        ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
    }
}

struct LinuxDirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/// One directory on the walk's stack, open. The walk never goes deeper than kOpenWindow levels,
/// so it never reopens a level, and never through "..": the homes are on a bind mount, where
/// each ".." lookup costs the depth (path_connected() in fs/namei.c; the removal of a
/// 20,000-level chain took 8.7 s, 5,000 levels 0.67 s). A directory deeper than that is moved
/// up into the top level (moveUp) and removed from there.
struct Level {
    int fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
    std::string name; ///< name inside the parent level
    off64_t position = 0;
    int passes = 0;
    bool sawEntries = false;
    bool movedInto = false; ///< a deep directory was moved into it during this pass
};

constexpr std::size_t kOpenWindow = 256;
constexpr int kMaxPasses = 8;

class TreeRemover final {
public:
    TreeRemover(int rootFd, QString* error) : m_rootFd(rootFd), m_error(error) {}
    ~TreeRemover() {
        for (Level& level : m_levels) {
            if (level.fd >= 0)
                ::close(level.fd);
        }
    }

    bool run(const std::string& top, bool keepTop) {
        const int fd =
            ::openat(m_rootFd, top.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? true : fail("open home", errno);
        struct stat st {};
        ::fstat(fd, &st);
        m_dev = st.st_dev;
        if (!mountIdOf(fd, &m_mountId)) {
            ::close(fd);
            return fail("statx", errno);
        }
        m_levels.push_back(Level{fd, st.st_dev, st.st_ino, top, 0, 0, false, false});
        m_buffer.resize(32 * 1024);
        while (!m_levels.empty()) {
            if (!step())
                return false;
            if (m_levels.size() == 1 && m_topEmpty)
                break;
        }
        ::close(m_levels.front().fd);
        m_levels.front().fd = -1;
        if (!keepTop && ::unlinkat(m_rootFd, top.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
            return fail("rmdir home", errno);
        return true;
    }

private:
    bool fail(const char* what, int err) {
        if (m_error)
            *m_error = errnoText(what, err);
        return false;
    }

    /// Reads the next batch of the current level and handles it; descends or ascends as needed.
    bool step() {
        Level& level = m_levels.back();
        ::lseek64(level.fd, level.position, SEEK_SET);
        const long got = ::syscall(SYS_getdents64, level.fd, m_buffer.data(), m_buffer.size());
        if (got < 0)
            return fail("getdents64", errno);
        if (got == 0)
            return endOfDirectory();
        for (long offset = 0; offset < got;) {
            auto* entry = reinterpret_cast<LinuxDirent64*>(m_buffer.data() + offset);
            offset += entry->d_reclen;
            Level& current = m_levels.back();
            current.position = entry->d_off;
            const char* name = entry->d_name;
            if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0)
                continue;
            current.sawEntries = true;
            unsigned char type = entry->d_type;
            if (type == DT_UNKNOWN) {
                struct stat st {};
                if (::fstatat(current.fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                    return errno == ENOENT ? true : fail("fstatat", errno);
                type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
            }
            if (type == DT_DIR)
                return descend(name);
            if (::unlinkat(current.fd, name, 0) != 0 && errno != ENOENT)
                return fail("unlinkat", errno);
        }
        return true;
    }

    bool descend(const char* name) {
        if (m_levels.size() >= kOpenWindow)
            return moveUp(name);
        const int fd =
            ::openat(m_levels.back().fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? true : fail("open directory", errno);
        struct stat st {};
        std::uint64_t mountId = 0;
        ::fstat(fd, &st);
        if (st.st_dev != m_dev || !mountIdOf(fd, &mountId) || mountId != m_mountId) {
            ::close(fd);
            return fail("refusing to cross a mount point", EXDEV);
        }
        m_levels.push_back(Level{fd, st.st_dev, st.st_ino, name, 0, 0, false, false});
        return true;
    }

    /// Moves directory @p name of the deepest level into the top level under a fresh name
    /// (renameat2 RENAME_NOREPLACE acts on the entry, never follows a link; a mount point is
    /// refused with EBUSY), so that the top level's next pass removes it: linear at any depth.
    bool moveUp(const char* name) {
        for (int tries = 0; tries < 64; ++tries) {
            const std::string target = ".runbox-removing-" + std::to_string(++m_moved);
            if (::renameat2(m_levels.back().fd, name, m_levels.front().fd, target.c_str(),
                            RENAME_NOREPLACE) == 0) {
                m_levels.front().movedInto = true;
                return true;
            }
            if (errno == ENOENT)
                return true;
            if (errno != EEXIST)
                return fail("rename a deep directory up", errno);
        }
        return fail("rename a deep directory up", EEXIST);
    }

    bool endOfDirectory() {
        Level& level = m_levels.back();
        if (level.sawEntries) {
            // Something was there this pass: look again from the start until a pass is empty.
            // A pass that had deep directories moved into it made progress: it does not count.
            if (!level.movedInto && ++level.passes > kMaxPasses)
                return fail("directory keeps changing", EBUSY);
            level.sawEntries = false;
            level.movedInto = false;
            level.position = 0;
            return true;
        }
        if (m_levels.size() == 1) {
            m_topEmpty = true;
            return true;
        }
        Level child = std::move(m_levels.back());
        m_levels.pop_back();
        Level& parent = m_levels.back(); // open: no level is ever closed (kOpenWindow)
        ::close(child.fd);
        if (::unlinkat(parent.fd, child.name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
            return fail("rmdir", errno);
        return true;
    }

    int m_rootFd;
    QString* m_error;
    dev_t m_dev = 0;
    std::uint64_t m_mountId = 0;
    bool m_topEmpty = false;
    std::uint64_t m_moved = 0; ///< directories moved up, also the counter of their names
    std::vector<Level> m_levels;
    std::vector<char> m_buffer;
};

const char kRootMarker[] = ".runbox-light-root";

bool isWorkspaceId(const QByteArray& name) {
    if (name.size() != 16)
        return false;
    for (char c : name) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

} // namespace

int HomeDirectory::openRoot(const QString& root, QString* error) {
    const QByteArray path = root.toLocal8Bit();
    if (!root.startsWith(QLatin1Char('/'))) {
        *error = QStringLiteral("workspace root must be an absolute path");
        return -1;
    }
    if (::mkdir(path.constData(), 0711) != 0 && errno != EEXIST) {
        *error = errnoText("mkdir workspace root", errno);
        return -1;
    }
    const int fd = ::open(path.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *error = errnoText("open workspace root", errno);
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 022)) {
        *error = QStringLiteral("workspace root %1 must belong to uid %2 and not be writable by "
                                "group or others")
                     .arg(root)
                     .arg(::geteuid());
        ::close(fd);
        return -1;
    }
    if ((st.st_mode & 07777) != 0711 && ::fchmod(fd, 0711) != 0) {
        *error = errnoText("chmod workspace root", errno);
        ::close(fd);
        return -1;
    }
    markTopDirectory(fd);
    return fd;
}

int HomeDirectory::create(int rootFd, const QByteArray& id, uid_t uid, gid_t gid, QString* error) {
    if (::mkdirat(rootFd, id.constData(), 0700) != 0) {
        *error = errnoText("mkdir home", errno);
        return -1;
    }
    const auto undo = [&](const char* what) {
        *error = errnoText(what, errno);
        QString ignored;
        remove(rootFd, id, false, &ignored);
        return -1;
    };
    const int fd =
        ::openat(rootFd, id.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return undo("open home");
    if (::mkdirat(fd, ".tmp", 0700) != 0 ||
        ::fchownat(fd, ".tmp", uid, gid, AT_SYMLINK_NOFOLLOW) != 0 || ::fchown(fd, uid, gid) != 0) {
        ::close(fd);
        return undo("prepare home");
    }
    const int pathFd = ::openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    if (pathFd < 0)
        return undo("reopen home");
    return pathFd;
}

bool HomeDirectory::remove(int rootFd, const QByteArray& id, bool keepTop, QString* error) {
    if (id.isEmpty() || id.contains('/') || id == "." || id == "..") {
        *error = QStringLiteral("invalid home name");
        return false;
    }
    TreeRemover remover(rootFd, error);
    return remover.run(id.toStdString(), keepTop);
}

bool HomeDirectory::removeAs(int rootFd, const QByteArray& name, uid_t uid, QString* error) {
    if (remove(rootFd, name, false, error))
        return true;
    if (::geteuid() == 0)
        return false;
    // Without CAP_DAC_OVERRIDE the agent may not enter directories the workspace locked (mode
    // 000): empty the home as its own uid, then remove the (now empty) home itself.
    const pid_t child = ::fork();
    if (child == 0) {
        QString ignored;
        const bool ok = ::setgroups(0, nullptr) == 0 && ::setresgid(uid, uid, uid) == 0 &&
                        ::setresuid(uid, uid, uid) == 0 && remove(rootFd, name, true, &ignored);
        ::_exit(ok ? 0 : 1);
    }
    int status = 0;
    if (child < 0 || ::waitpid(child, &status, 0) != child || status != 0)
        return false;
    return remove(rootFd, name, false, error);
}

bool HomeDirectory::cleanStale(int rootFd, const QString& root, QString* error) {
    const int dirFd = ::openat(rootFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* dir = dirFd >= 0 ? ::fdopendir(dirFd) : nullptr;
    if (!dir) {
        *error = QStringLiteral("cannot list the workspace root");
        return false;
    }
    const bool marked = ::faccessat(rootFd, kRootMarker, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
    QList<QByteArray> stale;
    bool foreign = false;
    while (const dirent* entry = ::readdir(dir)) {
        const QByteArray name(entry->d_name);
        if (name == "." || name == ".." || name == kRootMarker)
            continue;
        if (marked && (isWorkspaceId(name) || SpareHomes::isSpareName(name)))
            stale << name;
        else
            foreign = true;
    }
    ::closedir(dir);
    if (foreign || (!marked && !stale.isEmpty())) {
        *error = QStringLiteral("workspace root %1 holds entries that are not light workspace "
                                "homes; refusing to use it")
                     .arg(root);
        return false;
    }
    for (const QByteArray& name : stale) {
        if (!remove(rootFd, name, false, error))
            return false;
    }
    if (!marked) {
        const int marker =
            ::openat(rootFd, kRootMarker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (marker < 0) {
            *error = QStringLiteral("cannot mark the workspace root");
            return false;
        }
        ::close(marker);
    }
    return true;
}

} // namespace runbox::light
