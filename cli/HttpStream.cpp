#include "cli/HttpStream.h"

#include "cli/SignedConnection.h"

namespace runbox::cli {

namespace {
constexpr qsizetype kMaxLineBytes = 4096;
constexpr qsizetype kMaxErrorBody = 64 * 1024;
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

StreamResult streamGet(const QUrl& baseUrl, const QByteArray& token, const QByteArray& pin,
                       qint64 clockOffsetMs, const QByteArray& pathAndQuery,
                       const QList<QPair<QByteArray, QByteArray>>& headers,
                       const std::function<bool(QByteArrayView)>& onBody, int idleTimeoutMs) {
    StreamResult r;
    SignedConnection connection;
    if (!connection.sendGet(baseUrl, token, pin, clockOffsetMs, pathAndQuery, headers, 60000)) {
        r.transportError = connection.errorString();
        return r;
    }
    if (!connection.readHead(idleTimeoutMs)) {
        r.transportError = QStringLiteral("no answer: %1").arg(connection.errorString());
        return r;
    }
    r.status = connection.status();
    r.contentType = connection.header("content-type");
    const bool chunked = connection.header("transfer-encoding").toLower().contains("chunked");
    bool lengthOk = false;
    const qint64 length = connection.header("content-length").toLongLong(&lengthOk);
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
    QByteArray chunk = connection.takeBuffered();
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
        chunk = connection.readBody(idleTimeoutMs);
        if (chunk.isEmpty()) {
            r.transportError =
                QStringLiteral("the answer ended early: %1").arg(connection.errorString());
            return r;
        }
    }
    r.complete = true;
    return r;
}

} // namespace runbox::cli
