#include "shared/Crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

namespace runbox::crypto {

QByteArray sha256Hex(const QByteArray& data) {
    Sha256Stream s;
    s.addData(data.constData(), data.size());
    return s.finalHex();
}

QByteArray hmacSha256(const QByteArray& key, const QByteArray& message) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.constData(), int(key.size()),
         reinterpret_cast<const unsigned char*>(message.constData()), size_t(message.size()), out,
         &len);
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
