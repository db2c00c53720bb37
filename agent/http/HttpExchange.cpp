#include "agent/http/HttpExchange.h"

#include "agent/http/ErrorStatus.h"

#include <QJsonDocument>
#include <QSslSocket>
#include <QTcpSocket>

namespace runbox::http {

HttpExchange::HttpExchange(HttpRequest request, QTcpSocket* socket, bool keepAlive, QObject* parent)
    : QObject(parent), HttpResponseWriter(socket, request.method == "HEAD", keepAlive),
      m_request(std::move(request)), m_body(new HttpRequestBody(this)) {
    connect(socket, &QTcpSocket::bytesWritten, this, &HttpExchange::writable);
    // Over TLS the records leave the TCP buffer later than bytesWritten says (pendingBytes()).
    if (auto* tls = qobject_cast<QSslSocket*>(socket))
        connect(tls, &QSslSocket::encryptedBytesWritten, this, &HttpExchange::writable);
    m_body->onFirstAccept([this] {
        // RFC 9110 §10.1.1: a client that sent "Expect: 100-continue" waits for this interim
        // answer.
        if (!isStarted() && !m_body->isComplete() && canWrite() &&
            m_request.header("expect").toLower() == "100-continue")
            this->socket()->write("HTTP/1.1 100 Continue\r\n\r\n");
    });
}

void HttpExchange::onStart() {
    // A streamed body still arriving cannot be skipped cheaply: close after this response.
    if (m_body->isStreamed() && !m_body->isComplete())
        closeAfterResponse();
}

void HttpExchange::onFinish() {
    m_body->close();
    Q_EMIT finished();
}

QTcpSocket* HttpExchange::takeOverConnection(QByteArray* buffered) {
    if (isStarted() || isFinished() || !canWrite())
        return nullptr;
    markTakenOver(); // nothing more goes through this exchange
    m_body->close();
    m_takenOver = true;
    buffered->clear();
    Q_EMIT takeOverRequested(buffered);
    disconnect(socket(), nullptr, this, nullptr);
    return socket();
}

void HttpExchange::replyJson(int status, const QJsonObject& body) {
    reply(status, QJsonDocument(body).toJson(QJsonDocument::Compact) + '\n',
          "application/json; charset=utf-8");
}

void HttpExchange::replyError(const ApiError& error) {
    reply(error.httpStatus, error.toJsonBody() + '\n', "application/json; charset=utf-8");
}

void HttpExchange::replyError(const Error& error) {
    replyError(toApiError(error));
}

void HttpExchange::markClientGone() {
    if (setClientGone())
        Q_EMIT clientGone();
}

void HttpExchange::failBody(const ApiError& error) {
    if (m_body->hasFailed() || m_body->isComplete())
        return;
    closeAfterResponse();
    QPointer<HttpExchange> self(this);
    m_body->fail(error);
    if (self && !isStarted())
        replyError(error);
}

} // namespace runbox::http
