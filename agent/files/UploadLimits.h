#pragma once

#include "agent/Error.h"

#include <QByteArray>

#include <optional>

namespace runbox::files {

/// The size limits one upload runs under (quotas, agent/store/QuotaSettings.h: uploadMaxFileBytes,
/// uploadMaxRequestBytes, maxWorkspaceBytes), in bytes of the file (decoded body), and the
/// ErrorKind::TooLarge errors (413) they give. Checked on the declared length before any byte
/// lands, then on every byte written.
struct UploadLimits {
    QByteArray path;              ///< workspace-relative, for messages
    qint64 fileLimit = 0;         ///< min(uploadMaxFileBytes, uploadMaxRequestBytes); 0 = none
    qint64 room = -1;             ///< bytes left under maxWorkspaceBytes; -1 = unlimited
    qint64 maxWorkspaceBytes = 0; ///< for the message

    /// TooLarge `upload_too_large` when @p totalBytes exceeds fileLimit, TooLarge
    /// `workspace_quota_exceeded` when it exceeds room; std::nullopt when it fits.
    std::optional<Error> check(qint64 totalBytes) const;

    /// TooLarge `upload_too_large` for a file of more than @p limit bytes.
    static Error tooLarge(const QByteArray& path, qint64 limit);
    /// TooLarge `workspace_quota_exceeded` (the workspace would pass @p maxWorkspaceBytes).
    static Error quotaExceeded(const QByteArray& path, qint64 maxWorkspaceBytes);
};

} // namespace runbox::files
