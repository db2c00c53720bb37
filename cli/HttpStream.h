#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrl>

#include <functional>

namespace runbox::cli {

/// Decodes an HTTP/1.1 chunked body (RFC 9112 §7.1): chunk-size lines (hex, extensions
/// ignored), data, CRLF, and the last chunk with an optional trailer section. Data goes to the
/// callback as it arrives, in pieces; nothing is buffered beyond one size line.
class ChunkedDecoder final {
public:
    explicit ChunkedDecoder(std::function<void(QByteArrayView)> onData)
        : m_onData(std::move(onData)) {}
    /// Consumes @p data; returns how many bytes belonged to the body (the rest follows the
    /// message), or -1 on a framing error (see errorString()).
    qsizetype feed(QByteArrayView data);
    /// The last chunk and the trailer section have been read.
    bool isComplete() const { return m_state == State::Done; }
    QString errorString() const { return m_error; }

private:
    enum class State { Size, Data, DataEnd, Trailer, Done };
    std::function<void(QByteArrayView)> m_onData;
    State m_state = State::Size;
    QByteArray m_line;
    qint64 m_remaining = 0;
    QString m_error;
};

/// What one streamed request returned.
struct StreamResult {
    int status = 0;         ///< HTTP status; 0 when no answer came
    QByteArray contentType; ///< of the answer
    QByteArray errorBody;   ///< the body of a non-200 answer (at most 64 KiB)
    QString transportError; ///< connection or framing problem, empty if none
    bool complete = false;  ///< the 200 body ended properly (last chunk / whole length)
};

/// A signed `GET` (docs/contracts.md "Request signing") over one plain-HTTP connection whose 200
/// body (chunked or with Content-Length) is handed to @p onBody as it arrives, read 1 MiB at a time
/// and only as fast as @p onBody returns — no buffering beyond that, unlike QNetworkAccessManager.
/// @p onBody returns false to stop early. @p headers are sent in addition (e.g. Accept).
/// Blocking; @p idleTimeoutMs bounds the wait for each read (-1: wait as long as the connection
/// lives, for following a quiet log). https:// with @p pin as SignedConnection::sendGet.
StreamResult streamGet(const QUrl& baseUrl, const QByteArray& token, const QByteArray& pin,
                       qint64 clockOffsetMs, const QByteArray& pathAndQuery,
                       const QList<QPair<QByteArray, QByteArray>>& headers,
                       const std::function<bool(QByteArrayView)>& onBody, int idleTimeoutMs = -1);

} // namespace runbox::cli
