#include "agent/proxy/ProxyToken.h"

#include "shared/Crypto.h"

namespace runbox::proxy {

namespace {

constexpr char kVersion[] = "rbp1";

Error invalid() {
    return Error{ErrorKind::Unauthenticated, QStringLiteral("proxy_token_invalid"),
                 QStringLiteral("the proxy token is not one for this workspace and port; ask "
                                "for one with POST /v1/workspaces/{id}/proxy-tokens")};
}

/// Decimal digits only, 1 to @p max characters (no sign, no spaces).
bool isDecimal(const QByteArray& text, int max) {
    if (text.isEmpty() || text.size() > max)
        return false;
    for (char c : text)
        if (c < '0' || c > '9')
            return false;
    return true;
}

} // namespace

ProxyTokens::ProxyTokens(const QByteArray& agentToken)
    : m_key(crypto::hmacSha256(agentToken, QByteArrayLiteral("runbox port proxy token v1"))) {}

QByteArray ProxyTokens::macOf(const QByteArray& payload) const {
    return crypto::hmacSha256(m_key, payload).toHex();
}

QByteArray ProxyTokens::mint(const QString& workspaceId, const QByteArray& workspaceNonce, int port,
                             qint64 ttlS, qint64 nowS) const {
    const QByteArray payload = QByteArray(kVersion) + '.' + workspaceId.toLatin1() + '.' +
                               QByteArray::number(port) + '.' + QByteArray::number(nowS + ttlS) +
                               '.' + crypto::randomBytes(16).toHex();
    return payload + '.' + macOf(payload + '.' + workspaceNonce);
}

std::optional<Error> ProxyTokens::verify(const QByteArray& token, const QString& workspaceId,
                                         const QByteArray& workspaceNonce, int port, qint64 nowS,
                                         Claims* out) const {
    if (token.size() > 512)
        return invalid();
    const QList<QByteArray> parts = token.split('.');
    if (parts.size() != 6 || parts.at(0) != kVersion || !isDecimal(parts.at(2), 5) ||
        !isDecimal(parts.at(3), 12) || !crypto::isHex(parts.at(4), 32) ||
        !crypto::isHex(parts.at(5), 64))
        return invalid();
    const QByteArray payload = token.left(token.lastIndexOf('.'));
    // The MAC first, in constant time; then what it covers.
    if (!crypto::constantTimeEquals(macOf(payload + '.' + workspaceNonce), parts.at(5).toLower()))
        return invalid();
    if (parts.at(1) != workspaceId.toLatin1() || parts.at(2).toInt() != port)
        return invalid();
    const qint64 expiresAtS = parts.at(3).toLongLong();
    if (expiresAtS <= nowS)
        return Error{ErrorKind::Unauthenticated, QStringLiteral("proxy_token_expired"),
                     QStringLiteral("the proxy token expired; ask for a new one")};
    if (out)
        *out = Claims{workspaceId, port, expiresAtS, parts.at(4).toLower()};
    return std::nullopt;
}

bool ProxyTokens::consumeInUrl(const Claims& claims, qint64 nowS) {
    if (m_spent.contains(claims.nonce))
        return false;
    if (m_spent.size() >= kMaxSpentNonces)
        m_spent.removeIf([nowS](const auto& entry) { return entry.value() <= nowS; });
    if (m_spent.size() >= kMaxSpentNonces)
        return false;
    m_spent.insert(claims.nonce, claims.expiresAtS);
    return true;
}

} // namespace runbox::proxy
