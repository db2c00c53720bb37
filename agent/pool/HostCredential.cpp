#include "agent/pool/HostCredential.h"

#include "agent/config/StateDir.h"
#include "shared/Crypto.h"
#include "shared/PoolSecret.h"

#include <QFile>

namespace runbox::pool {

QString HostCredential::load(const QString& secretFile, const config::StateDir& state) {
    QString error;
    const QByteArray secret = PoolSecret::read(secretFile, &error);
    if (secret.isEmpty())
        return error;
    const QString noncePath = state.filePath(QStringLiteral("pool-host.nonce"));
    QByteArray nonce;
    if (QFile file(noncePath); file.exists()) {
        if (!file.open(QIODevice::ReadOnly))
            return QStringLiteral("cannot read %1: %2").arg(noncePath, file.errorString());
        nonce = file.read(100).trimmed();
        // A damaged nonce is an error, not replaced: a new one would change the token under the
        // clients' feet without anyone asking for it.
        if (!PoolSecret::validHostNonce(nonce))
            return QStringLiteral("%1 does not hold 32 lowercase hex characters (remove it to "
                                  "make a new host nonce, and so a new agent token)")
                .arg(noncePath);
    } else {
        nonce = crypto::randomBytes(16).toHex();
        if (!config::writeFileAtomically(noncePath, nonce + '\n', 0644, &error))
            return error;
    }
    const QByteArray token = PoolSecret::hostToken(secret, nonce);
    if (!config::writeFileAtomically(state.filePath(QStringLiteral("agent.token")), token + '\n',
                                     0600, &error))
        return error;
    m_token = token;
    m_hostNonce = nonce;
    return {};
}

} // namespace runbox::pool
