#pragma once

#include <QByteArray>
#include <QDeadlineTimer>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QTcpSocket>

namespace runbox::testsupport {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

/// One HTTP/1.1 response read off a raw socket.
struct RawHttpResponse {
    int status = 0;        ///< 0 when no complete status line arrived
    HeaderList headers;    ///< names as sent
    QByteArray body;       ///< de-chunked when the response was chunked
    bool complete = false; ///< the whole message arrived (length or last chunk seen)
    QByteArray header(const QByteArray& name) const; ///< case-insensitive; first match
    QJsonObject json() const;
    QString errorCode() const; ///< `error.code` of a JSON error body
};

/// Hand-made HTTP over a plain TCP socket, for what a well-behaved client never sends (bad
/// framing, replays, tampering). Blocking; needs no event loop.
class RawHttpConnection final {
public:
    RawHttpConnection() = default;
    RawHttpConnection(const RawHttpConnection&) = delete;
    RawHttpConnection& operator=(const RawHttpConnection&) = delete;

    bool connectTo(quint16 port, int timeoutMs = 5000);
    /// Writes @p bytes and waits until they are handed to the kernel.
    bool send(const QByteArray& bytes, int timeoutMs = 10000);
    /// Reads one response (bytes after it stay buffered for the next call).
    RawHttpResponse readResponse(int timeoutMs = 10000);
    /// True when the peer closed the connection within @p timeoutMs.
    bool waitForClose(int timeoutMs = 5000);
    /// Bytes received but not consumed by readResponse() (after waitForClose(): all of them).
    QByteArray unreadBytes() const { return m_buffer; }
    QTcpSocket& socket() { return m_socket; }

private:
    bool fill(QDeadlineTimer deadline);

    QTcpSocket m_socket;
    QByteArray m_buffer;
};

/// Builds a request: request line, `Host`, @p headers, then `Content-Length` (unless @p headers
/// already frame the body) and @p body as given.
QByteArray buildRequest(const QByteArray& method, const QByteArray& target,
                        const HeaderList& headers, const QByteArray& body = {});
/// The auth headers (docs/contracts.md "Request signing") for one request signed with @p token at
/// @p timestampMs.
HeaderList signedHeaders(const QByteArray& token, const QByteArray& method,
                         const QByteArray& target, const QByteArray& body, qint64 timestampMs);
/// @p body in chunked transfer coding, in chunks of @p chunkSize bytes, with the last chunk.
QByteArray chunkedBody(const QByteArray& body, qsizetype chunkSize);

/// Sends one request on a fresh connection and reads its response.
RawHttpResponse rawRoundTrip(quint16 port, const QByteArray& request, int timeoutMs = 10000);

} // namespace runbox::testsupport
