#include "agent/http/HttpResponseWriter.h"

#include <QDateTime>
#include <QLocale>
#include <QSslSocket>
#include <QTcpSocket>

namespace runbox::http {

QByteArray reasonPhrase(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 206:
        return "Partial Content";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 411:
        return "Length Required";
    case 412:
        return "Precondition Failed";
    case 413:
        return "Content Too Large";
    case 416:
        return "Range Not Satisfiable";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Status";
    }
}

static QByteArray httpDate() {
    return QLocale::c()
        .toString(QDateTime::currentDateTimeUtc(),
                  QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"))
        .toLatin1();
}

HttpResponseWriter::HttpResponseWriter(QTcpSocket* socket, bool headOnly, bool keepAlive)
    : m_socket(socket), m_headOnly(headOnly), m_keepAlive(keepAlive) {}

QByteArray HttpResponseWriter::startHead(int status, const QByteArray& contentType,
                                         const HeaderList& extra) {
    onStart();
    m_started = true;
    m_status = status;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) +
                      "\r\nDate: " + httpDate() +
                      "\r\nServer: runbox-agent/" RUNBOX_VERSION
                      "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
    if (!contentType.isEmpty())
        head += "Content-Type: " + contentType + "\r\n";
    head += m_keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    for (const auto& [name, value] : extra)
        head += name + ": " + value + "\r\n";
    return head;
}

bool HttpResponseWriter::canWrite() const {
    return m_socket && !m_clientGone;
}

bool HttpResponseWriter::setClientGone() {
    if (m_clientGone)
        return false;
    m_clientGone = true;
    return true;
}

void HttpResponseWriter::markTakenOver() {
    m_status = 101; // the taker writes its own 101 head (WebSocketRelay)
    m_started = true;
    m_finished = true;
    m_keepAlive = false;
}

void HttpResponseWriter::reply(int status, const QByteArray& body, const QByteArray& contentType,
                               const HeaderList& extraHeaders) {
    if (m_started || m_finished)
        return;
    QByteArray out = startHead(status, contentType, extraHeaders);
    if (canWrite()) {
        // RFC 9110 §8.6: no Content-Length (and no content) in 1xx, 204 and 304 responses.
        const bool bodyless = status < 200 || status == 204 || status == 304;
        if (!bodyless)
            out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
        out += "\r\n";
        if (!m_headOnly && !bodyless) {
            out += body;
            m_bodyBytes += body.size();
        }
        m_socket->write(out);
    }
    finish();
}

void HttpResponseWriter::beginChunked(int status, const QByteArray& contentType,
                                      const HeaderList& extraHeaders) {
    if (m_started || m_finished)
        return;
    const QByteArray head = startHead(status, contentType, extraHeaders);
    if (canWrite())
        m_socket->write(head + "Transfer-Encoding: chunked\r\n\r\n");
}

void HttpResponseWriter::writeChunk(const QByteArray& data) {
    if (!m_started || m_finished || data.isEmpty() || !canWrite())
        return;
    // Three writes instead of one concatenation: no extra copy of a large chunk.
    m_socket->write(QByteArray::number(data.size(), 16) + "\r\n");
    m_socket->write(data);
    m_socket->write("\r\n", 2);
    m_socket->flush();
    m_bodyBytes += data.size();
}

void HttpResponseWriter::endChunked(const QByteArray& lastData) {
    if (!m_started || m_finished)
        return;
    if (canWrite()) {
        QByteArray tail;
        if (!lastData.isEmpty())
            tail = QByteArray::number(lastData.size(), 16) + "\r\n" + lastData + "\r\n";
        m_bodyBytes += lastData.size();
        m_socket->write(tail + "0\r\n\r\n");
        m_socket->flush();
    }
    finish();
}

void HttpResponseWriter::beginFixed(int status, const QByteArray& contentType, qint64 contentLength,
                                    const HeaderList& extraHeaders) {
    if (m_started || m_finished)
        return;
    const QByteArray head = startHead(status, contentType, extraHeaders);
    m_fixedRemaining = m_headOnly ? 0 : contentLength;
    if (canWrite())
        m_socket->write(head + "Content-Length: " + QByteArray::number(contentLength) + "\r\n\r\n");
}

void HttpResponseWriter::writeFixed(const QByteArray& data) {
    if (!m_started || m_finished || m_fixedRemaining <= 0 || data.isEmpty() || !canWrite())
        return;
    const QByteArray part = data.size() > m_fixedRemaining ? data.left(m_fixedRemaining) : data;
    m_fixedRemaining -= part.size();
    m_bodyBytes += part.size();
    m_socket->write(part);
    m_socket->flush();
}

void HttpResponseWriter::endFixed() {
    if (!m_started || m_finished)
        return;
    if (m_fixedRemaining > 0)
        m_keepAlive = false; // the body is short: only closing tells the client
    finish();
}

qint64 HttpResponseWriter::pendingBytes() const {
    if (!m_socket)
        return 0;
    // QSslSocket::bytesToWrite() counts only plaintext not yet encrypted; the encrypted records
    // waiting in its TCP socket count too, or a TLS stream would never be paused.
    if (const auto* tls = qobject_cast<const QSslSocket*>(m_socket.data()))
        return tls->bytesToWrite() + tls->encryptedBytesToWrite();
    return m_socket->bytesToWrite();
}

void HttpResponseWriter::finish() {
    m_finished = true;
    onFinish();
}

} // namespace runbox::http
