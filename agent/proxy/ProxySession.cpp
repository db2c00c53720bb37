#include "agent/proxy/ProxySession.h"

#include "agent/http/ErrorStatus.h"
#include "agent/proxy/ProxyHeaders.h"

#include <QLocalSocket>

namespace runbox::proxy {

namespace {

constexpr qint64 kMaxHeadBytes = 64 * 1024;
constexpr int kHeadTimeoutMs = 60000;
constexpr qint64 kUpstreamBufferBytes = 256 << 10;

} // namespace

ProxySession::ProxySession(http::HttpExchange* exchange, WorkspaceActivity* light,
                           QString workspaceId, int socketFd, QByteArray target, QByteArray prefix,
                           QObject* parent)
    : QObject(parent), m_exchange(exchange), m_light(light), m_workspaceId(std::move(workspaceId)),
      m_upstream(new QLocalSocket(this)), m_target(std::move(target)), m_prefix(std::move(prefix)),
      m_parser(http::HttpParser::Mode::Response, kMaxHeadBytes,
               {{},
                [this](http::HttpParser::Head& head) { return onHeadComplete(head); },
                [this](const char* at, qsizetype len) {
                    if (m_exchange)
                        m_exchange->writeChunk(QByteArray(at, len));
                    return http::HttpParser::Next::Continue;
                },
                [this] {
                    finish();
                    return http::HttpParser::Next::Continue;
                }}),
      m_stream(new http::ResponseStream(exchange, {}, this)) {
    m_upstream->setSocketDescriptor(socketFd, QLocalSocket::ConnectedState, QIODevice::ReadWrite);
    m_upstream->setReadBufferSize(kUpstreamBufferBytes);
    m_headTimer.setSingleShot(true);
    m_headTimer.setInterval(kHeadTimeoutMs);
    connect(&m_headTimer, &QTimer::timeout, this, [this] {
        fail(ApiError{504, QStringLiteral("proxy_timeout"),
                      QStringLiteral("the workspace sent no response head within %1 s")
                          .arg(kHeadTimeoutMs / 1000)});
    });
}

ProxySession::~ProxySession() {
    if (m_light)
        m_light->end(m_workspaceId);
}

QByteArray ProxySession::requestHead() const {
    const http::HttpRequest& req = m_exchange->request();
    QByteArray head =
        forwardedRequestHead(req, req.method + ' ' + m_target + " HTTP/1.1", m_prefix);
    head += "Connection: close\r\n";
    if (!req.body.isEmpty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH")
        head += "Content-Length: " + QByteArray::number(req.body.size()) + "\r\n";
    return head + "\r\n";
}

void ProxySession::start() {
    m_light->begin(m_workspaceId);
    connect(m_exchange, &http::HttpExchange::clientGone, this, &ProxySession::finish);
    connect(m_exchange, &QObject::destroyed, this, &ProxySession::finish);
    m_stream->onPauseChanged([this](bool paused) {
        if (!paused)
            onUpstreamData();
    });
    connect(m_light, &WorkspaceActivity::workspaceRemoved, this, [this](const QString& id) {
        if (id == m_workspaceId)
            fail(Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                       QStringLiteral("workspace %1 was deleted").arg(id)});
    });
    connect(m_upstream, &QLocalSocket::readyRead, this, &ProxySession::onUpstreamData);
    connect(m_upstream, &QLocalSocket::disconnected, this, &ProxySession::onUpstreamClosed);
    m_upstream->write(requestHead());
    m_upstream->write(m_exchange->request().body);
    m_headTimer.start();
}

void ProxySession::onUpstreamData() {
    while (!m_done && !m_stream->isPaused() && m_upstream->bytesAvailable() > 0) {
        const QByteArray data = m_upstream->read(64 * 1024);
        if (data.isEmpty())
            break;
        feed(data.constData(), size_t(data.size()));
        m_stream->checkPressure();
    }
    if (!m_done && !m_stream->isPaused() && m_upstream->state() != QLocalSocket::ConnectedState)
        onUpstreamClosed();
}

void ProxySession::onUpstreamClosed() {
    if (m_done || m_stream->isPaused())
        return; // paused: the rest is read (and EOF seen) once the client catches up
    if (m_upstream->bytesAvailable() > 0)
        return onUpstreamData();
    feed(nullptr, 0); // EOF: ends a body delimited by the connection's close
    if (!m_done) {
        if (!m_headDone)
            fail(Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_bad_response"),
                       QStringLiteral("the workspace closed the connection without a complete "
                                      "response")});
        else
            finish();
    }
}

void ProxySession::feed(const char* data, size_t size) {
    const qsizetype parsed = m_parser.feed(data, qsizetype(size));
    if (m_done)
        return;
    if (m_parser.error() != HPE_OK || parsed != qsizetype(size))
        fail(Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_bad_response"),
                   QStringLiteral("the workspace sent an invalid HTTP response: %1")
                       .arg(m_parser.errorText())});
}

http::HttpParser::Next ProxySession::onHeadComplete(const http::HttpParser::Head& head) {
    m_headDone = true;
    m_headTimer.stop();
    const int status = head.status;
    const QList<QByteArray> listed = connectionTokens(head.headers);
    QByteArray contentType;
    QList<QPair<QByteArray, QByteArray>> relayed;
    for (const auto& [name, value] : head.headers) {
        const QByteArray lower = name.toLower();
        if (lower == "content-type") {
            contentType = value;
            continue;
        }
        // The agent writes its own Date, Server, Cache-Control and X-Content-Type-Options.
        if (isHopByHopHeader(lower) || listed.contains(lower) || lower == "date" ||
            lower == "server" || lower == "cache-control" || lower == "x-content-type-options")
            continue;
        if (const std::optional<QByteArray> kept = relayedResponseHeader(lower, value))
            relayed.append({name, *kept});
    }
    const bool noBody = m_exchange->request().method == "HEAD" || status == 204 || status == 304 ||
                        (status >= 100 && status < 200);
    if (status < 200 || status > 599) {
        fail(Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_bad_response"),
                   QStringLiteral("the workspace answered with status %1 (upgrades and interim "
                                  "responses are not relayed)")
                       .arg(status)});
        return http::HttpParser::Next::SkipBody;
    }
    if (noBody) {
        m_exchange->reply(status, QByteArray(), contentType, relayed);
        finish();
        return http::HttpParser::Next::SkipBody; // no body follows
    }
    m_chunked = true;
    m_exchange->beginChunked(status, contentType, relayed);
    return http::HttpParser::Next::Continue;
}

void ProxySession::fail(const Error& error) {
    fail(http::toApiError(error));
}

void ProxySession::fail(const ApiError& error) {
    if (m_done)
        return;
    if (m_exchange && !m_chunked)
        m_exchange->replyError(error);
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

} // namespace runbox::proxy
