#include "agent/http/HttpConnection.h"

#include "agent/http/HttpExchange.h"

#include <QTcpSocket>

#include <sys/socket.h>

namespace runbox::http {

namespace {
HttpConnection* self(http_parser* p) {
    return static_cast<HttpConnection*>(p->data);
}

/// Largest read from Qt's socket buffer at once; also what Qt buffers before it stops reading
/// the kernel socket while a streamed body waits for its consumer.
constexpr qint64 kSocketReadBufferBytes = 256 * 1024;

/// Callback return value for a body over the limit. Not 1 or 2: from on_headers_complete
/// http-parser reads those as "skip the body" / "upgrade" and would dispatch the request with an
/// empty body, then parse the body bytes as the next request. Any other non-zero value is
/// HPE_CB_headers_complete / HPE_CB_body, reported as 413 by parseBuffered().
constexpr int kRefuseBody = 3;

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
      m_scanner(limits.maxHeaderBytes), m_budget(std::move(budget)) {
    socket->setParent(this);
    socket->setReadBufferSize(kSocketReadBufferBytes);
    http_parser_init(&m_parser, HTTP_REQUEST);
    m_parser.data = this;
    http_parser_settings_init(&m_settings);
    m_settings.on_message_begin = &HttpConnection::onMessageBegin;
    m_settings.on_url = &HttpConnection::onUrl;
    m_settings.on_header_field = &HttpConnection::onHeaderField;
    m_settings.on_header_value = &HttpConnection::onHeaderValue;
    m_settings.on_headers_complete = &HttpConnection::onHeadersComplete;
    m_settings.on_body = &HttpConnection::onBody;
    m_settings.on_message_complete = &HttpConnection::onMessageComplete;

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

int HttpConnection::onMessageBegin(http_parser* p) {
    HttpConnection* c = self(p);
    c->m_current = HttpRequest{};
    c->m_current.peer =
        c->m_socket->peerAddress().toString() + ':' + QString::number(c->m_socket->peerPort());
    c->m_headerField.clear();
    c->m_headerValue.clear();
    c->m_lastWasValue = false;
    c->m_headerBytes = 0;
    c->m_inMessage = true;
    c->m_headComplete = false;
    c->m_timer.start(int(c->m_limits.headerTimeoutMs));
    return 0;
}

int HttpConnection::onUrl(http_parser* p, const char* at, size_t len) {
    HttpConnection* c = self(p);
    if (!c->countHeaderBytes(len))
        return 1;
    c->m_current.rawTarget.append(at, qsizetype(len));
    return 0;
}

int HttpConnection::onHeaderField(http_parser* p, const char* at, size_t len) {
    HttpConnection* c = self(p);
    if (!c->countHeaderBytes(len))
        return 1;
    if (c->m_lastWasValue) {
        c->m_current.headers.append({c->m_headerField.toLower(), c->m_headerValue.trimmed()});
        c->m_headerField.clear();
        c->m_headerValue.clear();
        c->m_lastWasValue = false;
    }
    c->m_headerField.append(at, qsizetype(len));
    return 0;
}

int HttpConnection::onHeaderValue(http_parser* p, const char* at, size_t len) {
    HttpConnection* c = self(p);
    if (!c->countHeaderBytes(len))
        return 1;
    c->m_headerValue.append(at, qsizetype(len));
    c->m_lastWasValue = true;
    return 0;
}

int HttpConnection::onHeadersComplete(http_parser* p) {
    HttpConnection* c = self(p);
    if (c->m_lastWasValue || !c->m_headerField.isEmpty())
        c->m_current.headers.append({c->m_headerField.toLower(), c->m_headerValue.trimmed()});
    HttpRequest& r = c->m_current;
    r.method = http_method_str(http_method(p->method));
    const qsizetype q = r.rawTarget.indexOf('?');
    r.rawPath = q < 0 ? r.rawTarget : r.rawTarget.left(q);
    r.rawQuery = q < 0 ? QByteArray() : r.rawTarget.mid(q + 1);
    c->m_keepAlive = http_should_keep_alive(p) != 0;
    c->m_headComplete = true;
    c->m_timer.start(int(c->m_limits.bodyStallTimeoutMs));
    if (auto refusal = c->admitHead(p)) {
        c->m_headError = std::move(refusal);
        return kRefuseBody; // answered by parseBuffered()
    }
    if (c->m_streamBody) {
        // Dispatch before the first body byte: the handler decides (auth, quotas) first.
        c->m_headPending = true;
        http_parser_pause(p, 1);
        return 0;
    }
    // RFC 9110 §10.1.1: the body is wanted, tell a client that waits for it.
    if (p->http_major == 1 && p->http_minor >= 1 && r.header("expect").toLower() == "100-continue")
        c->m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    return 0;
}

std::optional<ApiError> HttpConnection::admitHead(http_parser* p) {
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
    const bool declared = p->content_length != ULLONG_MAX;
    if (declared && qint64(p->content_length) > m_limits.maxBodyBytes)
        return ApiError{413, QStringLiteral("body_too_large"),
                        QStringLiteral("request body exceeds %1 bytes").arg(m_limits.maxBodyBytes)};
    if (declared && p->content_length > 0) {
        if (!m_budget.grow(qint64(p->content_length)))
            return busyError();
        m_bodyReserved = true;
        m_current.body.reserve(qsizetype(p->content_length)); // no growth beyond what is held
    }
    return std::nullopt;
}

int HttpConnection::onBody(http_parser* p, const char* at, size_t len) {
    HttpConnection* c = self(p);
    if (c->m_streamBody) {
        if (c->m_exchange)
            c->m_exchange->appendBody(c->m_input, at, qsizetype(len));
        else if (c->m_draining && (c->m_drainLeft -= qint64(len)) < 0)
            return kRefuseBody; // drained enough: parseBuffered() closes
        return 0;
    }
    if (c->m_current.body.size() + qint64(len) > c->m_limits.maxBodyBytes)
        return kRefuseBody;
    if (!c->m_bodyReserved && !c->m_budget.grow(qint64(len))) { // chunked: held as it comes
        c->m_headError = busyError();
        return kRefuseBody;
    }
    c->m_current.body.append(at, qsizetype(len));
    return 0;
}

int HttpConnection::onMessageComplete(http_parser* p) {
    HttpConnection* c = self(p);
    c->m_inMessage = false;
    c->m_timer.stop();
    if (c->m_streamBody) {
        c->m_streamBody = false; // already dispatched; its exchange learns it in parseBuffered
        if (c->m_exchange)
            c->m_exchange->markBodyComplete();
    } else {
        c->m_messageReady = true;
    }
    http_parser_pause(p, 1); // one request at a time: the rest waits in m_input
    return 0;
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
    return m_streamBody && !m_exchange->isFinished() && m_exchange->isBodyAccepted() &&
           m_exchange->bodyBytesAvailable() < m_limits.streamBufferBytes;
}

void HttpConnection::parseBuffered() {
    while (!m_input.isEmpty() && canFeed()) {
        if (!m_inMessage && !m_messageReady)
            m_timer.start(int(m_limits.headerTimeoutMs));
        if (!scanHead())
            return;
        const bool feedingStream = m_streamBody && m_exchange;
        const size_t n = http_parser_execute(&m_parser, &m_settings, m_input.constData(),
                                             size_t(m_input.size()));
        const http_errno err = HTTP_PARSER_ERRNO(&m_parser);
        if (m_draining && (err != HPE_OK && err != HPE_PAUSED)) {
            closeConnection(); // the answer is already out: no second one
            return;
        }
        if (err == HPE_PAUSED) {
            consumeInput(qsizetype(n));
            http_parser_pause(&m_parser, 0);
        } else if (err != HPE_OK) {
            if (m_headError) { // a callback refused the head or the body (401, 413, 501, 503)
                const ApiError refusal = *m_headError;
                m_headError.reset();
                failRequest(refusal);
                return;
            }
            // Callbacks return kRefuseBody for a body over the limit, 1 for an oversized head.
            const bool bodyTooLarge = err == HPE_CB_headers_complete || err == HPE_CB_body;
            if (bodyTooLarge)
                failRequest(
                    413, QStringLiteral("body_too_large"),
                    QStringLiteral("request body exceeds %1 bytes").arg(m_limits.maxBodyBytes));
            else if (err == HPE_CB_url || err == HPE_CB_header_field ||
                     err == HPE_CB_header_value || err == HPE_HEADER_OVERFLOW)
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
            consumeInput(qsizetype(n));
        }
        if (m_draining && !m_streamBody) { // the drained body ended: now close
            closeConnection();
            return;
        }
        if (feedingStream && m_exchange) {
            QPointer<HttpConnection> guard(this);
            m_exchange->publishBody(); // the handler may answer (and end) right here
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
    exchange->setBodyStreamed();
    m_exchange = exchange;
    connect(exchange, &HttpExchange::finished, this, &HttpConnection::onExchangeFinished,
            Qt::QueuedConnection);
    // Resume reading when the consumer wants more (queued: never from inside its own call).
    connect(exchange, &HttpExchange::bodyWanted, this, &HttpConnection::readFromSocket,
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
        if (m_exchange->isBodyStreamed() && !m_exchange->isBodyComplete()) {
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
    if (m_exchange && m_streamBody && m_exchange->isBodyAccepted()) {
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
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::shutdownWriteWhenFlushed);
    shutdownWriteWhenFlushed();
    readFromSocket();
}

void HttpConnection::shutdownWriteWhenFlushed() {
    if (m_writeShut || m_socket->bytesToWrite() > 0)
        return;
    m_writeShut = true;
    ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
}

} // namespace runbox::http
