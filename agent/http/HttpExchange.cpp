#include "agent/http/HttpExchange.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QLocale>
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

HttpExchange::HttpExchange(HttpRequest request, QTcpSocket* socket, bool keepAlive, QObject* parent)
    : QObject(parent), m_request(std::move(request)), m_socket(socket), m_keepAlive(keepAlive) {
    connect(socket, &QTcpSocket::bytesWritten, this, &HttpExchange::writable);
}

QByteArray HttpExchange::startHead(int status, const QByteArray& contentType,
                                   const QList<QPair<QByteArray, QByteArray>>& extra) {
    m_started = true;
    // A streamed body still arriving cannot be skipped cheaply: close after this response.
    if (m_bodyStreamed && !m_bodyComplete)
        m_keepAlive = false;
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

QTcpSocket* HttpExchange::takeOverConnection(QByteArray* buffered) {
    if (m_started || m_finished || !canWrite())
        return nullptr;
    m_started = true;
    m_finished = true; // nothing more goes through this exchange
    m_takenOver = true;
    m_keepAlive = false;
    buffered->clear();
    Q_EMIT takeOverRequested(buffered);
    disconnect(m_socket, nullptr, this, nullptr);
    return m_socket;
}

bool HttpExchange::canWrite() const {
    return m_socket && !m_clientGone;
}

void HttpExchange::reply(int status, const QByteArray& body, const QByteArray& contentType,
                         const QList<QPair<QByteArray, QByteArray>>& extraHeaders) {
    if (m_started || m_finished)
        return;
    QByteArray out = startHead(status, contentType, extraHeaders);
    if (canWrite()) {
        // RFC 9110 §8.6: no Content-Length (and no content) in 1xx, 204 and 304 responses.
        const bool bodyless = status < 200 || status == 204 || status == 304;
        if (!bodyless)
            out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
        out += "\r\n";
        if (m_request.method != "HEAD" && !bodyless)
            out += body;
        m_socket->write(out);
    }
    finish();
}

void HttpExchange::replyJson(int status, const QJsonObject& body) {
    reply(status, QJsonDocument(body).toJson(QJsonDocument::Compact) + '\n',
          "application/json; charset=utf-8");
}

void HttpExchange::replyError(const ApiError& error) {
    reply(error.httpStatus, error.toJsonBody() + '\n', "application/json; charset=utf-8");
}

void HttpExchange::beginChunked(int status, const QByteArray& contentType,
                                const QList<QPair<QByteArray, QByteArray>>& extraHeaders) {
    if (m_started || m_finished)
        return;
    const QByteArray head = startHead(status, contentType, extraHeaders);
    if (canWrite())
        m_socket->write(head + "Transfer-Encoding: chunked\r\n\r\n");
}

void HttpExchange::writeChunk(const QByteArray& data) {
    if (!m_started || m_finished || data.isEmpty() || !canWrite())
        return;
    // Three writes instead of one concatenation: no extra copy of a large chunk.
    m_socket->write(QByteArray::number(data.size(), 16) + "\r\n");
    m_socket->write(data);
    m_socket->write("\r\n", 2);
    m_socket->flush();
}

void HttpExchange::endChunked(const QByteArray& lastData) {
    if (!m_started || m_finished)
        return;
    if (canWrite()) {
        QByteArray tail;
        if (!lastData.isEmpty())
            tail = QByteArray::number(lastData.size(), 16) + "\r\n" + lastData + "\r\n";
        m_socket->write(tail + "0\r\n\r\n");
        m_socket->flush();
    }
    finish();
}

void HttpExchange::beginFixed(int status, const QByteArray& contentType, qint64 contentLength,
                              const QList<QPair<QByteArray, QByteArray>>& extraHeaders) {
    if (m_started || m_finished)
        return;
    const QByteArray head = startHead(status, contentType, extraHeaders);
    m_fixedRemaining = m_request.method == "HEAD" ? 0 : contentLength;
    if (canWrite())
        m_socket->write(head + "Content-Length: " + QByteArray::number(contentLength) + "\r\n\r\n");
}

void HttpExchange::writeFixed(const QByteArray& data) {
    if (!m_started || m_finished || m_fixedRemaining <= 0 || data.isEmpty() || !canWrite())
        return;
    const QByteArray part = data.size() > m_fixedRemaining ? data.left(m_fixedRemaining) : data;
    m_fixedRemaining -= part.size();
    m_socket->write(part);
    m_socket->flush();
}

void HttpExchange::endFixed() {
    if (!m_started || m_finished)
        return;
    if (m_fixedRemaining > 0)
        m_keepAlive = false; // the body is short: only closing tells the client
    finish();
}

qint64 HttpExchange::pendingBytes() const {
    return m_socket ? m_socket->bytesToWrite() : 0;
}

void HttpExchange::finish() {
    m_finished = true;
    Q_EMIT finished();
}

void HttpExchange::markClientGone() {
    if (m_clientGone)
        return;
    m_clientGone = true;
    Q_EMIT clientGone();
}

void HttpExchange::acceptBody() {
    if (!m_bodyStreamed || m_bodyAccepted)
        return;
    m_bodyAccepted = true;
    // RFC 9110 §10.1.1: a client that sent "Expect: 100-continue" waits for this interim answer.
    if (!m_started && !m_bodyComplete && canWrite() &&
        m_request.header("expect").toLower() == "100-continue")
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    Q_EMIT bodyWanted();
}

QByteArray HttpExchange::readBody(qint64 maxBytes) {
    QByteArray out;
    if (maxBytes < 0 || maxBytes >= m_body.size()) {
        out.swap(m_body);
    } else {
        out = m_body.left(maxBytes);
        m_body.remove(0, maxBytes);
    }
    if (!out.isEmpty() && !m_bodyComplete)
        Q_EMIT bodyWanted();
    return out;
}

void HttpExchange::appendBody(const char* data, qsizetype size) {
    if (m_finished || m_bodyFailed || size <= 0)
        return;
    m_body.append(data, size);
    m_bodyReceived += size;
    m_bodyNewData = true;
}

void HttpExchange::appendBody(const QByteArray& input, const char* data, qsizetype size) {
    if (m_body.isEmpty() && data == input.constData() && size == input.size() && !m_finished &&
        !m_bodyFailed && size > 0) {
        m_body = input; // shared, not copied
        m_bodyReceived += size;
        m_bodyNewData = true;
        return;
    }
    appendBody(data, size);
}

void HttpExchange::publishBody() {
    if (m_finished || m_bodyFailed)
        return;
    QPointer<HttpExchange> self(this);
    if (m_bodyNewData) {
        m_bodyNewData = false;
        Q_EMIT bodyReadyRead();
    }
    if (self && m_bodyComplete && !m_bodyCompleteSent && !m_finished) {
        m_bodyCompleteSent = true;
        Q_EMIT bodyComplete();
    }
}

void HttpExchange::failBody(const ApiError& error) {
    if (m_bodyFailed || m_bodyComplete)
        return;
    m_bodyFailed = true;
    m_bodyError = error;
    m_keepAlive = false;
    m_body.clear();
    QPointer<HttpExchange> self(this);
    Q_EMIT bodyFailed();
    if (self && !m_started)
        replyError(error);
}

} // namespace runbox::http
