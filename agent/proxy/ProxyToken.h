#pragma once

#include "agent/Error.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <optional>

namespace runbox::proxy {

/// Short-lived tokens that open one workspace's port through the port proxy from a browser,
/// which cannot sign requests (docs/contracts.md "Port proxy for browsers"). A token is
/// `rbp1.<workspace id>.<port>.<expires at, s since epoch>.<nonce, 32 hex>.<MAC, 64 hex>`, the
/// MAC an HMAC-SHA256 (RFC 2104) under a key derived from the agent token of the workspace id,
/// its token nonce (so a token dies with its workspace), the port, the expiry and the nonce.
/// Nothing is stored per token: the only state is the bounded cache of nonces already spent in a
/// URL (consumeInUrl()), kept until they expire.
class ProxyTokens final {
public:
    static constexpr qint64 kDefaultTtlS = 900;
    static constexpr qint64 kMaxTtlS = 86400;
    /// Nonces of tokens spent in a URL remembered at most (each until its expiry).
    static constexpr int kMaxSpentNonces = 100000;

    struct Claims {
        QString workspaceId;
        int port = 0;
        qint64 expiresAtS = 0;
        QByteArray nonce;
    };

    /// @p agentToken: the agent's secret (the key is derived from it, never it).
    explicit ProxyTokens(const QByteArray& agentToken);

    /// A token for @p port (1–65535) of workspace @p workspaceId (token nonce
    /// @p workspaceNonce), valid @p ttlS seconds (1–kMaxTtlS) from @p nowS.
    QByteArray mint(const QString& workspaceId, const QByteArray& workspaceNonce, int port,
                    qint64 ttlS, qint64 nowS) const;

    /// Checks @p token for @p port of workspace @p workspaceId (@p workspaceNonce) at @p nowS.
    /// Unauthenticated (401) `proxy_token_invalid` (malformed, another workspace or port, a
    /// wrong MAC: one code, so nothing is told about which) or `proxy_token_expired`.
    std::optional<Error> verify(const QByteArray& token, const QString& workspaceId,
                                const QByteArray& workspaceNonce, int port, qint64 nowS,
                                Claims* out = nullptr) const;

    /// Marks a verified token's nonce as spent in a URL: true the first time, false after
    /// (a URL that leaked, through history or a Referer, opens nothing again). Spent nonces are
    /// kept until their token expires; false as well when kMaxSpentNonces unexpired ones are
    /// kept already (fail closed; the header and the cookie still work).
    bool consumeInUrl(const Claims& claims, qint64 nowS);

private:
    QByteArray macOf(const QByteArray& payload) const;

    QByteArray m_key;
    QHash<QByteArray, qint64> m_spent; ///< nonce -> expiry (s)
};

} // namespace runbox::proxy
