#include "agent/workspace/WorkspaceResult.h"

#include <cerrno>
#include <cstring>

namespace runbox::workspace {

ApiError makeError(int httpStatus, const QString& code, const QString& message) {
    ApiError e;
    e.httpStatus = httpStatus;
    e.code = code;
    e.message = message;
    return e;
}

ApiError errnoError(int err, const QString& what, const QByteArray& path) {
    const QString p = path.isEmpty() ? QStringLiteral("/") : QString::fromUtf8(path);
    switch (err) {
    case ENOENT:
        return makeError(404, "not_found", QStringLiteral("%1: no such file or directory").arg(p));
    case ELOOP:
        return makeError(400, "symlink_not_followed",
                         QStringLiteral("%1: a path component is a symbolic link, which the file "
                                        "API does not follow")
                             .arg(p));
    case ENOTDIR:
        return makeError(400, "not_a_directory",
                         QStringLiteral("%1: a path component is not a directory").arg(p));
    case EISDIR:
        return makeError(409, "is_a_directory", QStringLiteral("%1: is a directory").arg(p));
    case EEXIST:
        return makeError(409, "file_exists", QStringLiteral("%1: already exists").arg(p));
    case ENOTEMPTY:
        return makeError(409, "directory_not_empty",
                         QStringLiteral("%1: directory not empty").arg(p));
    case EACCES:
    case EPERM:
        return makeError(403, "permission_denied",
                         QStringLiteral("%1: %2: permission denied").arg(p, what));
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return makeError(413, "no_space",
                         QStringLiteral("%1: %2: no space left (%3)")
                             .arg(p, what, QString::fromLocal8Bit(std::strerror(err))));
    case EXDEV:
    case ENAMETOOLONG:
        return makeError(400, "invalid_path",
                         QStringLiteral("%1: path escapes the workspace or is too long").arg(p));
    case ENXIO:
        return makeError(400, "unsupported_file_type",
                         QStringLiteral("%1: not a regular file").arg(p));
    case EMFILE:
    case ENFILE:
    case EAGAIN:
        return makeError(503, "busy",
                         QStringLiteral("%1: %2: temporarily unavailable (%3)")
                             .arg(p, what, QString::fromLocal8Bit(std::strerror(err))));
    default:
        return makeError(500, "io_error",
                         QStringLiteral("%1: %2 failed: %3")
                             .arg(p, what, QString::fromLocal8Bit(std::strerror(err))));
    }
}

} // namespace runbox::workspace
