#include "cli/HttpDownload.h"

#include "cli/SignedConnection.h"

#include <QIODevice>

namespace runbox::cli {

namespace {
constexpr qsizetype kMaxErrorBody = 64 * 1024;
} // namespace

DownloadResult downloadTo(const QUrl& baseUrl, const QByteArray& token, const QByteArray& pin,
                          qint64 clockOffsetMs, const QByteArray& pathAndQuery, QIODevice* sink,
                          int timeoutMs) {
    DownloadResult r;
    SignedConnection connection;
    if (!connection.sendGet(baseUrl, token, pin, clockOffsetMs, pathAndQuery, {}, timeoutMs)) {
        r.transportError = connection.errorString();
        return r;
    }
    if (!connection.readHead(timeoutMs)) {
        r.transportError = QStringLiteral("no answer: %1").arg(connection.errorString());
        return r;
    }
    r.status = connection.status();
    r.entryType = connection.header("x-runbox-entry-type");
    bool lengthOk = false;
    const qint64 length = connection.header("content-length").toLongLong(&lengthOk);
    if (!lengthOk) {
        r.transportError = QStringLiteral("the answer has no Content-Length");
        return r;
    }
    QByteArray chunk = connection.takeBuffered();
    const bool toSink = r.status == 200 && r.entryType == "file";
    qint64 received = 0;
    for (;;) {
        if (!chunk.isEmpty()) {
            chunk.truncate(std::min<qint64>(chunk.size(), length - received));
            received += chunk.size();
            if (!toSink) {
                if (r.errorBody.size() < kMaxErrorBody)
                    r.errorBody += chunk.left(kMaxErrorBody - r.errorBody.size());
            } else if (r.sinkError.isEmpty() && sink->write(chunk) != chunk.size()) {
                r.sinkError = sink->errorString();
            } else {
                r.bodyBytes += chunk.size();
            }
        }
        if (received >= length)
            break;
        chunk = connection.readBody(timeoutMs);
        if (chunk.isEmpty()) {
            r.transportError = QStringLiteral("the answer ended after %1 of %2 bytes: %3")
                                   .arg(received)
                                   .arg(length)
                                   .arg(connection.errorString());
            return r;
        }
    }
    return r;
}

} // namespace runbox::cli
