#include "cli/HttpDownload.h"

#include "shared/RequestSigner.h"

#include <QDateTime>
#include <QIODevice>
#include <QTcpSocket>

namespace runbox::cli {

namespace {
constexpr qint64 kReadBytes = 1024 * 1024;
constexpr qsizetype kMaxHeadBytes = 64 * 1024;

QByteArray headerValue(const QList<QByteArray>& lines, const QByteArray& lowerName) {
    for (const QByteArray& line : lines) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == lowerName)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}
} // namespace

DownloadResult downloadTo(const QUrl& baseUrl, const QByteArray& token, qint64 clockOffsetMs,
                          const QByteArray& pathAndQuery, QIODevice* sink, int timeoutMs) {
    DownloadResult r;
    QTcpSocket socket;
    socket.setReadBufferSize(kReadBytes);
    socket.connectToHost(baseUrl.host(), quint16(baseUrl.port(80)));
    if (!socket.waitForConnected(timeoutMs)) {
        r.transportError = socket.errorString();
        return r;
    }
    QByteArray request = "GET " + pathAndQuery +
                         " HTTP/1.1\r\nHost: " + baseUrl.authority().toUtf8() +
                         "\r\nConnection: close\r\n";
    for (const auto& [name, value] : RequestSigner::headersFor(
             token, "GET", pathAndQuery, {}, QDateTime::currentMSecsSinceEpoch() + clockOffsetMs))
        request += name + ": " + value + "\r\n";
    socket.write(request + "\r\n");

    QByteArray buffer;
    qsizetype headEnd = -1;
    while ((headEnd = buffer.indexOf("\r\n\r\n")) < 0) {
        if (buffer.size() > kMaxHeadBytes ||
            (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(timeoutMs))) {
            r.transportError = QStringLiteral("no answer: %1").arg(socket.errorString());
            return r;
        }
        buffer += socket.read(kReadBytes);
    }
    const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
    r.status = lines.first().split(' ').value(1).toInt();
    r.entryType = headerValue(lines, "x-runbox-entry-type");
    bool lengthOk = false;
    const qint64 length = headerValue(lines, "content-length").toLongLong(&lengthOk);
    if (!lengthOk) {
        r.transportError = QStringLiteral("the answer has no Content-Length");
        return r;
    }
    QByteArray chunk = buffer.mid(headEnd + 4);
    const bool toSink = r.status == 200 && r.entryType == "file";
    qint64 received = 0;
    for (;;) {
        if (!chunk.isEmpty()) {
            chunk.truncate(std::min<qint64>(chunk.size(), length - received));
            received += chunk.size();
            if (!toSink) {
                if (r.errorBody.size() < 64 * 1024)
                    r.errorBody += chunk.left(64 * 1024 - r.errorBody.size());
            } else if (r.sinkError.isEmpty() && sink->write(chunk) != chunk.size()) {
                r.sinkError = sink->errorString();
            } else {
                r.bodyBytes += chunk.size();
            }
        }
        if (received >= length)
            break;
        if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(timeoutMs)) {
            r.transportError = QStringLiteral("the answer ended after %1 of %2 bytes: %3")
                                   .arg(received)
                                   .arg(length)
                                   .arg(socket.errorString());
            return r;
        }
        chunk = socket.read(kReadBytes);
    }
    return r;
}

} // namespace runbox::cli
