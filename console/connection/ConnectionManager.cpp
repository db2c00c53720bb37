#include "console/connection/ConnectionManager.h"

#include "console/connection/TokenVault.h"
#include "shared/FleetFile.h"

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
