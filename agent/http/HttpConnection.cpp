#include "agent/http/HttpConnection.h"

#include "agent/http/HttpExchange.h"

#include <QSslSocket>
#include <QTcpSocket>

#include <sys/socket.h>

namespace runbox::http {

namespace {
/// Largest read from Qt's socket buffer at once; also what Qt buffers before it stops reading
/// the kernel socket while a streamed body waits for its consumer.
constexpr qint64 kSocketReadBufferBytes = 256 * 1024;

using Next = HttpParser::Next;

/// The refusal of a transfer coding other than exactly `chunked` (RFC 9112 §6.1).
ApiError unsupportedCodingError() {
    return ApiError{501, QStringLiteral("unsupported_transfer_coding"),
                    QStringLiteral("Transfer-Encoding must be exactly \"chunked\"")};
}

/// The refusal of a body that does not fit in the server's RequestBudget (sent with
/// Retry-After, RFC 9110 §15.6.4).
ApiError busyError() {
    return ApiError{503, QStringLiteral("server_busy"),
                    QStringLiteral("too many request bytes are waiting; retry later")};
}
} // namespace

HttpConnection::HttpConnection(QTcpSocket* socket, RequestHandler* handler,
                               const HttpLimits& limits, QObject* parent,
                               std::shared_ptr<RequestBudget> budget)
    : QObject(parent), m_socket(socket), m_handler(handler), m_limits(limits),
      m_parser(HttpParser::Mode::Request, limits.maxHeaderBytes,
               {[this] { onMessageBegin(); },
                [this](HttpParser::Head& head) { return onHeadComplete(head); },
                [this](const char* at, qsizetype len) { return onBody(at, len); },
                [this] { return onMessageComplete(); }}),
      m_scanner(limits.maxHeaderBytes), m_budget(std::move(budget)) {
    socket->setParent(this);
    socket->setReadBufferSize(kSocketReadBufferBytes);

    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HttpConnection::onTimeout);
    m_timer.start(int(m_limits.headerTimeoutMs));

    connect(socket, &QTcpSocket::readyRead, this, &HttpConnection::readFromSocket);
    connect(socket, &QTcpSocket::disconnected, this, [this] {
        if (m_exchange)
            m_exchange->markClientGone();
        deleteLater();
    });
    connect(socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError e) {
        if (e != QAbstractSocket::RemoteHostClosedError && m_exchange)
            m_exchange->markClientGone();
    });
}

HttpConnection::~HttpConnection() {
    if (m_exchange)
        m_exchange->markClientGone();
}

void HttpConnection::onMessageBegin() {
    m_current = HttpRequest{};
    m_current.peer =
        m_socket->peerAddress().toString() + ':' + QString::number(m_socket->peerPort());
    m_inMessage = true;
    m_headComplete = false;
    m_timer.start(int(m_limits.headerTimeoutMs));
}

Next HttpConnection::onHeadComplete(HttpParser::Head& head) {
    HttpRequest& r = m_current;
    r.rawTarget = std::move(head.target);
    r.headers.reserve(head.headers.size());
    for (const auto& [name, value] : std::as_const(head.headers))
        r.headers.append({name.toLower(), value.trimmed()});
    r.method = head.method;
    const qsizetype q = r.rawTarget.indexOf('?');
    r.rawPath = q < 0 ? r.rawTarget : r.rawTarget.left(q);
    r.rawQuery = q < 0 ? QByteArray() : r.rawTarget.mid(q + 1);
    m_keepAlive = head.keepAlive;
    m_headComplete = true;
    m_timer.start(int(m_limits.bodyStallTimeoutMs));
    if (auto refusal = admitHead(head)) {
        m_headError = std::move(refusal);
        return Next::Refuse; // answered by parseBuffered()
    }
    if (m_streamBody) {
        // Dispatch before the first body byte: the handler decides (auth, quotas) first.
        m_headPending = true;
        return Next::Pause;
    }
    // RFC 9110 §10.1.1: the body is wanted, tell a client that waits for it.
    if (head.versionMajor == 1 && head.versionMinor >= 1 &&
        r.header("expect").toLower() == "100-continue")
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    return Next::Continue;
}

std::optional<ApiError> HttpConnection::admitHead(const HttpParser::Head& head) {
    const HttpRequest& r = m_current;
    // RFC 9112 §6.1: the only transfer coding we implement is chunked, alone (no gzip, no
    // list, no repeated field); anything else is 501 rather than a body read a different way.
    if (r.headerCount("transfer-encoding") > 1 ||
        (r.headerCount("transfer-encoding") == 1 &&
         r.header("transfer-encoding").toLower() != "chunked"))
        return unsupportedCodingError();
    if (auto refusal = m_handler->checkHead(r))
        return refusal; // e.g. 401 before any body byte is read
    if (m_handler->wantsBodyStream(r)) {
        m_streamBody = true;
        return std::nullopt;
    }
    const bool declared = head.contentLength != ULLONG_MAX;
    if (declared && qint64(head.contentLength) > m_limits.maxBodyBytes)
        return ApiError{413, QStringLiteral("body_too_large"),
                        QStringLiteral("request body exceeds %1 bytes").arg(m_limits.maxBodyBytes)};
    if (declared && head.contentLength > 0) {
        if (!m_budget.grow(qint64(head.contentLength)))
            return busyError();
        m_bodyReserved = true;
        m_current.body.reserve(qsizetype(head.contentLength)); // no growth beyond what is held
    }
    return std::nullopt;
}

Next HttpConnection::onBody(const char* at, qsizetype len) {
    if (m_streamBody) {
        if (m_exchange)
            m_exchange->body().append(m_input, at, len);
        else if (m_draining && (m_drainLeft -= qint64(len)) < 0)
            return Next::Refuse; // drained enough: parseBuffered() closes
        return Next::Continue;
    }
    if (m_current.body.size() + qint64(len) > m_limits.maxBodyBytes)
        return Next::Refuse;                              // 413 (HPE_CB_body)
    if (!m_bodyReserved && !m_budget.grow(qint64(len))) { // chunked: held as it comes
        m_headError = busyError();
        return Next::Refuse;
    }
    m_current.body.append(at, len);
    return Next::Continue;
}

Next HttpConnection::onMessageComplete() {
    m_inMessage = false;
    m_timer.stop();
    if (m_streamBody) {
        m_streamBody = false; // already dispatched; its exchange learns it in parseBuffered
        if (m_exchange)
            m_exchange->body().markComplete();
    } else {
        m_messageReady = true;
    }
    return Next::Pause; // one request at a time: the rest waits in m_input
}

void HttpConnection::readFromSocket() {
    if (m_upgraded)
        return; // the socket belongs to whoever took it over
    if (m_closing) {
        m_socket->readAll(); // lingering: drop what the client still sends
        return;
    }
    // A streamed body whose consumer is behind, or bytes pipelined behind a request in
    // progress: once a buffer's worth waits here, leave the bytes in the socket (Qt stops
    // reading the kernel buffer once its own is full, and TCP flow control reaches the client).
    // Below that, keep reading, so a client that leaves is noticed.
    if (!canFeed() && m_input.size() >= m_limits.streamBufferBytes)
        return;
    if (m_input.isEmpty()) // a streamed body passes here a GiB at a time: no copy
        m_input = m_socket->readAll();
    else
        m_input += m_socket->readAll();
    if (m_inMessage && m_headComplete)
        m_timer.start(int(m_limits.bodyStallTimeoutMs));
    if (canFeed())
        parseBuffered();
}

bool HttpConnection::canFeed() const {
    if (m_closing)
        return false;
    if (!m_exchange)
        return true;
    return m_streamBody && !m_exchange->isFinished() && m_exchange->body().isAccepted() &&
           m_exchange->body().bytesAvailable() < m_limits.streamBufferBytes;
}

void HttpConnection::parseBuffered() {
    while (!m_input.isEmpty() && canFeed()) {
        if (!m_inMessage && !m_messageReady)
            m_timer.start(int(m_limits.headerTimeoutMs));
        if (!scanHead())
            return;
        const bool feedingStream = m_streamBody && m_exchange;
        const qsizetype n = m_parser.feed(m_input.constData(), m_input.size());
        const http_errno err = m_parser.error();
        if (m_draining && (err != HPE_OK && err != HPE_PAUSED)) {
            closeConnection(); // the answer is already out: no second one
            return;
        }
        if (err == HPE_PAUSED) {
            consumeInput(n);
        } else if (err != HPE_OK) {
            if (m_headError) { // a callback refused the head or the body (401, 413, 501, 503)
                const ApiError refusal = *m_headError;
                m_headError.reset();
                failRequest(refusal);
                return;
            }
            // Callbacks refuse a body over the limit; HttpParser stops an oversized head.
            const bool bodyTooLarge = err == HPE_CB_headers_complete || err == HPE_CB_body;
            if (bodyTooLarge)
                failRequest(
                    413, QStringLiteral("body_too_large"),
                    QStringLiteral("request body exceeds %1 bytes").arg(m_limits.maxBodyBytes));
            else if (m_parser.headTooLarge())
                failRequest(
                    431, QStringLiteral("headers_too_large"),
                    QStringLiteral("request head exceeds %1 bytes").arg(m_limits.maxHeaderBytes));
            else if (err == HPE_INVALID_TRANSFER_ENCODING) // a coding after chunked, or none
                failRequest(unsupportedCodingError());
            else
                failRequest(400, QStringLiteral("bad_request"),
                            QStringLiteral("malformed HTTP request: %1")
                                .arg(QString::fromLatin1(http_errno_description(err))));
            return;
        } else {
            consumeInput(n);
        }
        if (m_draining && !m_streamBody) { // the drained body ended: now close
            closeConnection();
            return;
        }
        if (feedingStream && m_exchange) {
            QPointer<HttpConnection> guard(this);
            m_exchange->body().publish(); // the handler may answer (and end) right here
            if (!guard)
                return;
        }
        if (m_headPending)
            dispatchStreamed();
        else if (m_messageReady)
            dispatch();
        else if (err == HPE_OK)
            break; // need more bytes
    }
}

bool HttpConnection::scanHead() {
    if (m_scanner.isDone()) {
        if (m_inMessage)
            return true;   // past this message's head: body bytes
        m_scanner.reset(); // the next message starts with these bytes
    }
    // Every byte in m_input is new to the scanner: the parser consumed all the head bytes
    // before (it pauses only once a head is complete).
    qsizetype headBytes = 0;
    if (m_scanner.scan(m_input.constData(), m_input.size(), &headBytes) !=
        RequestHeadScanner::Verdict::Invalid)
        return true;
    failRequest(m_scanner.error());
    return false;
}

void HttpConnection::dispatch() {
    m_messageReady = false;
    auto* exchange = new HttpExchange(std::move(m_current), m_socket, m_keepAlive, this);
    m_current = HttpRequest{};
    m_exchange = exchange;
    connect(exchange, &HttpExchange::finished, this, &HttpConnection::onExchangeFinished,
            Qt::QueuedConnection);
    connect(exchange, &HttpExchange::takeOverRequested, this, &HttpConnection::handOver);
    m_handler->handle(exchange);
}

void HttpConnection::dispatchStreamed() {
    m_headPending = false;
    auto* exchange = new HttpExchange(std::move(m_current), m_socket, m_keepAlive, this);
    m_current = HttpRequest{};
    exchange->body().setStreamed();
    m_exchange = exchange;
    connect(exchange, &HttpExchange::finished, this, &HttpConnection::onExchangeFinished,
            Qt::QueuedConnection);
    // Resume reading when the consumer wants more (queued: never from inside its own call).
    connect(&exchange->body(), &HttpRequestBody::wanted, this, &HttpConnection::readFromSocket,
            Qt::QueuedConnection);
    m_handler->handle(exchange);
}

void HttpConnection::handOver(QByteArray* buffered) {
    // The socket now speaks another protocol: no more parsing, timeouts or lingering here. The
    // connection stays the socket's parent and goes with it when it disconnects.
    m_upgraded = true;
    m_closing = true;
    m_timer.stop();
    *buffered = m_input;
    m_input.clear();
    disconnect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::readFromSocket);
    if (m_exchange) {
        disconnect(m_exchange, nullptr, this, nullptr);
        m_exchange->deleteLater();
        m_exchange = nullptr;
    }
    m_budget.release();
}

void HttpConnection::onExchangeFinished() {
    bool keepAlive = m_keepAlive;
    qint64 drainLimit = 0;
    if (m_exchange) {
        keepAlive = keepAlive && m_exchange->keepAlive();
        // A streamed body that is still arriving is not read to its end: close instead, after
        // draining it when the handler allowed that (clients that read only after sending).
        if (m_exchange->body().isStreamed() && !m_exchange->body().isComplete()) {
            keepAlive = false;
            drainLimit = m_streamBody && !m_closing ? m_exchange->drainLimit() : 0;
        }
        m_exchange->deleteLater();
    }
    m_exchange = nullptr;
    m_budget.release(); // the body goes with the exchange
    m_bodyReserved = false;
    if (drainLimit > 0) {
        m_keepAlive = false;
        m_draining = true;
        m_drainLeft = drainLimit;
        m_timer.start(int(m_limits.bodyStallTimeoutMs));
        readFromSocket();
        return;
    }
    if (!keepAlive) {
        m_keepAlive = false;
        closeConnection();
        return;
    }
    m_timer.start(int(m_limits.idleTimeoutMs));
    parseBuffered();
    // Pipelined bytes left in Qt's buffer while the request ran: no readyRead comes for them.
    if (m_socket->bytesAvailable() > 0)
        readFromSocket();
}

void HttpConnection::failRequest(const ApiError& error) {
    m_keepAlive = false;
    m_timer.stop();
    if (m_streamBody && m_exchange) {
        // The broken body belongs to a dispatched exchange: it tells its handler and answers.
        m_streamBody = false;
        QPointer<HttpConnection> guard(this);
        m_exchange->failBody(error);
        if (guard)
            closeConnection();
        return;
    }
    m_closing = true;
    HttpExchange e(std::move(m_current), m_socket, false, nullptr);
    m_current = HttpRequest{};
    m_budget.release();
    if (error.httpStatus == 503)
        e.reply(503, error.toJsonBody() + '\n', "application/json; charset=utf-8",
                {{"Retry-After", "1"}});
    else
        e.replyError(error);
    closeConnection();
}

void HttpConnection::onTimeout() {
    if (m_upgraded)
        return;
    if (m_lingering) {
        m_socket->abort();
        deleteLater();
        return;
    }
    if (m_draining) { // the answer is out; a stalled body only ends the connection
        closeConnection();
        return;
    }
    if (m_exchange && m_streamBody && m_exchange->body().isAccepted()) {
        if (!canFeed()) { // the consumer is behind, not the client
            m_timer.start(int(m_limits.bodyStallTimeoutMs));
            return;
        }
        failRequest(408, QStringLiteral("request_timeout"),
                    QStringLiteral("the request body stalled"));
        return;
    }
    if (m_exchange)
        return; // a response in progress is the handler's business
    if (m_inMessage || !m_input.isEmpty()) {
        failRequest(408, QStringLiteral("request_timeout"),
                    QStringLiteral("the request did not arrive in time"));
        return;
    }
    closeConnection();
}

void HttpConnection::closeConnection() {
    m_closing = true;
    if (m_lingering)
        return;
    if (m_socket->state() != QAbstractSocket::ConnectedState) {
        m_socket->abort();
        deleteLater();
        return;
    }
    // Lingering close: send everything, shut down our sending side, and keep reading (and
    // dropping) until the client closes or lingerMs pass — closing with unread input would
    // make the kernel send a reset that can destroy the response before the client reads it.
    m_lingering = true;
    m_timer.start(int(m_limits.lingerMs));
    // Over TLS, bytesWritten() says the plain text was taken by the TLS layer, while its
    // records may still wait there, not yet handed to the TCP socket: shutting down then lost
    // the answer (an error reply never reached TLS clients; write() got EPIPE after our
    // shutdown). Only encryptedBytesWritten() says records left.
    if (auto* tls = qobject_cast<QSslSocket*>(m_socket))
        connect(tls, &QSslSocket::encryptedBytesWritten, this,
                &HttpConnection::shutdownWriteWhenFlushed);
    else
        connect(m_socket, &QTcpSocket::bytesWritten, this,
                &HttpConnection::shutdownWriteWhenFlushed);
    shutdownWriteWhenFlushed();
    readFromSocket();
}

void HttpConnection::shutdownWriteWhenFlushed() {
    if (m_writeShut || m_socket->bytesToWrite() > 0)
        return;
    // Over TLS, bytesToWrite() counts only what waits to be encrypted: the records already
    // encrypted wait in the TCP socket's buffer and must leave before our side is shut.
    if (const auto* tls = qobject_cast<QSslSocket*>(m_socket);
        tls && tls->encryptedBytesToWrite() > 0)
        return;
    m_writeShut = true;
    ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
}

} // namespace runbox::http
