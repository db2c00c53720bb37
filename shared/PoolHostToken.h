#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace runbox {

struct FleetAgent;

/// How a client gets the agent token of one host (docs/contracts.md "Pool credential"): for a
/// pool host, derived from the pool's secret and the nonce that host itself shows on its
/// unauthenticated `GET /health` (`"pool":{"hostNonce"}`), so the token is computed for the
/// host it is then sent to and no other. The secret never leaves this process. Blocking (a local
/// event loop): for the CLI and tests.
class PoolHostToken final {
public:
    /// Why no pool host token may be derived for @p url, empty when one may: only an https://
    /// URL (pinned, or a certificate the system store verifies), since the token goes in clear
    /// to whoever answers (docs/contracts.md "Pool credential").
    static QString plainUrlRefusal(const QUrl& url);

    /// The host nonce a pool host's `GET /health` answer @p health shows (`"pool":{"hostNonce"}`),
    /// or empty when it shows no well-formed one (PoolSecret::validHostNonce).
    static QByteArray hostNonceOf(const QJsonObject& health);

    /// Refuses a URL that is not https:// (plainUrlRefusal), then reads the nonce from @p url's
    /// `GET /health` (no credential sent; an https:// URL pinned
    /// with @p pin as ApiClient::setPinnedSha256 does) and returns PoolSecret::hostToken(@p
    /// secret, nonce). Empty with @p error set when the host does not answer within @p timeoutMs,
    /// answers no 200, or shows no well-formed host nonce (an agent without --pool-secret-file).
    static QByteArray derive(const QUrl& url, const QByteArray& pin, const QByteArray& secret,
                             QString* error, int timeoutMs = 10000);

    /// The token of fleet entry @p agent: its `tokenFile`'s (FleetFile::readToken), or for a
    /// `"pool"` entry the one derive() makes with the secret of
    /// PoolSecret::defaultPath(agent.pool). The secret is read (and refused: PoolSecret::read)
    /// before anything is sent. Empty with @p error set (naming the agent) on failure.
    static QByteArray forFleetAgent(const FleetAgent& agent, QString* error);
};

} // namespace runbox
