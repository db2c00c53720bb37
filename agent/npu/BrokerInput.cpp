#include "agent/npu/BrokerInput.h"

#include "agent/workspace/WorkspacePath.h"
#include "agent/workspace/WorkspaceResolver.h"

#include <QStringList>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace runbox::npu {

namespace {

using workspace::UniqueFd;
using workspace::WorkspaceResolver;

/// Drops `.` segments and one trailing '/' ("dir/" means dir); "." alone is the root.
QString withoutDotSegments(const QString& relative) {
    QStringList segments = relative.split(QLatin1Char('/'));
    if (segments.size() > 1 && segments.last().isEmpty())
        segments.removeLast();
    segments.removeAll(QStringLiteral("."));
    return segments.join(QLatin1Char('/'));
}

QString openError(int err, const QString& relative) {
    if (err == ELOOP)
        return QStringLiteral("\"%1\" goes through a symbolic link; broker inputs never follow "
                              "links")
            .arg(relative);
    return workspace::errnoError(err, QStringLiteral("open"), relative.toUtf8()).message;
}

} // namespace

std::optional<BrokerInput> BrokerInput::open(int workspaceRootFd, const QString& relative,
                                             QString* error) {
    if (relative.isEmpty()) {
        *error = QStringLiteral("the path is empty");
        return std::nullopt;
    }
    if (relative.startsWith(QLatin1Char('/'))) {
        *error = QStringLiteral("\"%1\" is absolute; give a path relative to the workspace")
                     .arg(relative);
        return std::nullopt;
    }
    const auto path = workspace::WorkspacePath::fromPlain(withoutDotSegments(relative).toUtf8());
    if (!path) {
        *error = QStringLiteral("\"%1\": %2").arg(relative, path.error().message);
        return std::nullopt;
    }
    // The parent is resolved by the kernel beneath the root with no link followed; the last
    // component is opened relative to that pinned parent, again without following a link.
    auto parent = WorkspaceResolver::openDirectory(workspaceRootFd, path->parent(), O_PATH);
    if (!parent) {
        *error = parent.error().code == QLatin1String("symlink_not_followed")
                     ? openError(ELOOP, relative)
                     : parent.error().message;
        return std::nullopt;
    }
    const int fd = path->isRoot() ? ::fcntl(parent->get(), F_DUPFD_CLOEXEC, 0)
                                  : WorkspaceResolver::openOne(parent->get(), path->name(), O_PATH);
    if (fd < 0) {
        *error = openError(errno, relative);
        return std::nullopt;
    }
    BrokerInput input{UniqueFd(fd)};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        *error = openError(errno, relative);
        return std::nullopt;
    }
    if (S_ISLNK(st.st_mode)) { // the per-component fallback opens a trailing link itself
        *error = openError(ELOOP, relative);
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        *error = QStringLiteral("\"%1\" is neither a regular file nor a directory").arg(relative);
        return std::nullopt;
    }
    return input;
}

QString BrokerInput::procPath() const {
    return QStringLiteral("/proc/self/fd/%1").arg(m_fd.get());
}

} // namespace runbox::npu
