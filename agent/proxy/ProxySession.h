#pragma once

#include "agent/http/HttpExchange.h"
#include "agent/http/HttpParser.h"
#include "agent/http/ResponseStream.h"
#include "agent/proxy/WorkspaceActivity.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTimer>

class QLocalSocket;

namespace runbox::proxy {

/// One request forwarded by the port proxy (docs/light-workspaces.md) to a light workspace's unix
/// socket, and its response streamed back: the request goes out as HTTP/1.1 with
/// `Connection: close`, without the agent's auth headers and hop-by-hop headers (RFC 9110
/// §7.6.1), with `X-Forwarded-For`, `X-Forwarded-Prefix`; the response head is parsed with
/// http-parser and relayed (status, end-to-end headers), its body re-chunked as it arrives — so
/// `text/event-stream` (SSE) flows event by event. Reading from the workspace pauses while more
/// than 1 MiB waits for the client. The client going away, the workspace being deleted, or 60 s
/// without a response head end it. Deletes itself at the end.
class ProxySession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProxySession)
public:
    /// @p socketFd: connected (WorkspaceSocket::connect), owned from here on. @p target: the
    /// origin-form target for the workspace ("/path?query"). @p prefix: the public path prefix.
    ProxySession(http::HttpExchange* exchange, WorkspaceActivity* light, QString workspaceId,
                 int socketFd, QByteArray target, QByteArray prefix, QObject* parent = nullptr);
    ~ProxySession() override;

    void start();

private:
    /// The workspace's response head: relayed, or refused (502).
    http::HttpParser::Next onHeadComplete(const http::HttpParser::Head& head);

    QByteArray requestHead() const;
    void onUpstreamData();
    void onUpstreamClosed();
    void feed(const char* data, size_t size);
    /// Answers @p error with its kind's status unless the response has begun (a started stream
    /// cannot change its status: it just ends), then ends the session.
    void fail(const Error& error);
    /// The same for an error whose status no ErrorKind has (504 proxy_timeout), which stays an
    /// ApiError in this HTTP engine (docs/contracts.md "Errors").
    void fail(const ApiError& error);
    void finish();

    QPointer<http::HttpExchange> m_exchange;
    QPointer<WorkspaceActivity> m_light;
    QString m_workspaceId;
    QLocalSocket* m_upstream;
    QByteArray m_target, m_prefix;
    http::HttpParser m_parser;      ///< the workspace's response
    http::ResponseStream* m_stream; ///< backpressure: pauses reading from the workspace
    bool m_headDone = false;
    bool m_chunked = false; ///< the client response is a chunked stream
    bool m_done = false;
    QTimer m_headTimer;
};

} // namespace runbox::proxy
