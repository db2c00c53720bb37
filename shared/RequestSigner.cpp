#include "shared/RequestSigner.h"

#include "shared/Crypto.h"

namespace runbox {

QByteArray RequestSigner::canonicalMessage(const QByteArray& method,
                                           const QByteArray& rawPathAndQuery, qint64 timestampMs,
                                           const QByteArray& nonceHex,
                                           const QByteArray& bodySha256Hex) {
    QByteArray msg;
    msg.reserve(method.size() + rawPathAndQuery.size() + nonceHex.size() + 100);
    msg += method;
    msg += '\n';
    msg += rawPathAndQuery;
    msg += '\n';
    msg += QByteArray::number(timestampMs);
    msg += '\n';
    msg += nonceHex;
    msg += '\n';
    msg += bodySha256Hex;
    return msg;
}

QByteArray RequestSigner::sign(const QByteArray& token, const QByteArray& method,
                               const QByteArray& rawPathAndQuery, qint64 timestampMs,
                               const QByteArray& nonceHex, const QByteArray& bodySha256Hex) {
    return crypto::hmacSha256(token, canonicalMessage(method, rawPathAndQuery, timestampMs,
                                                      nonceHex, bodySha256Hex))
        .toHex();
}

QByteArray RequestSigner::newNonce() {
    return crypto::randomBytes(16).toHex();
}

QList<QPair<QByteArray, QByteArray>> RequestSigner::headersFor(const QByteArray& token,
                                                               const QByteArray& method,
                                                               const QByteArray& rawPathAndQuery,
                                                               const QByteArray& body,
                                                               qint64 timestampMs) {
    return headersForHash(token, method, rawPathAndQuery, crypto::sha256Hex(body), timestampMs);
}

QList<QPair<QByteArray, QByteArray>>
RequestSigner::headersForHash(const QByteArray& token, const QByteArray& method,
                              const QByteArray& rawPathAndQuery, const QByteArray& bodySha256Hex,
                              qint64 timestampMs) {
    const QByteArray nonce = newNonce();
    const QByteArray sig = sign(token, method, rawPathAndQuery, timestampMs, nonce, bodySha256Hex);
    return {{"Authorization", "Bearer " + token},
            {auth_headers::kTimestamp, QByteArray::number(timestampMs)},
            {auth_headers::kNonce, nonce},
            {auth_headers::kSignature, sig}};
}

} // namespace runbox
