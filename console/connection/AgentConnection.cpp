#include "console/connection/AgentConnection.h"

#include "shared/ProtocolVersion.h"

#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <memory>

namespace runbox::console {

namespace {
constexpr int kPollIntervalMs = 5000;
constexpr int kHealthTimeoutMs = 10000;

ApiResponse responseOf(QNetworkReply* reply, const QByteArray& body, const QString& timeoutText) {
    ApiResponse r = ApiClient::responseOf(reply, body);
    if (r.status == 0 && !timeoutText.isEmpty() && ApiClient::tlsRefusal(reply).isEmpty())
        r.networkError = timeoutText;
    return r;
}
} // namespace

AgentConnection::AgentConnection(const AgentProfile& profile, const QByteArray& token,
                                 QObject* parent, const QString& sshProgram)
    : QObject(parent), m_profile(profile), m_client(new ApiClient(profile.url, token, this)) {
    m_client->setPinnedSha256(profile.pinnedSha256());
    if (profile.viaSsh) {
        m_tunnel = new SshTunnel(profile, sshProgram, this);
        connect(m_tunnel, &SshTunnel::stateChanged, this, &AgentConnection::onTunnelState);
    }
    m_pollTimer.setInterval(kPollIntervalMs);
    connect(&m_pollTimer, &QTimer::timeout, this, [this] { probeHealth(false); });
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &AgentConnection::attempt);
}

AgentConnection::~AgentConnection() {
    if (m_tunnel) {
        m_tunnel->disconnect(this);
        m_tunnel->stop();
    }
}

void AgentConnection::setProfileName(const QString& name) {
    if (m_profile.name == name)
        return;
    m_profile.name = name;
    Q_EMIT profileChanged();
}

QString AgentConnection::lastError() const {
    if (m_tunnel && m_state != State::Connected && !m_lastError.isEmpty())
        if (const QString ssh = m_tunnel->lastMessage(); !ssh.isEmpty())
            return tr("%1 (ssh: %2)").arg(m_lastError, ssh);
    return m_lastError;
}

QString AgentConnection::stateText() const {
    switch (m_state) {
    case State::Disconnected:
        return tr("Disconnected");
    case State::Connecting:
        return m_tunnel && m_tunnel->state() == SshTunnel::State::Starting
                   ? tr("Opening SSH tunnel…")
                   : tr("Connecting…");
    case State::Connected:
        return tr("Connected");
    case State::Reconnecting:
        if (m_tunnel && m_tunnel->state() == SshTunnel::State::Starting)
            return tr("Opening SSH tunnel…");
        if (m_tunnel && m_tunnel->state() == SshTunnel::State::Failed)
            return tr("SSH tunnel failed (%1); retrying in %n s", nullptr, secondsUntilRetry())
                .arg(m_tunnel->error());
        return tr("Reconnecting in %n s", nullptr, secondsUntilRetry());
    case State::AuthFailed:
        return tr("Token refused");
    case State::Incompatible:
        return tr("Incompatible agent");
    case State::CertificateRefused:
        return tr("Certificate refused");
    case State::SshRefused:
        return tr("SSH refused: %1").arg(m_tunnel ? m_tunnel->error() : QString());
    }
    return {};
}

int AgentConnection::secondsUntilRetry() const {
    if (m_state != State::Reconnecting || !m_retryTimer.isActive())
        return 0;
    return (m_retryTimer.remainingTime() + 999) / 1000;
}

bool AgentConnection::isStopped() const {
    return m_state == State::Disconnected || m_state == State::AuthFailed ||
           m_state == State::Incompatible || m_state == State::CertificateRefused ||
           m_state == State::SshRefused;
}

void AgentConnection::setState(State state) {
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void AgentConnection::open() {
    if (m_state == State::Connected || m_state == State::Connecting)
        return;
    m_backoff.reset();
    m_lastError.clear();
    setState(State::Connecting);
    attempt();
}

void AgentConnection::attempt() {
    if (m_tunnel && m_tunnel->state() != SshTunnel::State::Ready) {
        m_tunnel->start();
        Q_EMIT stateChanged(m_state); // "Opening SSH tunnel…"
        return;
    }
    probeLiveness();
}

void AgentConnection::onTunnelState(SshTunnel::State state) {
    if (isStopped())
        return;
    if (state == SshTunnel::State::Ready) {
        m_client->setBaseUrl(m_tunnel->url());
        probeLiveness();
    } else if (state == SshTunnel::State::Failed) {
        m_lastError = tr("SSH tunnel: %1").arg(m_tunnel->error());
        if (m_tunnel->failedForGood()) { // retrying would only ask sshd again, in vain
            m_pollTimer.stop();
            m_retryTimer.stop();
            setState(State::SshRefused);
            Q_EMIT statusMessage(tr("%1: %2").arg(m_profile.displayName(), m_lastError), 0);
            return;
        }
        noteTransportFailure(m_lastError);
    }
}

void AgentConnection::close() {
    m_pollTimer.stop();
    m_retryTimer.stop();
    if (m_tunnel)
        m_tunnel->stop();
    setState(State::Disconnected);
    Q_EMIT statusMessage(tr("Disconnected from %1.").arg(m_profile.displayName()), 5000);
}

void AgentConnection::setToken(const QByteArray& token) {
    m_client->setToken(token);
    m_pollTimer.stop();
    m_retryTimer.stop();
    setState(State::Disconnected);
    open();
}

void AgentConnection::refreshHealth() {
    if (m_state == State::Connected)
        probeHealth(false);
}

// GET /health: unauthenticated liveness; its Date header calibrates the clock offset.
void AgentConnection::probeLiveness() {
    request(
        "GET", "/health", {}, this,
        [this](const ApiResponse& r) {
            if (isStopped())
                return;
            if (r.status == 0)
                return; // noteTransportFailure() already scheduled the next attempt
            const QJsonObject body = r.json();
            if (!r.ok() || body.value(QLatin1String("status")).toString() != QLatin1String("ok")) {
                m_lastError = tr("%1 does not answer like a Runbox agent (HTTP %2).")
                                  .arg(m_profile.hostAndPort())
                                  .arg(r.status);
                setState(State::Reconnecting);
                scheduleReconnect();
                return;
            }
            const QString where = m_tunnel ? m_profile.hostAndPort() : m_profile.url.toString();
            if (const QString refusal =
                    protocol::mismatch(body, where, QStringLiteral("runbox-console"));
                !refusal.isEmpty()) {
                m_lastError = refusal;
                if (m_tunnel)
                    m_tunnel->stop(); // nothing more to say to this agent until open()
                setState(State::Incompatible);
                Q_EMIT statusMessage(tr("%1: %2").arg(m_profile.displayName(), refusal), 0);
                return;
            }
            probeHealth(true);
        },
        kHealthTimeoutMs);
}

void AgentConnection::probeHealth(bool initial) {
    if (m_pollInFlight)
        return;
    m_pollInFlight = true;
    request(
        "GET", "/v1/health", {}, this,
        [this, initial](const ApiResponse& r) {
            m_pollInFlight = false;
            if (isStopped())
                return;
            if (r.status == 0)
                return;
            if (r.status == 401) {
                m_pollTimer.stop();
                m_lastError = tr("The agent refused the token: %1").arg(r.errorMessage());
                setState(State::AuthFailed);
                Q_EMIT statusMessage(tr("%1: %2").arg(m_profile.displayName(), m_lastError), 0);
                return;
            }
            if (!r.ok()) {
                m_lastError =
                    tr("Health check failed (HTTP %1): %2").arg(r.status).arg(r.errorMessage());
                Q_EMIT statusMessage(tr("%1: %2").arg(m_profile.displayName(), m_lastError), 10000);
                return;
            }
            const QJsonObject health = r.json();
            const bool wasConnected = m_state == State::Connected;
            m_lastError.clear();
            m_backoff.reset();
            if (!m_pollTimer.isActive())
                m_pollTimer.start();
            if (health != m_health) {
                m_health = health;
                Q_EMIT healthChanged(m_health);
            }
            setState(State::Connected);
            if (!wasConnected)
                Q_EMIT statusMessage(initial
                                         ? tr("Connected to %1 (agent %2).")
                                               .arg(m_profile.displayName(), agentVersion())
                                         : tr("Reconnected to %1.").arg(m_profile.displayName()),
                                     5000);
        },
        kHealthTimeoutMs);
}

void AgentConnection::noteTransportFailure(const QString& why) {
    if (isStopped())
        return;
    m_lastError = why;
    m_pollTimer.stop();
    if (m_retryTimer.isActive())
        return; // already waiting for the next attempt
    setState(State::Reconnecting);
    scheduleReconnect();
}

void AgentConnection::noteCertificateRefused(const QString& refusal,
                                             const QByteArray& presentedSha256) {
    if (isStopped())
        return;
    m_lastError = refusal + QLatin1Char(' ') +
                  tr("To trust this agent, compare the fingerprint with the output of "
                     "runbox-agent --print-fingerprint on its host, then enter it as the agent's "
                     "TLS fingerprint (Edit agent).");
    m_presentedSha256 = presentedSha256;
    m_pollTimer.stop();
    m_retryTimer.stop();
    setState(State::CertificateRefused);
    Q_EMIT statusMessage(tr("%1: %2").arg(m_profile.displayName(), m_lastError), 0);
}

void AgentConnection::scheduleReconnect() {
    const int delay = m_backoff.nextDelayMs();
    m_retryTimer.start(delay);
    Q_EMIT stateChanged(m_state); // the retry countdown changed
    Q_EMIT statusMessage(
        tr("Lost connection to %1 (%2); reconnecting in %n s.", nullptr, (delay + 999) / 1000)
            .arg(m_profile.displayName(), m_lastError),
        0);
}

void AgentConnection::request(const QByteArray& method, const QByteArray& pathAndQuery,
                              const QByteArray& body, QObject* context, Done done, int timeoutMs) {
    QNetworkReply* reply = m_client->send(method, pathAndQuery, body);
    const QPointer<QObject> guard(context);
    // A silent agent counts as lost only for health checks; a slow route (a re-probe) does not.
    const bool isHealth = pathAndQuery == "/health" || pathAndQuery == "/v1/health";
    auto timedOut = std::make_shared<bool>(false);
    auto* timer = new QTimer(reply);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, reply, [reply, timedOut] {
        *timedOut = true;
        reply->abort();
    });
    timer->start(timeoutMs);
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, guard, timedOut, timeoutMs, isHealth, done = std::move(done)] {
                const QString timeoutText =
                    *timedOut ? tr("no answer within %n s", nullptr, timeoutMs / 1000) : QString();
                const ApiResponse r = responseOf(reply, reply->readAll(), timeoutText);
                const QString tlsRefusal = ApiClient::tlsRefusal(reply);
                const QByteArray presented = ApiClient::tlsPresentedSha256(reply);
                reply->deleteLater();
                if (!tlsRefusal.isEmpty())
                    noteCertificateRefused(tlsRefusal, presented);
                else if (r.status == 0 && (!*timedOut || isHealth))
                    noteTransportFailure(r.networkError);
                if (guard)
                    done(r);
            });
}

void AgentConnection::sendJson(const QByteArray& method, const QByteArray& pathAndQuery,
                               const QJsonObject& body, QObject* context, Done done) {
    request(method, pathAndQuery, QJsonDocument(body).toJson(QJsonDocument::Compact), context,
            std::move(done));
}

QNetworkReply* AgentConnection::stream(const QByteArray& method, const QByteArray& pathAndQuery,
                                       const QByteArray& body, QObject* context,
                                       std::function<void(const QJsonObject&)> onEvent, Done done) {
    const QPointer<QObject> guard(context);
    QNetworkReply* reply = m_client->stream(
        method, pathAndQuery, body,
        [guard, onEvent = std::move(onEvent)](const QJsonObject& ev) {
            if (guard)
                onEvent(ev);
        },
        [guard, done = std::move(done)](const ApiResponse& r) {
            if (guard)
                done(r);
        });
    connect(reply, &QNetworkReply::errorOccurred, this,
            [this, reply](QNetworkReply::NetworkError e) {
                if (e != QNetworkReply::OperationCanceledError &&
                    reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 0)
                    noteTransportFailure(reply->errorString());
            });
    return reply;
}

} // namespace runbox::console
