#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>

namespace runbox {

/// Header names of the request-signing scheme (docs/contracts.md "Request signing").
namespace auth_headers {
inline constexpr char kTimestamp[] = "X-Runbox-Timestamp";
inline constexpr char kNonce[] = "X-Runbox-Nonce";
inline constexpr char kSignature[] = "X-Runbox-Signature";
inline constexpr char kContentSha256[] = "X-Runbox-Content-SHA256";
} // namespace auth_headers

/// Builds and checks the request signature (docs/contracts.md "Request signing"):
/// hex(HMAC-SHA256(key = token, msg = METHOD \n RAW_PATH_AND_QUERY \n TIMESTAMP_MS \n NONCE \n
/// HEX_SHA256(BODY))).
class RequestSigner final {
public:
    /// The message that is signed. @p bodySha256Hex is the lowercase hex SHA-256 of the raw body.
    static QByteArray canonicalMessage(const QByteArray& method, const QByteArray& rawPathAndQuery,
                                       qint64 timestampMs, const QByteArray& nonceHex,
                                       const QByteArray& bodySha256Hex);

    /// Lowercase hex signature of the canonical message under @p token.
    static QByteArray sign(const QByteArray& token, const QByteArray& method,
                           const QByteArray& rawPathAndQuery, qint64 timestampMs,
                           const QByteArray& nonceHex, const QByteArray& bodySha256Hex);

    /// A fresh 128-bit nonce as 32 lowercase hex characters.
    static QByteArray newNonce();

    /// All auth headers (Authorization, timestamp, nonce, signature) for one request.
    /// @p timestampMs is the signer's clock, already corrected for skew by the caller.
    static QList<QPair<QByteArray, QByteArray>>
    headersFor(const QByteArray& token, const QByteArray& method, const QByteArray& rawPathAndQuery,
               const QByteArray& body, qint64 timestampMs);
    /// Same, for a body known only by its lowercase hex SHA-256 (streamed uploads, whose hash
    /// also travels in X-Runbox-Content-SHA256).
    static QList<QPair<QByteArray, QByteArray>> headersForHash(const QByteArray& token,
                                                               const QByteArray& method,
                                                               const QByteArray& rawPathAndQuery,
                                                               const QByteArray& bodySha256Hex,
                                                               qint64 timestampMs);
};

} // namespace runbox
