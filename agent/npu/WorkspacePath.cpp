#include "agent/npu/WorkspacePath.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace runbox::npu {

bool WorkspacePath::isInside(const QString& root, const QString& path) {
    if (root == QLatin1String("/"))
        return path.startsWith(QLatin1Char('/'));
    return path == root || path.startsWith(root + QLatin1Char('/'));
}

QString WorkspacePath::resolveInside(const QString& workspaceRoot, const QString& relative,
                                     QString* error) {
    const QString root = QFileInfo(workspaceRoot).canonicalFilePath();
    if (root.isEmpty()) {
        *error = QStringLiteral("the workspace directory does not exist");
        return {};
    }
    if (relative.isEmpty() || relative.contains(QChar(0)) || relative.contains(QLatin1Char('\\'))) {
        *error = QStringLiteral("the path is empty or contains NUL or a backslash");
        return {};
    }
    if (relative.startsWith(QLatin1Char('/'))) {
        *error = QStringLiteral("\"%1\" is absolute; give a path relative to the workspace")
                     .arg(relative);
        return {};
    }
    QStringList segments = relative.split(QLatin1Char('/'));
    if (segments.size() > 1 && segments.last().isEmpty())
        segments.removeLast(); // "dir/" means dir
    QString current = root;
    bool existing = true;
    for (const QString& segment : segments) {
        if (segment.isEmpty() || segment == QLatin1String("..")) {
            *error = QStringLiteral("\"%1\" has an empty or \"..\" segment").arg(relative);
            return {};
        }
        if (segment == QLatin1String("."))
            continue;
        const QString candidate = current + QLatin1Char('/') + segment;
        if (!existing) {
            current = candidate;
            continue;
        }
        struct stat st {};
        if (::lstat(QFile::encodeName(candidate).constData(), &st) != 0) {
            if (errno != ENOENT) {
                *error = QStringLiteral("\"%1\" cannot be resolved: %2")
                             .arg(relative, QString::fromLocal8Bit(strerror(errno)));
                return {};
            }
            existing = false;
            current = candidate;
            continue;
        }
        if (S_ISLNK(st.st_mode)) {
            const QString target = QFileInfo(candidate).canonicalFilePath();
            if (target.isEmpty()) {
                *error = QStringLiteral("\"%1\" goes through a dangling symlink").arg(relative);
                return {};
            }
            if (!isInside(root, target)) {
                *error = QStringLiteral("\"%1\" leads outside the workspace").arg(relative);
                return {};
            }
            current = target;
        } else {
            current = candidate;
        }
    }
    if (!isInside(root, current)) {
        *error = QStringLiteral("\"%1\" leads outside the workspace").arg(relative);
        return {};
    }
    return current;
}

} // namespace runbox::npu
