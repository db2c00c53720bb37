#include "agent/files/UploadLimits.h"

#include <QString>

namespace runbox::files {

std::optional<Error> UploadLimits::check(qint64 totalBytes) const {
    if (fileLimit > 0 && totalBytes > fileLimit)
        return tooLarge(path, fileLimit);
    if (room >= 0 && totalBytes > room)
        return quotaExceeded(path, maxWorkspaceBytes);
    return std::nullopt;
}

Error UploadLimits::tooLarge(const QByteArray& path, qint64 limit) {
    return Error{ErrorKind::TooLarge, QStringLiteral("upload_too_large"),
                 QStringLiteral("%1: the upload exceeds %2 bytes (uploadMaxFileBytes / "
                                "uploadMaxRequestBytes)")
                     .arg(QString::fromUtf8(path))
                     .arg(limit)};
}

Error UploadLimits::quotaExceeded(const QByteArray& path, qint64 maxWorkspaceBytes) {
    return Error{ErrorKind::TooLarge, QStringLiteral("workspace_quota_exceeded"),
                 QStringLiteral("%1: the upload would take the workspace over "
                                "maxWorkspaceBytes (%2 bytes)")
                     .arg(QString::fromUtf8(path))
                     .arg(maxWorkspaceBytes)};
}

} // namespace runbox::files
