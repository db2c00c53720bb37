#include "agent/workspace/WorkspaceResult.h"

#include <cerrno>
#include <cstring>

namespace runbox::workspace {

Error makeError(ErrorKind kind, const QString& code, const QString& message) {
    return Error{kind, code, message};
}

Error errnoError(int err, const QString& what, const QByteArray& path) {
    const QString p = path.isEmpty() ? QStringLiteral("/") : QString::fromUtf8(path);
    switch (err) {
    case ENOENT:
        return makeError(ErrorKind::NotFound, "not_found",
                         QStringLiteral("%1: no such file or directory").arg(p));
    case ELOOP:
        return makeError(ErrorKind::InvalidArgument, "symlink_not_followed",
                         QStringLiteral("%1: a path component is a symbolic link, which the file "
                                        "API does not follow")
                             .arg(p));
    case ENOTDIR:
        return makeError(ErrorKind::InvalidArgument, "not_a_directory",
                         QStringLiteral("%1: a path component is not a directory").arg(p));
    case EISDIR:
        return makeError(ErrorKind::Conflict, "is_a_directory",
                         QStringLiteral("%1: is a directory").arg(p));
    case EEXIST:
        return makeError(ErrorKind::Conflict, "file_exists",
                         QStringLiteral("%1: already exists").arg(p));
    case ENOTEMPTY:
        return makeError(ErrorKind::Conflict, "directory_not_empty",
                         QStringLiteral("%1: directory not empty").arg(p));
    case EACCES:
    case EPERM:
        return makeError(ErrorKind::PermissionDenied, "permission_denied",
                         QStringLiteral("%1: %2: permission denied").arg(p, what));
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return makeError(ErrorKind::TooLarge, "no_space",
                         QStringLiteral("%1: %2: no space left (%3)")
                             .arg(p, what, QString::fromLocal8Bit(std::strerror(err))));
    case EXDEV:
    case ENAMETOOLONG:
        return makeError(ErrorKind::InvalidArgument, "invalid_path",
                         QStringLiteral("%1: path escapes the workspace or is too long").arg(p));
    case ENXIO:
        return makeError(ErrorKind::InvalidArgument, "unsupported_file_type",
                         QStringLiteral("%1: not a regular file").arg(p));
    case EMFILE:
    case ENFILE:
    case EAGAIN:
        return makeError(ErrorKind::Unavailable, "busy",
                         QStringLiteral("%1: %2: temporarily unavailable (%3)")
                             .arg(p, what, QString::fromLocal8Bit(std::strerror(err))));
    default:
        return makeError(ErrorKind::Internal, "io_error",
                         QStringLiteral("%1: %2 failed: %3")
                             .arg(p, what, QString::fromLocal8Bit(std::strerror(err))));
    }
}

} // namespace runbox::workspace
