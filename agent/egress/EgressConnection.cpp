#include "agent/egress/EgressConnection.h"

#include "agent/egress/AddressClassifier.h"
#include "agent/egress/FdStream.h"
#include "agent/egress/NetworkPolicy.h"
#include "agent/egress/ProxyMessages.h"
#include "agent/egress/Resolver.h"
#include "agent/egress/UpstreamDialer.h"

#include <QTimer>

#include <unistd.h>

namespace runbox::egress {

namespace {

bool hasControlBytes(const QByteArray& bytes) {
    for (char c : bytes) {
        if (c == '\r' || c == '\n' || c == '\0')
            return true;
    }
    return false;
}

} // namespace

EgressConnection::EgressConnection(int clientFd, const QString& executionId,
                                   const NetworkPolicy& policy, Resolver& resolver,
                                   const EgressGatewayOptions& options,
                                   std::shared_ptr<EgressRelay> relay, QObject* parent)
    : QObject(parent), m_policy(policy), m_resolver(resolver), m_options(options),
      m_relay(std::move(relay)), m_parser(options.maxRequestHeadBytes) {
    m_decision.executionId = executionId;
    m_client = new FdStream(clientFd, this);
    m_client->acceptHandOver(); // runbox-egress-bridge --hand-over
    connect(m_client, &FdStream::received, this, &EgressConnection::onClientData);
    connect(m_client, &FdStream::readEof, this, &EgressConnection::onClientEof);
    connect(m_client, &FdStream::failed, this, &EgressConnection::finish);
    connect(m_client, &FdStream::drained, this, [this] {
        if (m_upstream)
            m_upstream->setReadEnabled(true); // back-pressure released
        maybeFinish();
    });
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        switch (m_phase) {
        case Phase::ReadingHead:
            if (m_received)
                respond(408, QStringLiteral("client_timeout"),
                        QStringLiteral("the request head did not arrive in time"));
            else
                finish();
            break;
        case Phase::Resolving:
            respond(502, QStringLiteral("dns_failed"),
                    QStringLiteral("%1 could not be resolved in time").arg(m_target.host));
            break;
        case Phase::Tunnel:
        case Phase::Forwarding:
            onIdleTimer();
            break;
        default:
            finish(); // linger over, or a phase that has its own timeout
        }
    });
    m_timer->start(m_options.requestHeadTimeoutMs);
}

EgressConnection::~EgressConnection() {
    if (m_tunnel)
        m_relay->remove(m_tunnel);
}

void EgressConnection::abort() {
    finish();
}

void EgressConnection::touch() {
    m_timer->start(m_options.idleTimeoutMs);
}

void EgressConnection::onIdleTimer() {
    if (m_tunnel) { // the relay moves the bytes: it knows when the last one went
        const qint64 idle = EgressRelay::nowMs() - m_tunnel->lastActivityMs;
        if (idle < m_options.idleTimeoutMs) {
            m_timer->start(int(m_options.idleTimeoutMs - idle));
            return;
        }
    }
    m_decision.reason = QStringLiteral("idle_timeout");
    finish();
}

void EgressConnection::handOff(EgressRelay::Mode mode) {
    if (!m_relay || !m_relay->available() || m_tunnel || m_finished)
        return;
    m_tunnel =
        m_relay->add(m_client->release(), m_upstream->release(), mode, [this](const QString&) {
            // Relay thread, relay lock held: this object is alive (finish()
            // and the destructor remove the tunnel first, under that lock).
            QMetaObject::invokeMethod(
                this, [this] { finish(); }, Qt::QueuedConnection);
        });
    touch();
}

void EgressConnection::onClientData(const QByteArray& data) {
    m_received = true;
    switch (m_phase) {
    case Phase::ReadingHead:
        m_inbox += data;
        parseHead();
        return;
    case Phase::Resolving:
    case Phase::Dialing:
        m_inbox += data;
        if (m_inbox.size() > m_options.highWaterBytes)
            m_client->setReadEnabled(false);
        return;
    case Phase::Tunnel:
        sendToUpstream(data);
        return;
    case Phase::Forwarding:
        m_inbox += data;
        forwardRequestBody();
        return;
    case Phase::Responding:
    case Phase::Done:
        return; // discarded: we are only waiting for the client to read our answer
    }
}

void EgressConnection::onClientEof() {
    switch (m_phase) {
    case Phase::ReadingHead:
        if (m_received) {
            m_decision.reason = QStringLiteral("malformed_request");
            m_decision.message = QStringLiteral("the client closed before a complete request");
        }
        finish();
        return;
    case Phase::Tunnel:
        m_upstream->shutdownWrite(); // half-close travels on
        maybeFinish();
        return;
    case Phase::Forwarding:
        if (!m_requestComplete)
            finish(); // a truncated request body must not reach the server as a whole one
        return;
    case Phase::Responding:
        maybeFinish();
        return;
    default:
        return; // Resolving / Dialing: handled once the upstream is connected
    }
}

void EgressConnection::parseHead() {
    QByteArray ignoredBody;
    const qsizetype consumed = m_parser.feed(m_inbox.constData(), m_inbox.size(), &ignoredBody);
    m_inbox.remove(0, consumed);
    switch (m_parser.state()) {
    case ProxyRequestParser::State::Head:
        return;
    case ProxyRequestParser::State::Error:
        if (m_parser.headTooLarge())
            refuse(431, QStringLiteral("request_too_large"), m_parser.errorMessage());
        else
            refuse(400, QStringLiteral("malformed_request"),
                   QStringLiteral("not an HTTP/1.x request: ") + m_parser.errorMessage());
        return;
    default:
        decide();
    }
}

void EgressConnection::decide() {
    const ProxyRequestHead& head = m_parser.head();
    for (const HeaderField& field : head.headers) {
        if (hasControlBytes(field.name) || hasControlBytes(field.value))
            return refuse(400, QStringLiteral("malformed_request"),
                          QStringLiteral("header fields must not contain CR, LF or NUL"));
    }
    TargetError error;
    std::optional<Target> target;
    if (head.isConnect()) {
        target = TargetParser::parseAuthority(head.target, &error);
    } else if (head.target.startsWith('/') || head.target == "*") {
        return refuse(400, QStringLiteral("malformed_request"),
                      QStringLiteral("origin-form request: the egress proxy expects "
                                     "absolute-form (http://host/path) or CONNECT"));
    } else if (head.upgrade) {
        return refuse(400, QStringLiteral("malformed_request"),
                      QStringLiteral("protocol upgrades are not forwarded; use CONNECT"));
    } else {
        target = TargetParser::parseAbsoluteForm(head.target, &error);
    }
    if (!target) {
        m_decision.host = QString::fromLatin1(head.target.left(255));
        if (error.code == QLatin1String("ip_literal"))
            return refuse(403, error.code, error.message);
        return refuse(400, error.code, error.message);
    }
    m_target = *target;
    m_decision.host = m_target.host;
    m_decision.port = m_target.port;
    if (!checkHostHeader())
        return;
    if (m_policy.mode() != NetworkPolicy::Mode::DomainAllowlist)
        return refuse(403, QStringLiteral("policy_none"),
                      QStringLiteral("the network policy of this execution is none"));
    if (!m_policy.allows(m_target.host, m_target.port))
        return refuse(403, QStringLiteral("not_in_allowlist"),
                      QStringLiteral("%1 is not in the allowed domains").arg(m_target.authority()));
    m_phase = Phase::Resolving;
    m_timer->start(m_options.connectTimeoutMs);
    m_resolver.resolve(m_target.host, this,
                       [this](const ResolveResult& result) { onResolved(result); });
}

bool EgressConnection::checkHostHeader() {
    const QList<QByteArray> hosts = m_parser.head().values("Host");
    if (hosts.size() > 1) {
        refuse(400, QStringLiteral("host_mismatch"), QStringLiteral("more than one Host header"));
        return false;
    }
    if (hosts.isEmpty())
        return true; // absolute-form: Host is rebuilt from the target anyway
    TargetError error;
    const std::optional<Target> host = TargetParser::parseHostHeader(hosts.first(), &error);
    // RFC 9110 §7.2: no port means the scheme's default (80 for absolute-form http); for
    // CONNECT a Host without a port names the same authority as the target.
    const quint16 defaultPort = m_parser.head().isConnect() ? m_target.port : 80;
    if (!host || host->host != m_target.host ||
        (host->port == 0 ? defaultPort : host->port) != m_target.port) {
        refuse(400, QStringLiteral("host_mismatch"),
               QStringLiteral("Host header \"%1\" does not agree with the target %2")
                   .arg(QString::fromLatin1(hosts.first().left(255)), m_target.authority()));
        return false;
    }
    return true;
}

void EgressConnection::onResolved(const ResolveResult& result) {
    if (m_phase != Phase::Resolving)
        return;
    if (!result.error.isEmpty()) {
        m_decision.allowed = true; // the name was allowed; the world could not answer
        return respond(
            502, QStringLiteral("dns_failed"),
            QStringLiteral("%1 could not be resolved: %2").arg(m_target.host, result.error));
    }
    const AddressCheck check =
        AddressClassifier::check(m_target.host, result.addresses, m_policy.allowPrivateCidrs());
    if (!check.allowed)
        return refuse(403, check.reason, check.message);
    m_decision.allowed = true;
    m_decision.reason = QStringLiteral("allowed");
    m_decision.at = QDateTime::currentDateTimeUtc();
    m_phase = Phase::Dialing;
    m_timer->stop(); // the dialer times each address itself
    auto* dialer =
        new UpstreamDialer(check.dialable, m_target.port, m_options.connectTimeoutMs, this);
    connect(dialer, &UpstreamDialer::connected, this,
            [this, dialer](int fd, const QHostAddress& address) {
                dialer->deleteLater();
                onUpstreamConnected(fd, address);
            });
    connect(dialer, &UpstreamDialer::failed, this,
            [this, dialer](const QString& message, bool timedOut) {
                dialer->deleteLater();
                respond(
                    502,
                    timedOut ? QStringLiteral("upstream_connect_timeout")
                             : QStringLiteral("upstream_unreachable"),
                    QStringLiteral("cannot connect to %1: %2").arg(m_target.authority(), message));
            });
    dialer->start();
}

void EgressConnection::onUpstreamConnected(int fd, const QHostAddress& address) {
    Q_UNUSED(address);
    if (m_phase != Phase::Dialing) {
        ::close(fd);
        return;
    }
    m_upstream = new FdStream(fd, this);
    connect(m_upstream, &FdStream::received, this, &EgressConnection::onUpstreamData);
    connect(m_upstream, &FdStream::readEof, this, &EgressConnection::onUpstreamEof);
    connect(m_upstream, &FdStream::failed, this, &EgressConnection::finish);
    connect(m_upstream, &FdStream::drained, this, [this] {
        if (m_phase == Phase::Tunnel || m_phase == Phase::Forwarding)
            m_client->setReadEnabled(true); // back-pressure released
        maybeFinish();
    });
    touch();
    if (m_parser.head().isConnect()) {
        m_phase = Phase::Tunnel;
        m_client->write(proxy_messages::connectEstablished());
        QByteArray ignored; // consumes the end of the head; the rest is tunnel payload
        m_inbox.remove(0, m_parser.feed(m_inbox.constData(), m_inbox.size(), &ignored));
        const QByteArray early = std::exchange(m_inbox, {});
        sendToUpstream(early);
        m_client->setReadEnabled(true);
        if (m_client->readFinished())
            m_upstream->shutdownWrite();
        handOff(EgressRelay::Mode::Tunnel);
        return;
    }
    m_phase = Phase::Forwarding;
    const QByteArray head = proxy_messages::upstreamRequestHead(m_parser.head(), m_target);
    m_upstream->write(head);
    m_decision.bytesUp += head.size();
    m_client->setReadEnabled(true);
    forwardRequestBody();
}

void EgressConnection::forwardRequestBody() {
    while (!m_requestComplete && !m_inbox.isEmpty()) {
        QByteArray body;
        const qsizetype consumed = m_parser.feed(m_inbox.constData(), m_inbox.size(), &body);
        m_inbox.remove(0, consumed);
        if (m_parser.state() == ProxyRequestParser::State::Error) {
            m_decision.reason = QStringLiteral("malformed_request");
            m_decision.message = m_parser.errorMessage();
            return finish();
        }
        if (!body.isEmpty())
            sendToUpstream(m_parser.head().chunked ? proxy_messages::chunk(body) : body);
        if (m_parser.state() == ProxyRequestParser::State::Complete) {
            m_requestComplete = true;
            if (m_parser.head().chunked)
                sendToUpstream(proxy_messages::chunk({}));
        } else if (consumed == 0) {
            break;
        }
    }
    if (m_requestComplete) {
        m_inbox.clear(); // one request per connection: pipelined extras are not served
        handOff(EgressRelay::Mode::Response);
    } else if (m_client->readFinished()) {
        finish(); // a truncated request body must not reach the server as a whole one
    }
}

void EgressConnection::sendToUpstream(const QByteArray& data) {
    if (data.isEmpty() || !m_upstream || !m_upstream->isOpen())
        return;
    m_upstream->write(data);
    m_decision.bytesUp += data.size();
    touch();
    if (m_upstream->pendingWriteBytes() > m_options.highWaterBytes)
        m_client->setReadEnabled(false);
}

void EgressConnection::onUpstreamData(const QByteArray& data) {
    m_decision.bytesDown += data.size();
    m_client->write(data);
    touch();
    if (m_client->pendingWriteBytes() > m_options.highWaterBytes)
        m_upstream->setReadEnabled(false);
}

void EgressConnection::onUpstreamEof() {
    m_client->shutdownWrite();
    maybeFinish();
}

void EgressConnection::refuse(int status, const QString& reason, const QString& message) {
    m_decision.allowed = false;
    respond(status, reason, message);
}

void EgressConnection::respond(int status, const QString& reason, const QString& message) {
    m_decision.reason = reason;
    m_decision.message = message;
    if (!m_decision.at.isValid())
        m_decision.at = QDateTime::currentDateTimeUtc();
    m_phase = Phase::Responding;
    if (m_upstream)
        m_upstream->close();
    m_client->setReadEnabled(true); // read and drop until EOF, so closing does not reset
    m_client->write(proxy_messages::errorResponse(status, reason, message));
    m_client->shutdownWrite();
    m_timer->start(m_options.lingerMs);
    maybeFinish();
}

void EgressConnection::maybeFinish() {
    if (m_finished)
        return;
    switch (m_phase) {
    case Phase::Responding:
        if (m_client->writeShutDown() && m_client->readFinished())
            finish();
        return;
    case Phase::Tunnel:
        if (m_upstream->readFinished() && m_client->writeShutDown() && m_client->readFinished() &&
            m_upstream->writeShutDown())
            finish();
        return;
    case Phase::Forwarding:
        if (m_upstream->readFinished() && m_client->writeShutDown())
            finish();
        return;
    default:
        return;
    }
}

void EgressConnection::finish() {
    if (m_finished)
        return;
    m_finished = true;
    m_phase = Phase::Done;
    m_timer->stop();
    if (m_tunnel) { // stops the relay (closes both sockets) and takes its counts
        m_relay->remove(m_tunnel);
        m_decision.bytesUp += m_tunnel->bytesUp;
        m_decision.bytesDown += m_tunnel->bytesDown;
        m_tunnel.reset();
    }
    m_client->close();
    if (m_upstream)
        m_upstream->close();
    if (!m_decision.at.isValid())
        m_decision.at = QDateTime::currentDateTimeUtc();
    if (m_received || m_decision.allowed)
        Q_EMIT finished(m_decision);
    deleteLater();
}

} // namespace runbox::egress
