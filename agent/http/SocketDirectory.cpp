#include "agent/http/SocketDirectory.h"

#include <QFile>
#include <QStringList>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace runbox::http {

namespace {

using workspace::UniqueFd;

constexpr int kMaxSymlinks = 40; ///< the kernel's own bound (path_resolution(7))

struct Directory {
    UniqueFd fd;
    QString path; ///< canonical
};

bool trustedOwner(uid_t uid) {
    return uid == 0 || uid == ::geteuid();
}

QString modeText(mode_t mode) {
    return QStringLiteral("%1").arg(mode & 07777, 4, 8, QLatin1Char('0'));
}

QString childPath(const QString& directory, const QString& name) {
    return directory == QLatin1String("/") ? QLatin1Char('/') + name : directory + '/' + name;
}

/// Why the directory @p path (its fstat in @p st) may be written by others; empty when not.
QString othersMayWrite(const QString& path, const struct stat& st) {
    if (!trustedOwner(st.st_uid))
        return QStringLiteral("the directory %1 may be written by others: it belongs to uid %2, "
                              "not to root or the agent's user")
            .arg(path)
            .arg(st.st_uid);
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        return QStringLiteral("the directory %1 may be written by others: mode %2, group- or "
                              "world-writable and not sticky")
            .arg(path, modeText(st.st_mode));
    return {};
}

bool stickyAndShared(const struct stat& st) {
    return (st.st_mode & S_ISVTX) && (st.st_mode & (S_IWGRP | S_IWOTH));
}

QString errnoText(const QString& what, const QString& path) {
    return QStringLiteral("%1 %2: %3")
        .arg(what, path, QString::fromLocal8Bit(std::strerror(errno)));
}

} // namespace

UniqueFd SocketDirectory::open(const QString& path, QString* canonical, QString* error) {
    std::vector<Directory> chain;
    chain.push_back({UniqueFd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)), QStringLiteral("/")});
    if (!chain.back().fd.valid()) {
        *error = errnoText(QStringLiteral("cannot open"), QStringLiteral("/"));
        return {};
    }
    QStringList pending = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    int symlinks = 0;
    struct stat dirSt {};
    while (!pending.isEmpty()) {
        const QString name = pending.takeFirst();
        if (name == QLatin1String("."))
            continue;
        if (name == QLatin1String("..")) { // the physical parent, as the kernel's
            if (chain.size() > 1)
                chain.pop_back();
            continue;
        }
        const Directory& directory = chain.back();
        if (::fstat(directory.fd.get(), &dirSt) != 0) {
            *error = errnoText(QStringLiteral("cannot stat"), directory.path);
            return {};
        }
        if (QString reason = othersMayWrite(directory.path, dirSt); !reason.isEmpty()) {
            *error = reason;
            return {};
        }
        const QString shown = childPath(directory.path, name);
        UniqueFd child(::openat(directory.fd.get(), QFile::encodeName(name).constData(),
                                O_PATH | O_NOFOLLOW | O_CLOEXEC));
        struct stat st {};
        if (!child.valid() || ::fstat(child.get(), &st) != 0) {
            *error = errnoText(QStringLiteral("cannot open"), shown);
            return {};
        }
        if (S_ISLNK(st.st_mode)) {
            if (!trustedOwner(st.st_uid)) {
                *error = QStringLiteral("%1 is a symlink of uid %2: a symlink on the way to the "
                                        "socket must belong to root or the agent's user")
                             .arg(shown)
                             .arg(st.st_uid);
                return {};
            }
            if (++symlinks > kMaxSymlinks) {
                errno = ELOOP;
                *error = errnoText(QStringLiteral("cannot resolve"), path);
                return {};
            }
            char target[PATH_MAX];
            const ssize_t n = ::readlinkat(child.get(), "", target, sizeof target);
            if (n <= 0 || n >= ssize_t(sizeof target)) {
                *error = errnoText(QStringLiteral("cannot read the symlink"), shown);
                return {};
            }
            const QString link = QFile::decodeName(QByteArray(target, qsizetype(n)));
            pending = link.split(QLatin1Char('/'), Qt::SkipEmptyParts) + pending;
            if (link.startsWith(QLatin1Char('/')))
                chain.resize(1);
            continue;
        }
        if (stickyAndShared(dirSt) && !trustedOwner(st.st_uid)) {
            *error = QStringLiteral("%1 may be written by others: it belongs to uid %2, in the "
                                    "sticky directory %3, who may rename it away and put "
                                    "another in its place")
                         .arg(shown)
                         .arg(st.st_uid)
                         .arg(directory.path);
            return {};
        }
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            *error = errnoText(QStringLiteral("cannot use"), shown);
            return {};
        }
        chain.push_back({std::move(child), shown});
    }
    // The socket's own directory.
    Directory& directory = chain.back();
    if (::fstat(directory.fd.get(), &dirSt) != 0) {
        *error = errnoText(QStringLiteral("cannot stat"), directory.path);
        return {};
    }
    if (QString reason = othersMayWrite(directory.path, dirSt); !reason.isEmpty()) {
        *error = reason;
        return {};
    }
    *canonical = directory.path;
    return std::move(directory.fd);
}

} // namespace runbox::http
