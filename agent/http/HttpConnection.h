#pragma once

#include "agent/http/HttpRequest.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <http_parser.h>

class QTcpSocket;

namespace runbox::http {

class HttpExchange;

/// What the server calls for each complete request.
class RequestHandler {
public:
    virtual ~RequestHandler() = default;
    /// Answers @p exchange now or later; must end it with a reply or endChunked().
    virtual void handle(HttpExchange* exchange) = 0;
};

/// Limits that protect the agent from clients (bytes and ms).
struct HttpLimits {
    qint64 maxHeaderBytes = 64 * 1024;      ///< request line + headers
    qint64 maxBodyBytes = 16 * 1024 * 1024; ///< buffered bodies; larger → 413
    qint64 headerTimeoutMs = 10000;         ///< the request head must arrive within this
    qint64 bodyStallTimeoutMs = 30000;      ///< no body byte for this long → 408
    qint64 idleTimeoutMs = 120000;          ///< idle keep-alive connection is closed
};

/// One client connection: parses requests with http-parser (one at a time; pipelined requests
/// wait), hands each to the handler, and keeps the connection alive per RFC 9112 §9.3.
/// Framing errors (both Content-Length and Transfer-Encoding, bad chunk sizes, bad header
/// syntax) get a 400 JSON error and the connection is closed after it.
class HttpConnection final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpConnection)
public:
    HttpConnection(QTcpSocket* socket, RequestHandler* handler, const HttpLimits& limits,
                   QObject* parent);
    ~HttpConnection() override;

private:
    static int onMessageBegin(http_parser* p);
    static int onUrl(http_parser* p, const char* at, size_t len);
    static int onHeaderField(http_parser* p, const char* at, size_t len);
    static int onHeaderValue(http_parser* p, const char* at, size_t len);
    static int onHeadersComplete(http_parser* p);
    static int onBody(http_parser* p, const char* at, size_t len);
    static int onMessageComplete(http_parser* p);

    void readFromSocket();
    void parseBuffered();
    void dispatch();
    void onExchangeFinished();
    void failRequest(int status, const QString& code, const QString& message);
    void onTimeout();
    void closeConnection();

    QTcpSocket* m_socket;
    RequestHandler* m_handler;
    HttpLimits m_limits;
    http_parser m_parser{};
    http_parser_settings m_settings{};
    QByteArray m_input; ///< received bytes not yet fed to the parser
    HttpRequest m_current;
    QByteArray m_headerField;
    QByteArray m_headerValue;
    bool m_lastWasValue = false;
    qint64 m_headerBytes = 0;
    bool m_inMessage = false;
    bool m_headComplete = false;
    bool m_messageReady = false;
    bool m_closing = false;
    bool m_keepAlive = true;
    QPointer<HttpExchange> m_exchange;
    QTimer m_timer;
};

} // namespace runbox::http
