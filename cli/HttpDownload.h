#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

class QIODevice;

namespace runbox::cli {

/// What one streamed download returned.
struct DownloadResult {
    int status = 0;         ///< HTTP status; 0 when no answer came
    QByteArray entryType;   ///< X-Runbox-Entry-Type ("file" | "directory")
    QByteArray errorBody;   ///< the body of a non-200 answer (at most 64 KiB)
    QString transportError; ///< connection or framing problem, empty if none
    QString sinkError;      ///< the sink refused bytes (disk full…), empty if none
    qint64 bodyBytes = 0;   ///< body bytes written to the sink
};

/// A signed `GET` (docs/contracts.md "Request signing") over one plain-HTTP connection whose 200
/// body goes to @p sink as it arrives: the socket is read 1 MiB at a time and only as fast as
/// @p sink takes it, so memory stays flat whatever the size. (Qt's QNetworkAccessManager does not
/// honour its read buffer limit for large bodies: it held ~900 MiB of a 1 GiB file.) Blocking;
/// http:// or https:// with @p pin (SignedConnection::sendGet). A body shorter than its
/// Content-Length is an error.
DownloadResult downloadTo(const QUrl& baseUrl, const QByteArray& token, const QByteArray& pin,
                          qint64 clockOffsetMs, const QByteArray& pathAndQuery, QIODevice* sink,
                          int timeoutMs = 60000);

} // namespace runbox::cli
