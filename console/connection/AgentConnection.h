#pragma once

#include "console/connection/AgentProfile.h"
#include "console/connection/ReconnectBackoff.h"
#include "console/connection/SshTunnel.h"
#include "shared/ApiClient.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

class QNetworkReply;

namespace runbox::console {

/// One live connection to one agent: the signed ApiClient, the connection state, the last
/// `/v1/health`, and reconnecting with backoff. Everything is asynchronous: no call blocks.
///
/// Opening: `GET /health` (unsigned; the agent's `Date` header gives the clock offset the
/// client then compensates), then `GET /v1/health` (signed: proves the token). While connected
/// `/v1/health` is polled every few seconds; a transport failure on any request moves the
/// connection to Reconnecting and retries after ReconnectBackoff's delay; a 401 stops at
/// AuthFailed until a new token is given; an agent of another protocol (shared/ProtocolVersion.h)
/// stops at Incompatible, nothing but `/health` having been sent to it; an https:// agent whose
/// certificate is not the profile's pinned one (or, unpinned, not trusted by the system) stops at
/// CertificateRefused before anything is sent.
///
/// An SSH profile (AgentProfile::viaSsh) first opens its SshTunnel and talks to the tunnel's
/// local end; a tunnel that fails or dies counts as a transport failure (Reconnecting, ssh's
/// stderr in lastError()), and each reconnect attempt starts the tunnel again when it is down.
/// close() and the destructor stop ssh.
class AgentConnection final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentConnection)
public:
    enum class State {
        Disconnected,
        Connecting,
        Connected,
        Reconnecting,
        AuthFailed,
        Incompatible,
        /// An https:// agent's certificate was refused (docs/contracts.md "TLS and pinning"):
        /// not the pinned one, or, without a pin, not trusted by the system; lastError() names
        /// the fingerprints. Nothing was sent and nothing retries until open().
        CertificateRefused,
        /// ssh refused in a way a retry cannot mend (SshTunnel::failedForGood(): authentication,
        /// host key, its configuration, or ssh cannot be run); lastError() has ssh's words.
        /// Nothing retries until open() (the operator's Connect).
        SshRefused
    };
    Q_ENUM(State)

    /// @p sshProgram: the ssh an SSH profile runs (ConsoleSettings::Key::SshProgram).
    AgentConnection(const AgentProfile& profile, const QByteArray& token, QObject* parent = nullptr,
                    const QString& sshProgram = QString());
    ~AgentConnection() override;

    const AgentProfile& profile() const { return m_profile; }
    /// Renames the profile (the URL is fixed for a connection's life).
    void setProfileName(const QString& name);
    State state() const { return m_state; }
    /// Translated one-word state, e.g. "Connected", "Reconnecting in 4 s".
    QString stateText() const;
    /// The last error (translated or the agent's text), empty when none; through a running SSH
    /// tunnel, while not connected, with ssh's last word since it got ready (e.g. the remote
    /// socket refused the forwarded connection).
    QString lastError() const;
    /// The last `/v1/health` answer (empty until connected once).
    QJsonObject health() const { return m_health; }
    /// `version` of the agent, empty until known.
    QString agentVersion() const { return m_health.value(QLatin1String("version")).toString(); }
    /// Milliseconds added to the local clock to match the agent's (from its Date header).
    qint64 clockOffsetMs() const { return m_client->clockOffsetMs(); }
    /// The SHA-256 of the certificate refused last (CertificateRefused), empty otherwise.
    QByteArray presentedSha256() const { return m_presentedSha256; }
    /// The signed client itself, for transfers that stream their bodies (FileTransfer); its
    /// replies do not mark the connection as lost.
    ApiClient* client() const { return m_client; }
    /// Seconds until the next reconnect attempt while Reconnecting, else 0.
    int secondsUntilRetry() const;
    /// The SSH tunnel of an SSH profile, else nullptr.
    SshTunnel* tunnel() const { return m_tunnel; }
    /// The poll interval while connected (ms); tests may shorten it.
    void setPollIntervalMs(int ms) { m_pollTimer.setInterval(ms); }

    /// Starts connecting (Disconnected/AuthFailed/Incompatible → Connecting).
    void open();
    /// Stops polling and retrying; running requests still report to their callers.
    void close();
    /// Replaces the token (after AuthFailed) and reconnects.
    void setToken(const QByteArray& token);
    /// Re-reads `/v1/health` now (e.g. F5 on the overview).
    void refreshHealth();

    using Done = std::function<void(const ApiResponse&)>;
    /// Sends a signed request; @p done runs later with the whole response, unless @p context was
    /// destroyed meanwhile. A transport failure (status 0) also marks the connection as lost.
    /// Requests time out after @p timeoutMs (status 0, networkError says so).
    void request(const QByteArray& method, const QByteArray& pathAndQuery, const QByteArray& body,
                 QObject* context, Done done, int timeoutMs = 30000);
    /// GET convenience.
    void get(const QByteArray& pathAndQuery, QObject* context, Done done) {
        request("GET", pathAndQuery, {}, context, std::move(done));
    }
    /// Sends @p body as compact JSON.
    void sendJson(const QByteArray& method, const QByteArray& pathAndQuery, const QJsonObject& body,
                  QObject* context, Done done);
    /// Starts an NDJSON stream (see ApiClient::stream). The returned reply is owned by the
    /// client and deleted after @p done; abort() it to stop. @p onEvent and @p done are not
    /// called once @p context is destroyed.
    QNetworkReply* stream(const QByteArray& method, const QByteArray& pathAndQuery,
                          const QByteArray& body, QObject* context,
                          std::function<void(const QJsonObject&)> onEvent, Done done);

Q_SIGNALS:
    void stateChanged(runbox::console::AgentConnection::State state);
    void healthChanged(const QJsonObject& health);
    void profileChanged();
    /// A sentence for the status bar (translated), with a suggested display time (0 = sticky).
    void statusMessage(const QString& text, int timeoutMs);

private:
    /// Disconnected, AuthFailed, Incompatible or CertificateRefused: nothing retries until
    /// open().
    bool isStopped() const;
    void setState(State state);
    /// Starts the SSH tunnel when there is one and it is not ready; else probeLiveness().
    void attempt();
    void onTunnelState(SshTunnel::State state);
    void probeLiveness();
    void probeHealth(bool initial);
    void noteTransportFailure(const QString& why);
    /// The agent's certificate was refused (ApiClient::tlsRefusal): stop, say why and how to
    /// trust it.
    void noteCertificateRefused(const QString& refusal, const QByteArray& presentedSha256);
    void scheduleReconnect();

    AgentProfile m_profile;
    ApiClient* m_client;
    SshTunnel* m_tunnel = nullptr; ///< SSH profiles only
    State m_state = State::Disconnected;
    QString m_lastError;
    QByteArray m_presentedSha256; ///< the certificate refused last
    QJsonObject m_health;
    ReconnectBackoff m_backoff;
    QTimer m_pollTimer;
    QTimer m_retryTimer;
    bool m_pollInFlight = false;
};

} // namespace runbox::console
