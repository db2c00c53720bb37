#include "cli/HttpStream.h"

#include "shared/RequestSigner.h"

#include <QDateTime>
#include <QTcpSocket>

namespace runbox::cli {

namespace {
constexpr qint64 kReadBytes = 1024 * 1024;
constexpr qsizetype kMaxHeadBytes = 64 * 1024;
constexpr qsizetype kMaxLineBytes = 4096;
constexpr qsizetype kMaxErrorBody = 64 * 1024;

QByteArray headerValue(const QList<QByteArray>& lines, const QByteArray& lowerName) {
    for (const QByteArray& line : lines) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == lowerName)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}
} // namespace

qsizetype ChunkedDecoder::feed(QByteArrayView data) {
    qsizetype used = 0;
    while (used < data.size() && m_state != State::Done) {
        if (m_state == State::Data) {
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, data.size() - used));
            m_onData(data.sliced(used, n));
            used += n;
            m_remaining -= n;
            if (m_remaining == 0)
                m_state = State::DataEnd;
            continue;
        }
        // Line states: collect up to LF.
        const qsizetype lf = data.sliced(used).indexOf('\n');
        const qsizetype take = lf < 0 ? data.size() - used : lf + 1;
        m_line.append(data.sliced(used, take));
        used += take;
        if (m_line.size() > kMaxLineBytes) {
            m_error = QStringLiteral("chunked framing: line too long");
            return -1;
        }
        if (lf < 0)
            break;
        const QByteArray line = m_line.trimmed();
        m_line.clear();
        if (m_state == State::DataEnd) {
            if (!line.isEmpty()) {
                m_error = QStringLiteral("chunked framing: no CRLF after chunk data");
                return -1;
            }
            m_state = State::Size;
        } else if (m_state == State::Size) {
            const qsizetype semicolon = line.indexOf(';'); // chunk extensions are ignored
            const QByteArray hex = (semicolon < 0 ? line : line.left(semicolon)).trimmed();
            bool ok = false;
            const qint64 size = hex.toLongLong(&ok, 16);
            if (!ok || size < 0 || hex.size() > 15) {
                m_error = QStringLiteral("chunked framing: bad chunk size");
                return -1;
            }
            m_remaining = size;
            m_state = size == 0 ? State::Trailer : State::Data;
        } else if (m_state == State::Trailer && line.isEmpty()) {
            m_state = State::Done;
        }
    }
    return used;
}

StreamResult streamGet(const QUrl& baseUrl, const QByteArray& token, qint64 clockOffsetMs,
                       const QByteArray& pathAndQuery,
                       const QList<QPair<QByteArray, QByteArray>>& headers,
                       const std::function<bool(QByteArrayView)>& onBody, int idleTimeoutMs) {
    StreamResult r;
    QTcpSocket socket;
    socket.setReadBufferSize(kReadBytes);
    socket.connectToHost(baseUrl.host(), quint16(baseUrl.port(80)));
    if (!socket.waitForConnected(60000)) {
        r.transportError = socket.errorString();
        return r;
    }
    QByteArray request = "GET " + pathAndQuery +
                         " HTTP/1.1\r\nHost: " + baseUrl.authority().toUtf8() +
                         "\r\nConnection: close\r\n";
    for (const auto& [name, value] : RequestSigner::headersFor(
             token, "GET", pathAndQuery, {}, QDateTime::currentMSecsSinceEpoch() + clockOffsetMs))
        request += name + ": " + value + "\r\n";
    for (const auto& [name, value] : headers)
        request += name + ": " + value + "\r\n";
    socket.write(request + "\r\n");

    const auto waitForMore = [&]() {
        return socket.bytesAvailable() > 0 || socket.waitForReadyRead(idleTimeoutMs);
    };
    QByteArray buffer;
    qsizetype headEnd = -1;
    while ((headEnd = buffer.indexOf("\r\n\r\n")) < 0) {
        if (buffer.size() > kMaxHeadBytes || !waitForMore()) {
            r.transportError = QStringLiteral("no answer: %1").arg(socket.errorString());
            return r;
        }
        buffer += socket.read(kReadBytes);
    }
    const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
    r.status = lines.first().split(' ').value(1).toInt();
    r.contentType = headerValue(lines, "content-type");
    const bool chunked = headerValue(lines, "transfer-encoding").toLower().contains("chunked");
    bool lengthOk = false;
    const qint64 length = headerValue(lines, "content-length").toLongLong(&lengthOk);
    if (!chunked && !lengthOk) {
        r.transportError = QStringLiteral("the answer has neither chunks nor a Content-Length");
        return r;
    }
    bool stopped = false;
    const auto deliver = [&](QByteArrayView piece) {
        if (r.status != 200) {
            if (r.errorBody.size() < kMaxErrorBody)
                r.errorBody +=
                    piece.first(std::min(piece.size(), kMaxErrorBody - r.errorBody.size()));
        } else if (!stopped && !onBody(piece)) {
            stopped = true;
        }
    };
    ChunkedDecoder decoder(deliver);
    QByteArray chunk = buffer.mid(headEnd + 4);
    qint64 received = 0;
    for (;;) {
        if (!chunk.isEmpty()) {
            if (chunked) {
                if (decoder.feed(chunk) < 0) {
                    r.transportError = decoder.errorString();
                    return r;
                }
            } else {
                const qint64 n = std::min<qint64>(chunk.size(), length - received);
                received += n;
                deliver(QByteArrayView(chunk).first(n));
            }
        }
        if (stopped)
            return r;
        if (chunked ? decoder.isComplete() : received >= length)
            break;
        if (!waitForMore()) {
            r.transportError =
                QStringLiteral("the answer ended early: %1").arg(socket.errorString());
            return r;
        }
        chunk = socket.read(kReadBytes);
    }
    r.complete = true;
    return r;
}

} // namespace runbox::cli
