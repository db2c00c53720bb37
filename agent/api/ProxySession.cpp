#include "agent/api/ProxySession.h"

#include "agent/api/LightService.h"
#include "agent/api/ProxyHeaders.h"

#include <QLocalSocket>

namespace runbox::api {

namespace {

constexpr qint64 kMaxHeadBytes = 64 * 1024;
constexpr int kHeadTimeoutMs = 60000;
constexpr qint64 kPauseAboveBytes = 1 << 20;
constexpr qint64 kResumeBelowBytes = 256 << 10;
constexpr qint64 kUpstreamBufferBytes = 256 << 10;

} // namespace

ProxySession::ProxySession(http::HttpExchange* exchange, LightService* light, QString workspaceId,
                           int socketFd, QByteArray target, QByteArray prefix, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_light(light), m_workspaceId(std::move(workspaceId)),
      m_upstream(new QLocalSocket(this)), m_target(std::move(target)), m_prefix(std::move(prefix)) {
    m_upstream->setSocketDescriptor(socketFd, QLocalSocket::ConnectedState, QIODevice::ReadWrite);
    m_upstream->setReadBufferSize(kUpstreamBufferBytes);
    http_parser_init(&m_parser, HTTP_RESPONSE);
    m_parser.data = this;
    http_parser_settings_init(&m_settings);
    m_settings.on_header_field = &ProxySession::onHeaderField;
    m_settings.on_header_value = &ProxySession::onHeaderValue;
    m_settings.on_headers_complete = &ProxySession::onHeadersComplete;
    m_settings.on_body = &ProxySession::onBody;
    m_settings.on_message_complete = &ProxySession::onMessageComplete;
    m_headTimer.setSingleShot(true);
    m_headTimer.setInterval(kHeadTimeoutMs);
    connect(&m_headTimer, &QTimer::timeout, this, [this] {
        fail(504, QStringLiteral("proxy_timeout"),
             QStringLiteral("the workspace sent no response head within %1 s")
                 .arg(kHeadTimeoutMs / 1000));
    });
}

ProxySession::~ProxySession() {
    m_light->endActivity(m_workspaceId);
}

QByteArray ProxySession::requestHead() const {
    const http::HttpRequest& req = m_exchange->request();
    const QList<QByteArray> listed = connectionTokens(req.headers);
    QByteArray head = req.method + ' ' + m_target + " HTTP/1.1\r\n";
    for (const auto& [name, value] : req.headers) {
        const QByteArray lower = name.toLower();
        if (isHopByHopHeader(lower) || listed.contains(lower) || isAgentOnlyRequestHeader(lower))
            continue;
        head += name + ": " + value + "\r\n";
    }
    const qsizetype colon = req.peer.lastIndexOf(QLatin1Char(':'));
    head += "X-Forwarded-For: " + req.peer.left(colon).toLatin1() + "\r\n";
    head += "X-Forwarded-Prefix: " + m_prefix + "\r\n";
    head += "Connection: close\r\n";
    if (!req.body.isEmpty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH")
        head += "Content-Length: " + QByteArray::number(req.body.size()) + "\r\n";
    return head + "\r\n";
}

void ProxySession::start() {
    m_light->beginActivity(m_workspaceId);
    connect(m_exchange, &http::HttpExchange::clientGone, this, &ProxySession::finish);
    connect(m_exchange, &QObject::destroyed, this, &ProxySession::finish);
    connect(m_exchange, &http::HttpExchange::writable, this, [this] {
        if (m_paused && m_exchange && m_exchange->pendingBytes() < kResumeBelowBytes) {
            m_paused = false;
            onUpstreamData();
        }
    });
    connect(m_light, &LightService::workspaceRemoved, this, [this](const QString& id) {
        if (id == m_workspaceId)
            fail(404, QStringLiteral("workspace_not_found"),
                 QStringLiteral("workspace %1 was deleted").arg(id));
    });
    connect(m_upstream, &QLocalSocket::readyRead, this, &ProxySession::onUpstreamData);
    connect(m_upstream, &QLocalSocket::disconnected, this, &ProxySession::onUpstreamClosed);
    m_upstream->write(requestHead());
    m_upstream->write(m_exchange->request().body);
    m_headTimer.start();
}

void ProxySession::onUpstreamData() {
    while (!m_done && !m_paused && m_upstream->bytesAvailable() > 0) {
        const QByteArray data = m_upstream->read(64 * 1024);
        if (data.isEmpty())
            break;
        feed(data.constData(), size_t(data.size()));
        if (m_exchange && m_exchange->pendingBytes() > kPauseAboveBytes)
            m_paused = true;
    }
    if (!m_done && !m_paused && m_upstream->state() != QLocalSocket::ConnectedState)
        onUpstreamClosed();
}

void ProxySession::onUpstreamClosed() {
    if (m_done || m_paused)
        return; // paused: the rest is read (and EOF seen) once the client catches up
    if (m_upstream->bytesAvailable() > 0)
        return onUpstreamData();
    feed(nullptr, 0); // EOF: ends a body delimited by the connection's close
    if (!m_done) {
        if (!m_headDone)
            fail(502, QStringLiteral("proxy_bad_response"),
                 QStringLiteral("the workspace closed the connection without a complete "
                                "response"));
        else
            finish();
    }
}

void ProxySession::feed(const char* data, size_t size) {
    const size_t parsed = http_parser_execute(&m_parser, &m_settings, data, size);
    if (m_done)
        return;
    if (HTTP_PARSER_ERRNO(&m_parser) != HPE_OK || parsed != size)
        fail(502, QStringLiteral("proxy_bad_response"),
             QStringLiteral("the workspace sent an invalid HTTP response: %1")
                 .arg(QLatin1String(http_errno_description(HTTP_PARSER_ERRNO(&m_parser)))));
}

int ProxySession::onHeaderField(http_parser* p, const char* at, size_t len) {
    auto* s = static_cast<ProxySession*>(p->data);
    s->m_headBytes += qint64(len);
    if (s->m_lastWasValue) {
        s->m_headers.append({s->m_field, s->m_value});
        s->m_field.clear();
        s->m_value.clear();
    }
    s->m_field.append(at, qsizetype(len));
    s->m_lastWasValue = false;
    return s->m_headBytes > kMaxHeadBytes ? 1 : 0;
}

int ProxySession::onHeaderValue(http_parser* p, const char* at, size_t len) {
    auto* s = static_cast<ProxySession*>(p->data);
    s->m_headBytes += qint64(len);
    s->m_value.append(at, qsizetype(len));
    s->m_lastWasValue = true;
    return s->m_headBytes > kMaxHeadBytes ? 1 : 0;
}

int ProxySession::onHeadersComplete(http_parser* p) {
    auto* s = static_cast<ProxySession*>(p->data);
    if (s->m_lastWasValue)
        s->m_headers.append({s->m_field, s->m_value});
    s->m_headDone = true;
    s->m_headTimer.stop();
    const int status = int(p->status_code);
    const QList<QByteArray> listed = connectionTokens(s->m_headers);
    QByteArray contentType;
    QList<QPair<QByteArray, QByteArray>> relayed;
    for (const auto& [name, value] : std::as_const(s->m_headers)) {
        const QByteArray lower = name.toLower();
        if (lower == "content-type") {
            contentType = value;
            continue;
        }
        // The agent writes its own Date, Server, Cache-Control and X-Content-Type-Options.
        if (isHopByHopHeader(lower) || listed.contains(lower) || lower == "date" ||
            lower == "server" || lower == "cache-control" || lower == "x-content-type-options")
            continue;
        relayed.append({name, value});
    }
    const bool noBody = s->m_exchange->request().method == "HEAD" || status == 204 ||
                        status == 304 || (status >= 100 && status < 200);
    if (status < 200 || status > 599) {
        s->fail(502, QStringLiteral("proxy_bad_response"),
                QStringLiteral("the workspace answered with status %1 (upgrades and interim "
                               "responses are not relayed)")
                    .arg(status));
        return 1;
    }
    if (noBody) {
        s->m_exchange->reply(status, QByteArray(), contentType, relayed);
        s->finish();
        return 1; // no body follows (http-parser: skip it)
    }
    s->m_chunked = true;
    s->m_exchange->beginChunked(status, contentType, relayed);
    return 0;
}

int ProxySession::onBody(http_parser* p, const char* at, size_t len) {
    auto* s = static_cast<ProxySession*>(p->data);
    if (s->m_exchange)
        s->m_exchange->writeChunk(QByteArray(at, qsizetype(len)));
    return 0;
}

int ProxySession::onMessageComplete(http_parser* p) {
    auto* s = static_cast<ProxySession*>(p->data);
    s->finish();
    return 0;
}

void ProxySession::fail(int status, const QString& code, const QString& message) {
    if (m_done)
        return;
    if (m_exchange && !m_chunked)
        m_exchange->replyError(status, code, message);
    // A stream already started cannot change its status: it just ends here.
    finish();
}

void ProxySession::finish() {
    if (m_done)
        return;
    m_done = true;
    m_headTimer.stop();
    if (m_exchange && m_chunked)
        m_exchange->endChunked();
    m_upstream->abort();
    deleteLater();
}

} // namespace runbox::api
