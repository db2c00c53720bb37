#pragma once

#include "shared/ApiClient.h"

#include <QStringList>

namespace runbox::cli {

/// A workspace file named on the command line as `WS:PATH` (scp's rule: a ':' before any '/'
/// makes an argument remote; write `./a:b` for a local name with a colon).
struct RemotePath {
    QString workspaceId;
    QString
        path; ///< workspace-relative, leading '/', empty and "." segments removed; may end with '/'

    /// Parses @p arg; false when it names a local file.
    static bool parse(const QString& arg, RemotePath* out);
    /// Why the path cannot be sent, empty when it can: a ".." segment (the agent refuses it,
    /// and an HTTP client would resolve it away before sending, against the signature).
    QString problem() const;
    /// `/v1/workspaces/ID/files/` + each segment percent-encoded (RFC 3986 unreserved kept).
    QByteArray apiPath() const;
};

/// `runbox cp [--overwrite] [--mode MODE] [--parents] [--json] LOCAL WS:PATH` uploads a file:
/// read once, hashed and signed chunk by chunk as it is sent (uploadFrom, chained chunk
/// signatures of docs/upload-integrity.md; the agent commits it only once every chunk verified). A
/// PATH ending in
/// '/' (or empty) receives LOCAL's file name.
/// `runbox cp WS:PATH LOCAL` downloads a file, streamed to disk through a temporary file next to
/// LOCAL that replaces it (rename(2)) only once complete — not fsynced, like cp; LOCAL may be a
/// directory, or `-` for stdout.
/// Exit status 0 on success, 1 on an API or I/O error (message on stderr), 2 on bad usage, 3
/// when the agent could not be reached.
int runCopy(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
