#pragma once

#include "agent/http/HttpParser.h"
#include "agent/http/HttpRequest.h"
#include "agent/http/RequestBudget.h"
#include "agent/http/RequestHeadScanner.h"
#include "shared/ApiError.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

class QTcpSocket;

namespace runbox::http {

class HttpExchange;

/// What the server calls for each request.
class RequestHandler {
public:
    virtual ~RequestHandler() = default;

    /// Asked once the request head (method, target, headers) has arrived, before any body byte
    /// is read. true: the body is streamed — handle() is called at once with an empty
    /// HttpRequest::body, and the body arrives through the exchange (HttpExchange::body():
    /// HttpRequestBody::accept(), read(), readyRead(), complete()) without the maxBodyBytes limit,
    /// the socket being read only while fewer than HttpLimits::streamBufferBytes wait unread. false
    /// (default): the body is buffered (at most maxBodyBytes, else 413) before handle(). Asked once
    /// the request head has arrived, before wantsBodyStream() and before any body byte is read. An
    /// error is answered at once and the connection is closed (lingering close, RFC 9112 §9.6), so
    /// that a request that would be refused anyway (a missing or wrong token, RFC 9110 §11.6.1)
    /// never has its body read or held. Default: no objection.
    virtual std::optional<ApiError> checkHead(const HttpRequest& head) {
        Q_UNUSED(head);
        return std::nullopt;
    }
    virtual bool wantsBodyStream(const HttpRequest& head) {
        Q_UNUSED(head);
        return false;
    }
    /// Answers @p exchange now or later; must end it with a reply, endChunked() or endFixed().
    virtual void handle(HttpExchange* exchange) = 0;
};

/// Limits that protect the agent from clients (bytes and ms).
struct HttpLimits {
    qint64 maxHeaderBytes = 64 * 1024;      ///< request line + headers
    qint64 maxBodyBytes = 16 * 1024 * 1024; ///< buffered bodies; larger → 413
    qint64 headerTimeoutMs = 10000;         ///< the request head must arrive within this
    qint64 bodyStallTimeoutMs = 30000;      ///< no body byte for this long → 408
    qint64 idleTimeoutMs = 120000;          ///< idle keep-alive connection is closed
    /// Streamed bodies: the socket is not read while this many body bytes wait unread.
    qint64 streamBufferBytes = 1024 * 1024;
    /// After a response that closes the connection: how long unread request bytes are still
    /// read and dropped (after a write shutdown) so that the client gets the response rather
    /// than a reset (the "lingering close" of RFC 9112 §9.6).
    qint64 lingerMs = 2000;
    /// Open connections at most (HttpServer); beyond, a new one gets 503 and is closed.
    /// 0: no cap.
    qint64 maxConnections = 512;
    /// Buffered request bodies of all connections together hold at most this many bytes
    /// (RequestBudget); a body that does not fit gets 503. 0: no bound.
    qint64 maxBufferedRequestBytes = 256LL * 1024 * 1024;
};

/// One client connection: parses requests with http-parser (one at a time; pipelined requests
/// wait), hands each to the handler, and keeps the connection alive per RFC 9112 §9.3.
/// Framing errors (both Content-Length and Transfer-Encoding, bad chunk sizes, bad header
/// syntax) get a 400 JSON error and the connection is closed after it (lingering close).
/// Where http-parser is lenient, RequestHeadScanner holds the head to RFC 9112 first (CRLF
/// only, no obs-fold, request line with HTTP/1.0 or HTTP/1.1: 400/505), and a transfer coding
/// other than exactly `chunked` is 501 (RFC 9112 §6.1). Then RequestHandler::checkHead() may
/// refuse the head before a body byte is read. A buffered body reserves its bytes in the
/// server-wide RequestBudget first (Content-Length at once, chunked as it arrives): no room →
/// 503 with Retry-After. Bytes pipelined behind a request in progress are read only up to
/// HttpLimits::streamBufferBytes; the rest waits in the kernel.
///
/// Streamed request bodies (RequestHandler::wantsBodyStream): the exchange is created as soon
/// as the head is parsed; body bytes (Content-Length or chunked, decoded) are fed to it only
/// after the handler accepted the body and while it keeps up, so a slow consumer stops the
/// socket reads and TCP pushes back on the client. A response that starts before the whole
/// body arrived closes the connection afterwards; a framing error or a stall in the middle of
/// the body is reported to the exchange (HttpRequestBody::failed) and answered on it. An early
/// response closes only after the rest of the body was read and dropped, up to
/// HttpExchange::drainLimit() bytes (0: at once, with a lingering close).
class HttpConnection final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpConnection)
public:
    /// @p budget: the server's bound on buffered request bytes (null: unbounded).
    HttpConnection(QTcpSocket* socket, RequestHandler* handler, const HttpLimits& limits,
                   QObject* parent, std::shared_ptr<RequestBudget> budget = nullptr);
    ~HttpConnection() override;

private:
    void onMessageBegin();
    HttpParser::Next onHeadComplete(HttpParser::Head& head);
    HttpParser::Next onBody(const char* at, qsizetype len);
    HttpParser::Next onMessageComplete();

    void readFromSocket();
    void parseBuffered();
    /// Drops the first @p n bytes of m_input (parsed). All of them: clear(), which drops our
    /// reference only (the exchange may share these bytes; remove() would copy them first).
    void consumeInput(qsizetype n) {
        n >= m_input.size() ? m_input.clear() : void(m_input.remove(0, n));
    }
    /// True when buffered input may be fed to the parser now.
    bool canFeed() const;
    void dispatch();
    void dispatchStreamed();
    void onExchangeFinished();
    /// HttpExchange::takeOverConnection(): lets go of the socket.
    void handOver(QByteArray* buffered);
    void failRequest(int status, const QString& code, const QString& message) {
        failRequest(ApiError{status, code, message});
    }
    /// Answers @p error (a 503 with `Retry-After: 1`) and closes the connection.
    void failRequest(const ApiError& error);
    /// Checks a complete head (transfer coding, handler, size, budget); the refusal or null.
    std::optional<ApiError> admitHead(const HttpParser::Head& head);
    /// Runs RequestHeadScanner over the head bytes at the start of m_input; false after
    /// answering a refused head.
    bool scanHead();
    void onTimeout();
    void closeConnection();
    void shutdownWriteWhenFlushed();

    QTcpSocket* m_socket;
    RequestHandler* m_handler;
    HttpLimits m_limits;
    HttpParser m_parser;
    QByteArray m_input; ///< received bytes not yet fed to the parser
    HttpRequest m_current;
    bool m_inMessage = false;
    bool m_headComplete = false;
    bool m_messageReady = false;
    bool m_closing = false;
    bool m_upgraded = false; ///< taken over by another protocol (WebSocket relay)
    bool m_keepAlive = true;
    bool m_streamBody = false;  ///< the current message's body goes to m_exchange
    bool m_headPending = false; ///< a streamed head waits to be dispatched
    bool m_lingering = false;   ///< closing: reading and dropping input until EOF or lingerMs
    bool m_writeShut = false;
    bool m_draining = false; ///< answered early: reading and dropping the rest of the body
    qint64 m_drainLeft = 0;  ///< body bytes still allowed while draining
    QPointer<HttpExchange> m_exchange;
    QTimer m_timer;
    RequestHeadScanner m_scanner;
    std::optional<ApiError> m_headError; ///< why a callback stopped the parser (answered next)
    BudgetShare m_budget;                ///< the buffered body's bytes in the server's budget
    bool m_bodyReserved = false;         ///< the whole declared Content-Length is in m_budget
};

} // namespace runbox::http
