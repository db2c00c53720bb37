#include "agent/workspace/WorkspaceToken.h"

#include "shared/Crypto.h"

#include <QList>

namespace runbox::workspace {

QByteArray WorkspaceToken::derive(const QByteArray& agentSecret, const QString& workspaceId,
                                  const QByteArray& nonceHex) {
    const QByteArray mac = crypto::hmacSha256(
        agentSecret, "runbox-workspace:" + workspaceId.toUtf8() + ':' + nonceHex);
    return "ws1." + workspaceId.toUtf8() + '.' + nonceHex + '.' + mac.toHex();
}

bool WorkspaceToken::split(const QByteArray& token, QString* workspaceId, QByteArray* nonceHex) {
    const QList<QByteArray> parts = token.split('.');
    if (parts.size() != 4 || parts[0] != "ws1" || parts[1].isEmpty() || parts[1].size() > 64 ||
        !crypto::isLowerHex(parts[2], 32) || !crypto::isLowerHex(parts[3], 64))
        return false;
    *workspaceId = QString::fromLatin1(parts[1]);
    *nonceHex = parts[2];
    return true;
}

} // namespace runbox::workspace
