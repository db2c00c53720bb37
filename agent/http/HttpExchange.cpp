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

QByteArray HttpExchange::statusHead(int status, const QByteArray& contentType,
                                    const QList<QPair<QByteArray, QByteArray>>& extra) const {
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

void HttpExchange::reply(int status, const QByteArray& body, const QByteArray& contentType,
                         const QList<QPair<QByteArray, QByteArray>>& extraHeaders) {
    if (m_started || m_finished)
        return;
    m_started = true;
    if (m_socket && !m_clientGone) {
        QByteArray out = statusHead(status, contentType, extraHeaders);
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n";
        if (m_request.method != "HEAD")
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
    m_started = true;
    if (m_socket && !m_clientGone)
        m_socket->write(statusHead(status, contentType, extraHeaders) +
                        "Transfer-Encoding: chunked\r\n\r\n");
}

void HttpExchange::writeChunk(const QByteArray& data) {
    if (!m_started || m_finished || data.isEmpty() || !m_socket || m_clientGone)
        return;
    m_socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
    m_socket->flush();
}

void HttpExchange::endChunked() {
    if (!m_started || m_finished)
        return;
    if (m_socket && !m_clientGone)
        m_socket->write("0\r\n\r\n");
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

} // namespace runbox::http
