#include "shared/Crypto.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstdlib>

namespace runbox::crypto {

QByteArray sha256Hex(const QByteArray& data) {
    Sha256Stream s;
    s.addData(data.constData(), data.size());
    return s.finalHex();
}

namespace {

/// An HMAC context with SHA-256 already chosen, made once. OpenSSL 3's one-shot HMAC() fetches
/// the MAC and the digest from the provider on every call (EVP_Q_mac); duplicating this template
/// skips both fetches. Never used directly, only duplicated (EVP_MAC_CTX_dup), so thread-safe.
const EVP_MAC_CTX* hmacSha256Template() {
    static EVP_MAC_CTX* const context = [] {
        EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
        EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
        EVP_MAC_free(mac); // the context keeps its own reference
        char digest[] = "SHA256";
        const OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
            OSSL_PARAM_construct_end()};
        if (!ctx || EVP_MAC_CTX_set_params(ctx, params) != 1)
            std::abort(); // no HMAC-SHA256 in this OpenSSL: nothing can be signed or verified
        return ctx;
    }();
    return context;
}

} // namespace

QByteArray hmacSha256(const QByteArray& key, const QByteArray& message) {
    unsigned char out[EVP_MAX_MD_SIZE];
    size_t len = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(message.constData());
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_dup(hmacSha256Template());
    if (!ctx) {
        // OpenSSL 3.0.0 cannot duplicate an HMAC context before it has a key (fixed in 3.0.1):
        // the one-shot call, slower but the same MAC.
        if (!EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA256", nullptr, key.constData(),
                       size_t(key.size()), data, size_t(message.size()), out, sizeof(out), &len))
            std::abort(); // no HMAC-SHA256 at all: nothing can be signed or verified
        return QByteArray(reinterpret_cast<const char*>(out), int(len));
    }
    const bool ok = EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.constData()),
                                 size_t(key.size()), nullptr) == 1 &&
                    EVP_MAC_update(ctx, data, size_t(message.size())) == 1 &&
                    EVP_MAC_final(ctx, out, &len, sizeof(out)) == 1;
    EVP_MAC_CTX_free(ctx);
    if (!ok)
        std::abort(); // out of memory inside OpenSSL
    return QByteArray(reinterpret_cast<const char*>(out), int(len));
}

QByteArray randomBytes(int n) {
    QByteArray out(n, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), n) != 1)
        std::abort();
    return out;
}

bool constantTimeEquals(const QByteArray& a, const QByteArray& b) {
    if (a.size() != b.size())
        return false;
    return CRYPTO_memcmp(a.constData(), b.constData(), size_t(a.size())) == 0;
}

Sha256Stream::Sha256Stream() : m_ctx(EVP_MD_CTX_new()) {
    EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(m_ctx), EVP_sha256(), nullptr);
}

Sha256Stream::~Sha256Stream() {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(m_ctx));
}

void Sha256Stream::addData(const char* data, qsizetype size) {
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(m_ctx), data, size_t(size));
}

QByteArray Sha256Stream::finalHex() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    auto* ctx = static_cast<EVP_MD_CTX*>(m_ctx);
    EVP_DigestFinal_ex(ctx, out, &len);
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    return QByteArray(reinterpret_cast<const char*>(out), int(len)).toHex();
}

bool isLowerHex(QByteArrayView text, qsizetype size) {
    if (text.size() != size)
        return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

bool isHex(QByteArrayView text, qsizetype size) {
    if (text.size() != size)
        return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    return true;
}

} // namespace runbox::crypto
