#pragma once

#include <QByteArray>
#include <QString>

namespace runbox::workspace {

/// Scoped workspace tokens: `ws1.<id>.<nonce>.<hex HMAC-SHA256(agent secret,
/// "runbox-workspace:" + id + ":" + nonce)>` (docs/contracts.md "Request signing"). Re-derivable
/// from the agent secret and the public nonce; never stored.
class WorkspaceToken final {
public:
    static QByteArray derive(const QByteArray& agentSecret, const QString& workspaceId,
                             const QByteArray& nonceHex);
    /// Splits a presented token; returns false when it does not have the ws1 shape.
    static bool split(const QByteArray& token, QString* workspaceId, QByteArray* nonceHex);
};

} // namespace runbox::workspace
