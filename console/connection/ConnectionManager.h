#pragma once

#include "console/connection/AgentConnection.h"
#include "console/connection/AgentProfile.h"

#include <QHash>
#include <QObject>

namespace runbox::console {

class TokenVault;

/// The agents the console is connected to, several at once, keyed by profile id. Tokens come
/// from the TokenVault; when none is known, tokenNeeded() asks the UI for one.
class ConnectionManager final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionManager)
public:
    explicit ConnectionManager(TokenVault* vault, QObject* parent = nullptr);
    ~ConnectionManager() override;

    TokenVault* vault() const { return m_vault; }
    /// The ssh that SSH profiles run from now on (ConsoleSettings::Key::SshProgram).
    void setSshProgram(const QString& program) { m_sshProgram = program; }
    QString sshProgram() const { return m_sshProgram; }
    /// The connection of @p profileId, or nullptr.
    AgentConnection* connection(const QString& profileId) const;
    QList<AgentConnection*> connections() const { return m_connections.values(); }

    /// Connects with the token of the profile's token file (read at each connect), the one its
    /// pool's secret derives (connectPoolHost), or else the one the vault knows; emits
    /// tokenNeeded() with why when there is none.
    void connectProfile(const AgentProfile& profile);
    /// Connects with @p token and remembers it in the vault (keychain or session).
    void connectProfile(const AgentProfile& profile, const QByteArray& token);
    /// Closes and removes the connection (the token stays in the vault).
    void disconnectProfile(const QString& profileId);
    /// Follows a rename of a connected profile.
    void updateProfile(const AgentProfile& profile);

Q_SIGNALS:
    void connectionAdded(runbox::console::AgentConnection* connection);
    /// Emitted before the connection object is deleted (later).
    void connectionRemoved(const QString& profileId);
    /// No token is known for @p profile (or the stored one was refused): ask the operator.
    void tokenNeeded(const runbox::console::AgentProfile& profile, const QString& reason);
    /// @p profile's agent presented a certificate that was refused (AgentConnection::
    /// CertificateRefused): @p reason names the fingerprints, @p presentedSha256 is the one it
    /// presented (docs/contracts.md "TLS and pinning").
    void certificateRefused(const runbox::console::AgentProfile& profile, const QString& reason,
                            const QByteArray& presentedSha256);
    /// A sentence for the status bar (translated); 0 = until replaced.
    void statusMessage(const QString& text, int timeoutMs);

private:
    AgentConnection* addConnection(const AgentProfile& profile, const QByteArray& token);
    /// A pool host's profile: its token derived from the pool's secret and the nonce the host
    /// shows on GET /health (docs/contracts.md "Pool credential"); a secret others may read
    /// asks for a token instead, with why; a host without a nonce says so on statusMessage.
    void connectPoolHost(const AgentProfile& profile);

    TokenVault* m_vault;
    QString m_sshProgram = QStringLiteral("ssh");
    QHash<QString, AgentConnection*> m_connections;
};

} // namespace runbox::console
