#include "agent/proxy/WebSocketRelay.h"

#include "agent/http/ErrorStatus.h"
#include "agent/proxy/ProxyHeaders.h"

#include <QCryptographicHash>
#include <QLocalSocket>
#include <QTcpSocket>

namespace runbox::proxy {

namespace {

constexpr qint64 kMaxHeadBytes = 64 * 1024;
constexpr int kHandshakeTimeoutMs = 60000;
constexpr int kCloseGraceMs = 10000;
constexpr qint64 kSocketBufferBytes = 256 << 10;
constexpr qint64 kMaxPendingBytes = 1 << 20;
constexpr qint64 kReadChunk = 64 << 10;
/// RFC 6455 §1.3.
const char kGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

bool hasToken(const QByteArray& value, const QByteArray& token) {
    for (const QByteArray& t : value.split(','))
        if (t.trimmed().toLower() == token)
            return true;
    return false;
}

ApiError badHandshake(const QString& message) {
    return ApiError{400, QStringLiteral("invalid_websocket_handshake"), message};
}

} // namespace

std::optional<ApiError> WebSocketRelay::checkRequest(const http::HttpRequest& request) {
    if (request.method != "GET")
        return badHandshake(QStringLiteral("a WebSocket handshake is a GET (RFC 6455 §4.1)"));
    if (!hasToken(request.header("upgrade"), "websocket"))
        return badHandshake(QStringLiteral("Upgrade must name websocket"));
    if (!hasToken(request.header("connection"), "upgrade"))
        return badHandshake(QStringLiteral("Connection must have the upgrade token"));
    const QByteArray key = request.header("sec-websocket-key").trimmed();
    if (key.size() != 24 ||
        QByteArray::fromBase64(key, QByteArray::AbortOnBase64DecodingErrors).size() != 16)
        return badHandshake(QStringLiteral("Sec-WebSocket-Key must be 16 bytes in base64"));
    if (request.header("sec-websocket-version").trimmed() != "13")
        return ApiError{426, QStringLiteral("websocket_version"),
                        QStringLiteral("only Sec-WebSocket-Version 13 is supported")};
    return std::nullopt;
}

QByteArray WebSocketRelay::acceptFor(const QByteArray& key) {
    return QCryptographicHash::hash(key + kGuid, QCryptographicHash::Sha1).toBase64();
}

WebSocketRelay::WebSocketRelay(http::HttpExchange* exchange, WorkspaceActivity* light,
                               QString workspaceId, int socketFd, QByteArray target,
                               QByteArray prefix, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_light(light), m_workspaceId(std::move(workspaceId)),
      m_key(exchange->request().header("sec-websocket-key").trimmed()),
      m_upstream(new QLocalSocket(this)), m_target(std::move(target)), m_prefix(std::move(prefix)) {
    m_upstream->setSocketDescriptor(socketFd, QLocalSocket::ConnectedState, QIODevice::ReadWrite);
    m_upstream->setReadBufferSize(kSocketBufferBytes);
    m_timer.setSingleShot(true);
}

WebSocketRelay::~WebSocketRelay() {
    if (m_light)
        m_light->end(m_workspaceId);
}

QByteArray WebSocketRelay::requestHead() const {
    const QByteArray head =
        forwardedRequestHead(m_exchange->request(), "GET " + m_target + " HTTP/1.1", m_prefix);
    return head + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
}

void WebSocketRelay::start() {
    m_light->begin(m_workspaceId);
    connect(m_exchange, &http::HttpExchange::clientGone, this, [this] {
        if (!m_relaying)
            finish();
    });
    connect(m_light, &WorkspaceActivity::workspaceRemoved, this, [this](const QString& id) {
        if (id == m_workspaceId)
            fail(Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                       QStringLiteral("workspace %1 was deleted").arg(id)});
    });
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_closing)
            return finish();
        fail(ApiError{
            504, QStringLiteral("proxy_timeout"),
            QStringLiteral("the workspace did not answer the WebSocket handshake within %1 s")
                .arg(kHandshakeTimeoutMs / 1000)});
    });
    connect(m_upstream, &QLocalSocket::readyRead, this, [this] {
        if (m_relaying)
            pump();
        else
            onHandshakeData();
    });
    connect(m_upstream, &QLocalSocket::bytesWritten, this, [this] {
        if (m_relaying)
            pump();
    });
    connect(m_upstream, &QLocalSocket::disconnected, this, [this] {
        if (m_relaying)
            onSideClosed();
        else
            onHandshakeData();
    });
    m_upstream->write(requestHead());
    m_timer.start(kHandshakeTimeoutMs);
}

void WebSocketRelay::onHandshakeData() {
    if (m_done || m_relaying)
        return;
    m_head += m_upstream->read(kMaxHeadBytes + 4 - m_head.size());
    const qsizetype end = m_head.indexOf("\r\n\r\n");
    if (end < 0) {
        if (m_head.size() > kMaxHeadBytes)
            return fail(Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_bad_response"),
                              QStringLiteral("the workspace's handshake answer is over %1 bytes")
                                  .arg(kMaxHeadBytes)});
        if (m_upstream->state() != QLocalSocket::ConnectedState &&
            m_upstream->bytesAvailable() == 0)
            fail(Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_bad_response"),
                       QStringLiteral("the workspace closed the connection during the handshake")});
        return;
    }
    const QByteArray head = m_head.left(end);
    const QByteArray rest = m_head.mid(end + 4);
    QByteArray relayedHead;
    const QString problem = checkResponse(head, &relayedHead);
    if (!problem.isEmpty())
        return fail(
            Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_upgrade_refused"), problem});
    beginRelay(relayedHead, rest);
}

QString WebSocketRelay::checkResponse(const QByteArray& head, QByteArray* relayedHead) const {
    const QList<QByteArray> lines = head.split('\n');
    const QByteArray statusLine = lines.value(0).trimmed();
    const QList<QByteArray> parts = statusLine.split(' ');
    if (parts.size() < 2 || !parts[0].startsWith("HTTP/1."))
        return QStringLiteral("the workspace did not answer with HTTP");
    if (parts[1] != "101")
        return QStringLiteral("the workspace answered %1 instead of 101 Switching Protocols")
            .arg(QString::fromLatin1(parts[1].left(3)));
    QList<QPair<QByteArray, QByteArray>> headers;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        QByteArray line = lines[i];
        if (line.endsWith('\r'))
            line.chop(1);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || line.front() == ' ' || line.front() == '\t')
            return QStringLiteral("the workspace's handshake answer has a malformed header");
        headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    QByteArray upgrade, connection, accept;
    for (const auto& [name, value] : headers) {
        const QByteArray lower = name.toLower();
        if (lower == "upgrade")
            upgrade += value + ',';
        else if (lower == "connection")
            connection += value + ',';
        else if (lower == "sec-websocket-accept")
            accept = value;
    }
    if (!hasToken(upgrade, "websocket") || !hasToken(connection, "upgrade"))
        return QStringLiteral("the workspace's 101 does not upgrade to websocket");
    if (accept != acceptFor(m_key))
        return QStringLiteral("the workspace's Sec-WebSocket-Accept does not match the key");
    const QList<QByteArray> listed = connectionTokens(headers);
    QByteArray out = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\n";
    for (const auto& [name, value] : headers) {
        const QByteArray lower = name.toLower();
        if (isHopByHopHeader(lower) || listed.contains(lower))
            continue;
        if (const std::optional<QByteArray> kept = relayedResponseHeader(lower, value))
            out += name + ": " + *kept + "\r\n";
    }
    *relayedHead = out + "\r\n";
    return {};
}

void WebSocketRelay::beginRelay(const QByteArray& relayedHead, const QByteArray& upstreamRest) {
    QByteArray buffered;
    QTcpSocket* client = m_exchange ? m_exchange->takeOverConnection(&buffered) : nullptr;
    if (!client)
        return finish(); // the client left meanwhile
    m_client = client;
    m_relaying = true;
    m_timer.stop();
    m_client->setReadBufferSize(kSocketBufferBytes);
    m_client->write(relayedHead);
    m_client->write(upstreamRest);
    m_upstream->write(buffered);
    connect(m_client, &QTcpSocket::readyRead, this, &WebSocketRelay::pump);
    connect(m_client, &QTcpSocket::bytesWritten, this, &WebSocketRelay::pump);
    connect(m_client, &QTcpSocket::disconnected, this, &WebSocketRelay::onSideClosed);
    connect(m_client, &QObject::destroyed, this, &WebSocketRelay::onSideClosed);
    pump();
}

void WebSocketRelay::pump() {
    if (!m_relaying || m_done)
        return;
    if (!m_client)
        return onSideClosed();
    // Each direction moves only while the other side has room: no unbounded buffering here.
    while (m_client->bytesAvailable() > 0 && m_upstream->bytesToWrite() < kMaxPendingBytes &&
           m_upstream->state() == QLocalSocket::ConnectedState)
        m_upstream->write(m_client->read(kReadChunk));
    while (m_upstream->bytesAvailable() > 0 && m_client->bytesToWrite() < kMaxPendingBytes &&
           m_client->state() == QAbstractSocket::ConnectedState)
        m_client->write(m_upstream->read(kReadChunk));
    if (m_client->state() != QAbstractSocket::ConnectedState ||
        m_upstream->state() != QLocalSocket::ConnectedState)
        onSideClosed();
}

void WebSocketRelay::onSideClosed() {
    if (m_done)
        return;
    const auto clientOpen = [this] {
        return m_client && m_client->state() == QAbstractSocket::ConnectedState;
    };
    const auto upstreamOpen = [this] {
        return m_upstream->state() == QLocalSocket::ConnectedState;
    };
    if (!m_closing) {
        m_closing = true;
        // What the closed side sent before it closed still goes to the other side, which is
        // then closed once that is written (disconnectFrom…() flushes first).
        if (!upstreamOpen() && clientOpen())
            m_client->write(m_upstream->readAll());
        if (m_client && !clientOpen() && upstreamOpen())
            m_upstream->write(m_client->readAll());
        if (clientOpen())
            m_client->disconnectFromHost();
        if (upstreamOpen())
            m_upstream->disconnectFromServer();
        m_timer.start(kCloseGraceMs);
    }
    const bool clientDone = !m_client || m_client->state() == QAbstractSocket::UnconnectedState;
    if (clientDone && m_upstream->state() == QLocalSocket::UnconnectedState)
        finish();
}

void WebSocketRelay::fail(const Error& error) {
    fail(http::toApiError(error));
}

void WebSocketRelay::fail(const ApiError& error) {
    if (m_done)
        return;
    if (!m_relaying && m_exchange) {
        m_exchange->closeAfterResponse();
        m_exchange->replyError(error);
    }
    finish();
}

void WebSocketRelay::finish() {
    if (m_done)
        return;
    m_done = true;
    m_timer.stop();
    m_upstream->abort();
    if (m_client)
        m_client->abort();
    deleteLater();
}

} // namespace runbox::proxy
