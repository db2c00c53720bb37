#pragma once

#include "agent/http/HttpExchange.h"
#include "agent/proxy/WorkspaceActivity.h"
#include "shared/ApiError.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <optional>

class QLocalSocket;
class QTcpSocket;

namespace runbox::proxy {

/// One WebSocket upgrade through the port proxy (docs/light-workspaces.md; RFC 6455 §4): the
/// client's handshake is forwarded to the workspace's unix socket (without the agent's auth
/// headers, with `X-Forwarded-For` / `X-Forwarded-Prefix`), the workspace's answer must be a valid
/// `101 Switching Protocols` for that very key (status, `Upgrade: websocket`,
/// `Connection: Upgrade`, `Sec-WebSocket-Accept` = base64(SHA-1(key + GUID)), §4.1), and then the
/// client connection is taken out of HTTP (HttpExchange::takeOverConnection) and bytes are
/// relayed both ways, unparsed. Backpressure: a side is read only while less than 1 MiB waits
/// to be written to the other (both sockets buffer at most 256 KiB, so TCP and the unix socket
/// push back). Either side closing closes the other once what it sent was written. Any other
/// answer from the workspace is a 502 to the client (the connection then closes); no answer
/// within 60 s a 504. The workspace counts as active (never idle-evicted) while the relay
/// lives; its deletion ends the relay. Deletes itself at the end.
class WebSocketRelay final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WebSocketRelay)
public:
    /// Checks a client's opening handshake (RFC 6455 §4.2.1): GET, `Upgrade: websocket`,
    /// `Connection` with the `upgrade` token, a `Sec-WebSocket-Key` of 16 base64 bytes, and
    /// `Sec-WebSocket-Version: 13` (else 426 websocket_version with the version supported).
    /// Errors: 400 invalid_websocket_handshake, 426; both HTTP by nature, so ApiError
    /// (docs/contracts.md "Errors").
    static std::optional<ApiError> checkRequest(const http::HttpRequest& request);
    /// base64(SHA-1(@p key + the RFC 6455 GUID)): the Sec-WebSocket-Accept for @p key.
    static QByteArray acceptFor(const QByteArray& key);

    /// @p socketFd: connected (WorkspaceSocket::connect), owned from here on. @p target: the
    /// origin-form target for the workspace. @p prefix: the public path prefix.
    WebSocketRelay(http::HttpExchange* exchange, WorkspaceActivity* light, QString workspaceId,
                   int socketFd, QByteArray target, QByteArray prefix, QObject* parent = nullptr);
    ~WebSocketRelay() override;

    void start();

private:
    QByteArray requestHead() const;
    void onHandshakeData();
    /// Checks the workspace's answer head; an empty string when it is a valid 101.
    QString checkResponse(const QByteArray& head, QByteArray* relayedHead) const;
    void beginRelay(const QByteArray& relayedHead, const QByteArray& upstreamRest);
    void pump();
    void onSideClosed();
    /// Answers @p error with its kind's status while the handshake is not relayed yet (the
    /// connection then closes), then ends the relay.
    void fail(const Error& error);
    /// The same for an error whose status no ErrorKind has (504 proxy_timeout), which stays an
    /// ApiError in this HTTP engine (docs/contracts.md "Errors").
    void fail(const ApiError& error);
    void finish();

    QPointer<http::HttpExchange> m_exchange;
    QPointer<WorkspaceActivity> m_light;
    QString m_workspaceId;
    QByteArray m_key; ///< the client's Sec-WebSocket-Key
    QLocalSocket* m_upstream;
    QPointer<QTcpSocket> m_client;
    QByteArray m_target, m_prefix;
    QByteArray m_head; ///< the workspace's answer, until its end
    bool m_relaying = false;
    bool m_closing = false;
    bool m_done = false;
    QTimer m_timer; ///< handshake bound, then the closing grace
};

} // namespace runbox::proxy
