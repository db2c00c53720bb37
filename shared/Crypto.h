#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace runbox::crypto {

/// SHA-256 of @p data (FIPS 180-4) as 64 lowercase hex characters. OpenSSL EVP.
QByteArray sha256Hex(const QByteArray& data);

/// HMAC-SHA256 (RFC 2104) of @p message under @p key, raw 32 bytes. OpenSSL EVP_MAC.
QByteArray hmacSha256(const QByteArray& key, const QByteArray& message);

/// @p n bytes from OpenSSL's CSPRNG (RAND_bytes). Aborts if the generator fails:
/// a predictable token or nonce is worse than no agent.
QByteArray randomBytes(int n);

/// Constant-time equality of two byte strings (CRYPTO_memcmp after a length check;
/// the length itself is not secret here: signatures and tokens have fixed lengths).
bool constantTimeEquals(const QByteArray& a, const QByteArray& b);

/// Whether @p text is exactly @p size lowercase hex digits (our digests, nonces and signatures
/// are lowercase, docs/contracts.md "Request signing").
bool isLowerHex(QByteArrayView text, qsizetype size);
/// Whether @p text is exactly @p size hex digits of either case.
bool isHex(QByteArrayView text, qsizetype size);

/// Incremental SHA-256 for bodies that arrive in pieces (uploads, chunked requests).
class Sha256Stream final {
public:
    Sha256Stream();
    ~Sha256Stream();
    Sha256Stream(const Sha256Stream&) = delete;
    Sha256Stream& operator=(const Sha256Stream&) = delete;

    void addData(const char* data, qsizetype size);
    /// Final digest as lowercase hex; the stream is reset afterwards.
    QByteArray finalHex();

private:
    void* m_ctx;
};

} // namespace runbox::crypto
