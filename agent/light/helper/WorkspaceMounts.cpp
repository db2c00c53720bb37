#include "agent/light/helper/WorkspaceMounts.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::light {

namespace {

constexpr std::size_t kMaxOptEntries = 256; ///< host /opt entries bound back, at most

/// Closes a descriptor at scope exit, keeping errno.
struct ScopedFd {
    int fd = -1;
    explicit ScopedFd(int f) : fd(f) {}
    ScopedFd(const ScopedFd&) = delete;
    ScopedFd& operator=(const ScopedFd&) = delete;
    ~ScopedFd() {
        if (fd >= 0) {
            const int error = errno;
            ::close(fd);
            errno = error;
        }
    }
};

bool failed(std::string* why, const std::string& what) {
    *why = what;
    return false;
}

/// openat2(2) of @p path (absolute) with no symbolic link anywhere on it (RESOLVE_NO_SYMLINKS
/// also refuses magic links).
int openNoLinks(const char* path, int flags) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how)));
}

int cloneTree(int dirFd, const char* path, unsigned flags) {
    return static_cast<int>(
        ::syscall(SYS_open_tree, dirFd, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | flags));
}

bool moveMount(int tree, int toDir, const char* toPath, unsigned flags) {
    return ::syscall(SYS_move_mount, tree, "", toDir, toPath, MOVE_MOUNT_F_EMPTY_PATH | flags) == 0;
}

/// One host /opt entry to put back on the tmpfs that covers /opt.
struct OptEntry {
    std::string name;
    int tree = -1; ///< a directory's or file's detached copy (AT_RECURSIVE)
    bool directory = false;
    std::string target; ///< a symbolic link's target
};

/// Covers /opt with a tmpfs holding the host's /opt entries again plus an empty science-env
/// directory, read-only once done (mountEnvironment step 2).
bool coverOpt(std::string* why) {
    const ScopedFd opt(openNoLinks("/opt", O_RDONLY | O_DIRECTORY));
    if (opt.fd < 0)
        return failed(why, "open /opt (no link)");
    DIR* dir = ::fdopendir(::dup(opt.fd));
    if (!dir)
        return failed(why, "read /opt");
    std::vector<OptEntry> entries;
    const auto closeAll = [&entries] {
        for (OptEntry& e : entries)
            if (e.tree >= 0)
                ::close(e.tree);
    };
    bool ok = true;
    while (const dirent* d = ::readdir(dir)) {
        const std::string name = d->d_name;
        if (name == "." || name == ".." || name == "science-env")
            continue;
        struct stat st {};
        if (::fstatat(opt.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; // gone meanwhile
        OptEntry entry;
        entry.name = name;
        if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
            entry.directory = S_ISDIR(st.st_mode);
            entry.tree = cloneTree(opt.fd, name.c_str(), AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
            if (entry.tree < 0) {
                ok = failed(why, "copy the mount of /opt/" + name);
                break;
            }
        } else if (S_ISLNK(st.st_mode)) {
            char target[4096];
            const ssize_t n = ::readlinkat(opt.fd, name.c_str(), target, sizeof(target) - 1);
            if (n < 0)
                continue;
            entry.target.assign(target, static_cast<std::size_t>(n));
        } else {
            continue; // sockets, FIFOs, devices: not put back
        }
        entries.push_back(std::move(entry));
        if (entries.size() > kMaxOptEntries) {
            errno = E2BIG;
            ok = failed(why, "more than 256 entries in /opt");
            break;
        }
    }
    ::closedir(dir);
    if (!ok) {
        closeAll();
        return false;
    }
    if (::mount("tmpfs", "/opt", "tmpfs", MS_NOSUID | MS_NODEV,
                "mode=0755,size=64k,nr_inodes=1024") != 0) {
        closeAll();
        return failed(why, "cover /opt with a tmpfs");
    }
    const ScopedFd cover(openNoLinks("/opt", O_PATH | O_DIRECTORY));
    for (OptEntry& e : entries) {
        if (!ok)
            break;
        if (e.tree < 0) {
            if (::symlinkat(e.target.c_str(), cover.fd, e.name.c_str()) != 0)
                ok = failed(why, "copy the link /opt/" + e.name);
            continue;
        }
        const int made = e.directory ? ::mkdirat(cover.fd, e.name.c_str(), 0755)
                                     : ::mknodat(cover.fd, e.name.c_str(), S_IFREG | 0644, 0);
        if (made != 0 || !moveMount(e.tree, cover.fd, e.name.c_str(), 0))
            ok = failed(why, "bind /opt/" + e.name + " back");
    }
    closeAll();
    if (ok && ::mkdirat(cover.fd, "science-env", 0755) != 0)
        ok = failed(why, "make /opt/science-env");
    if (ok && ::mount(nullptr, "/opt", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
                      nullptr) != 0)
        ok = failed(why, "make the /opt tmpfs read-only");
    return ok;
}

/// Covers each of @p masked with an empty read-only file (mountEnvironment step 3). The
/// scratch tmpfs is mounted at the environment's mount point and detached afterwards: the
/// covers keep its superblock alive.
bool maskInterpreters(const std::vector<std::string>& masked, std::string* why) {
    const char* scratch = WorkspaceMounts::kEnvironmentMount;
    if (::mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=0755,size=4k,nr_inodes=4") != 0)
        return failed(why, "mount the scratch tmpfs");
    bool ok = true;
    {
        const std::string empty = std::string(scratch) + "/empty";
        {
            // Closed before the remount: a file open for writing keeps it busy (EBUSY).
            const ScopedFd file(
                ::open(empty.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444));
            if (file.fd < 0 || ::fchmod(file.fd, 0444) != 0) // the zygote's umask is 077
                ok = failed(why, "make the empty file");
        }
        if (ok && ::mount(nullptr, scratch, nullptr,
                          MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
            ok = failed(why, "make the scratch tmpfs read-only");
        for (const std::string& path : masked) {
            if (!ok)
                break;
            const ScopedFd target(openNoLinks(path.c_str(), O_PATH | O_NOFOLLOW));
            if (target.fd < 0 && errno == ENOENT)
                continue; // removed from the host since the agent started
            struct stat st {};
            if (target.fd < 0 || ::fstat(target.fd, &st) != 0) {
                ok = failed(why, "open " + path + " (no link)");
                break;
            }
            if (!S_ISREG(st.st_mode)) {
                errno = EINVAL;
                ok = failed(why, path + " is no longer a regular file");
                break;
            }
            const ScopedFd cover(cloneTree(AT_FDCWD, empty.c_str(), 0));
            if (cover.fd < 0 || !moveMount(cover.fd, target.fd, "", MOVE_MOUNT_T_EMPTY_PATH))
                ok = failed(why, "mask " + path);
        }
    }
    const int error = errno;
    if (::umount2(scratch, MNT_DETACH) != 0 && ok)
        return failed(why, "detach the scratch tmpfs");
    errno = error;
    return ok;
}

} // namespace

bool WorkspaceMounts::hideOtherHomes(const char* home, std::string* why) {
    const std::string homePath = home;
    const std::string root = homePath.substr(0, homePath.rfind('/'));
    // A detached copy of the home's mount, taken by path in this namespace (a descriptor from
    // the agent's namespace cannot be bound here); no process of the workspace runs yet, and
    // the root is the agent's, so the path is the home the zygote checked.
    const int tree = static_cast<int>(
        ::syscall(SYS_open_tree, AT_FDCWD, home, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
    if (tree < 0)
        return failed(why, "take the home's mount (open_tree)");
    const auto done = [tree](bool ok) {
        const int error = errno;
        ::close(tree);
        errno = error;
        return ok;
    };
    if (root.empty() || ::mount("tmpfs", root.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                "mode=0711,size=16k,nr_inodes=16") != 0)
        return done(failed(why, "cover the light root"));
    if (::mkdir(home, 0700) != 0)
        return done(failed(why, "make the home's mount point"));
    if (::syscall(SYS_move_mount, tree, "", AT_FDCWD, home, MOVE_MOUNT_F_EMPTY_PATH) != 0)
        return done(failed(why, "bind the home back (move_mount)"));
    if (::mount(nullptr, home, nullptr, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, nullptr) != 0)
        return done(failed(why, "make the home nosuid,nodev"));
    if (::mount(nullptr, root.c_str(), nullptr,
                MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
        return done(failed(why, "make the light root read-only"));
    return done(true);
}

bool WorkspaceMounts::mountEnvironment(const char* prefix, int prefixFd,
                                       const std::vector<std::string>& masked, std::string* why) {
    // 1. The prefix, by path here, checked against the agent's descriptor.
    const ScopedFd source(openNoLinks(prefix, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    struct stat byPath {
    }, byFd{};
    if (source.fd < 0 || ::fstat(source.fd, &byPath) != 0 || ::fstat(prefixFd, &byFd) != 0)
        return failed(why, "open the environment's prefix (no link)");
    if (byPath.st_dev != byFd.st_dev || byPath.st_ino != byFd.st_ino) {
        errno = EXDEV;
        return failed(why, "the environment's prefix is not the directory the agent opened");
    }
    const ScopedFd tree(cloneTree(source.fd, "", AT_EMPTY_PATH));
    if (tree.fd < 0)
        return failed(why, "take the prefix's mount (open_tree)");
    mount_attr attributes{};
    attributes.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (::syscall(SYS_mount_setattr, tree.fd, "", AT_EMPTY_PATH, &attributes, sizeof(attributes)) !=
        0)
        return failed(why, "make the prefix read-only (mount_setattr)");
    // 2. The mount point.
    struct stat point {};
    if (::lstat(kEnvironmentMount, &point) != 0 || !S_ISDIR(point.st_mode)) {
        if (!coverOpt(why))
            return false;
    }
    // 3. The host interpreters.
    if (!maskInterpreters(masked, why))
        return false;
    // 4. The prefix, read-only from the start.
    if (!moveMount(tree.fd, AT_FDCWD, kEnvironmentMount, 0))
        return failed(why, "bind the prefix at /opt/science-env (move_mount)");
    return true;
}

bool WorkspaceMounts::validMaskedPath(const std::string& path) {
    if (path.size() > 255 || path.compare(0, 5, "/usr/") != 0 || path.back() == '/')
        return false;
    std::size_t start = 1;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string::npos)
            end = path.size();
        const std::string part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == "..")
            return false;
        start = end + 1;
    }
    return true;
}

} // namespace runbox::light
