#pragma once

#include "shared/UploadChunkSigner.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

class QIODevice;

namespace runbox::cli {

/// What one streamed upload returned.
struct UploadResult {
    int status = 0;             ///< HTTP status of the final answer; 0 when none came
    QByteArray body;            ///< its body (at most 64 KiB)
    QString transportError;     ///< connection or framing problem, empty if none
    QString sourceError;        ///< the source could not be read or ended early, empty if none
    qint64 bytesSent = 0;       ///< file (decoded) bytes sent
    bool answeredEarly = false; ///< the agent answered before the whole body was sent
};

/// A chunk-signed `PUT` (docs/upload-integrity.md) of the @p size bytes that @p source holds
/// from its current position, over one plain-HTTP connection: the head is signed over
/// `STREAMING-RUNBOX-HMAC-SHA256-CHUNKS` and declares X-Runbox-Decoded-Length: @p size and
/// `Expect: 100-continue` (a refusal on the head — 413, 409, 404 — arrives before any body byte
/// is sent); then each chunk of @p chunkBytes is read, hashed, signed and sent in turn, so the
/// file is read once and hashed while the previous chunk travels. The body goes out with
/// send(2) on the socket (no copy into Qt's write buffer), at the pace TCP takes it. An answer
/// that arrives while sending (a chunk refused, a limit crossed) stops the body. Blocking;
/// http:// only, like the CLI's connection options. @p timeoutMs bounds each wait.
UploadResult uploadFrom(const QUrl& baseUrl, const QByteArray& token, qint64 clockOffsetMs,
                        const QByteArray& pathAndQuery, QIODevice* source, qint64 size,
                        int timeoutMs = 60000,
                        qint64 chunkBytes = upload_chunks::kDefaultChunkBytes);

} // namespace runbox::cli
