#pragma once

#include <QByteArray>
#include <QString>

namespace runbox::config {
class StateDir;
}

namespace runbox::pool {

/// The agent token of a pool host that has the pool's secret (`--pool-secret-file`,
/// docs/contracts.md "Pool credential"): derived from the secret and this host's public nonce
/// instead of drawn at random, so a client holding the secret and reading the nonce from
/// `GET /health` signs with it and needs no other state. Neither the secret nor the token is
/// logged or shown anywhere; only the nonce is public.
class HostCredential final {
public:
    /// Reads the secret in @p secretFile (shared/PoolSecret::read: 64 lowercase hex characters,
    /// refused unless only its owner may read it), reads or makes the host nonce in
    /// `<state>/pool-host.nonce` (32 lowercase hex characters = 128 random bits, mode 0644:
    /// public; kept across restarts, so the token is too) and derives the token. The token is
    /// also written to `<state>/agent.token` (0600), which must always hold the token in force
    /// (docs/contracts.md "Processes and start-up"). Returns an error text naming the file, empty
    /// on success.
    QString load(const QString& secretFile, const config::StateDir& state);

    /// The derived agent token (64 hex characters); empty before a successful load().
    QByteArray token() const { return m_token; }
    /// The host's public nonce (32 hex characters); empty before a successful load().
    QByteArray hostNonce() const { return m_hostNonce; }

private:
    QByteArray m_token;
    QByteArray m_hostNonce;
};

} // namespace runbox::pool
