#include "console/connection/ConnectionManager.h"

#include "console/connection/TokenVault.h"
#include "shared/ApiClient.h"
#include "shared/FleetFile.h"
#include "shared/PoolHostToken.h"
#include "shared/PoolSecret.h"


#include <QPointer>

namespace runbox::console {

ConnectionManager::ConnectionManager(TokenVault* vault, QObject* parent)
    : QObject(parent), m_vault(vault) {
    connect(m_vault, &TokenVault::keychainUnavailable, this,
            [this](const QString& why) { Q_EMIT statusMessage(why, 0); });
}

ConnectionManager::~ConnectionManager() = default;

AgentConnection* ConnectionManager::connection(const QString& profileId) const {
    return m_connections.value(profileId);
}

void ConnectionManager::connectProfile(const AgentProfile& profile) {
    if (AgentConnection* existing = connection(profile.id)) {
        existing->open();
        return;
    }
    if (!profile.pool.isEmpty()) {
        connectPoolHost(profile);
        return;
    }
    if (!profile.tokenFile.isEmpty()) { // the fleet entry's token file, read at each connect
        FleetAgent entry;
        entry.name = profile.name;
        entry.tokenFile = profile.tokenFile;
        QString error;
        const QByteArray token = FleetFile::readToken(entry, &error);
        if (token.isEmpty())
            Q_EMIT tokenNeeded(profile, error);
        else
            addConnection(profile, token)->open();
        return;
    }
    const QPointer<ConnectionManager> self(this);
    m_vault->load(profile.id, [this, self, profile](const TokenVault::LoadResult& r) {
        if (!self)
            return;
        if (!r.found) {
            Q_EMIT tokenNeeded(profile,
                               r.message.isEmpty()
                                   ? tr("No token is stored for %1.").arg(profile.displayName())
                                   : r.message);
            return;
        }
        addConnection(profile, r.token)->open();
    });
}

void ConnectionManager::connectPoolHost(const AgentProfile& profile) {
    if (const QString refusal = PoolHostToken::plainUrlRefusal(profile.url); !refusal.isEmpty()) {
        Q_EMIT statusMessage(tr("%1: %2").arg(profile.displayName(), refusal), 0);
        return;
    }
    // The secret is read (and refused when others may read it) before anything is sent.
    QString error;
    const QByteArray secret = PoolSecret::read(PoolSecret::defaultPath(profile.pool), &error);
    if (secret.isEmpty()) {
        Q_EMIT tokenNeeded(profile, error);
        return;
    }
    // The nonce from the host's own unauthenticated GET /health: the token is computed for the
    // host it goes to (pinned like the connection will be), never sent elsewhere.
    auto* probe = new ApiClient(profile.url, QByteArray(), this);
    probe->setPinnedSha256(profile.pinnedSha256());
    const QPointer<ConnectionManager> self(this);
    probe->request("GET", "/health", {},
                   [this, self, probe, profile, secret](const ApiResponse& r) {
                       probe->deleteLater();
                       if (!self)
                           return;
                       const QByteArray nonce = PoolHostToken::hostNonceOf(r.json());
                       if (!r.ok() || nonce.isEmpty()) {
                           Q_EMIT statusMessage(
                               tr("%1: no pool host nonce to derive its token from (%2).")
                                   .arg(profile.displayName(),
                                        r.ok() ? tr("the agent shows none: is it started with "
                                                    "--pool-secret-file?")
                                               : r.errorMessage()),
                               0);
                           return;
                       }
                       if (connection(profile.id))
                           return; // connected meanwhile
                       addConnection(profile, PoolSecret::hostToken(secret, nonce))->open();
                   });
}

void ConnectionManager::connectProfile(const AgentProfile& profile, const QByteArray& token) {
    m_vault->store(profile.id, token, [this](const TokenVault::StoreResult& r) {
        if (!r.persistent)
            Q_EMIT statusMessage(r.message, 0);
    });
    if (AgentConnection* existing = connection(profile.id)) {
        existing->setToken(token);
        return;
    }
    addConnection(profile, token)->open();
}

AgentConnection* ConnectionManager::addConnection(const AgentProfile& profile,
                                                  const QByteArray& token) {
    auto* conn = new AgentConnection(profile, token, this, m_sshProgram);
    m_connections.insert(profile.id, conn);
    connect(conn, &AgentConnection::statusMessage, this, &ConnectionManager::statusMessage);
    connect(conn, &AgentConnection::stateChanged, this, [this, conn](AgentConnection::State state) {
        if (state == AgentConnection::State::AuthFailed)
            Q_EMIT tokenNeeded(conn->profile(), conn->lastError());
        else if (state == AgentConnection::State::CertificateRefused)
            Q_EMIT certificateRefused(conn->profile(), conn->lastError(), conn->presentedSha256());
    });
    Q_EMIT connectionAdded(conn);
    return conn;
}

void ConnectionManager::disconnectProfile(const QString& profileId) {
    AgentConnection* conn = m_connections.take(profileId);
    if (!conn)
        return;
    conn->close();
    Q_EMIT connectionRemoved(profileId);
    conn->deleteLater();
}

void ConnectionManager::updateProfile(const AgentProfile& profile) {
    if (AgentConnection* conn = connection(profile.id))
        conn->setProfileName(profile.name);
}

} // namespace runbox::console
