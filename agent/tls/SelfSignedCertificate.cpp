#include "agent/tls/SelfSignedCertificate.h"

#include <QRegularExpression>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>

namespace runbox::tls {

namespace {

template <typename T, void (*Free)(T*)> struct Deleter {
    void operator()(T* p) const { Free(p); }
};
using PKey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using Ext = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

void freeBio(BIO* b) {
    BIO_free(b);
}
using Bio = std::unique_ptr<BIO, Deleter<BIO, freeBio>>;

/// The error of OpenSSL @p step, with the queue's last entry (ERR_get_error(3)).
Error failure(const char* step) {
    char text[256] = "no OpenSSL error queued";
    if (const unsigned long e = ERR_peek_last_error())
        ERR_error_string_n(e, text, sizeof text);
    ERR_clear_error();
    return Error{ErrorKind::Internal, QStringLiteral("tls_generation_failed"),
                 QStringLiteral("cannot generate the agent's TLS certificate: %1 failed: %2")
                     .arg(QLatin1String(step), QString::fromLatin1(text))};
}

QByteArray pemOf(const std::function<int(BIO*)>& write) {
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || write(bio.get()) != 1)
        return {};
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    return QByteArray(data, int(n));
}

/// Adds extension @p nid with config text @p value (x509v3_config(5)) to @p cert.
bool addExtension(X509* cert, int nid, const QByteArray& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    Ext ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.constData()));
    return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

} // namespace

std::optional<Error> SelfSignedCertificate::generate(const QStringList& dnsNames,
                                                     const QList<QHostAddress>& addresses,
                                                     int validityDays, GeneratedIdentity* out) {
    static const QRegularExpression kDnsName(QStringLiteral("^[A-Za-z0-9]([A-Za-z0-9.-]*)$"));
    QStringList san;
    QStringList names;
    for (const QString& name : dnsNames)
        if (kDnsName.match(name).hasMatch() && name.size() <= 253 && !names.contains(name))
            names << name;
    for (const QString& name : names)
        san << QStringLiteral("DNS:") + name;
    for (const QHostAddress& a : addresses) {
        QHostAddress plain = a;
        plain.setScopeId({});
        const QString entry = QStringLiteral("IP:") + plain.toString();
        if (!plain.isNull() && !san.contains(entry))
            san << entry;
    }
    const QByteArray commonName =
        (names.isEmpty() ? QStringLiteral("runbox-agent") : names.first()).left(64).toUtf8();

    PKey key(EVP_EC_gen("P-256"));
    if (!key)
        return failure("EVP_EC_gen(P-256)");
    Cert cert(X509_new());
    if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1)
        return failure("X509_new");
    Bignum serial(BN_new());
    if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
        !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())))
        return failure("the serial number (BN_rand)");
    if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(cert.get()), long(validityDays) * 86400))
        return failure("the validity (X509_gmtime_adj)");
    X509_NAME* subject = X509_get_subject_name(cert.get());
    if (X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(commonName.constData()),
                                   int(commonName.size()), -1, 0) != 1 ||
        X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>("runbox-agent"), -1, -1,
                                   0) != 1 ||
        X509_set_issuer_name(cert.get(), subject) != 1)
        return failure("the subject name");
    if (X509_set_pubkey(cert.get(), key.get()) != 1)
        return failure("X509_set_pubkey");
    if (!addExtension(cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
        !addExtension(cert.get(), NID_key_usage, "critical,digitalSignature") ||
        !addExtension(cert.get(), NID_ext_key_usage, "serverAuth") ||
        !addExtension(cert.get(), NID_subject_key_identifier, "hash") ||
        (!san.isEmpty() &&
         !addExtension(cert.get(), NID_subject_alt_name, san.join(QLatin1Char(',')).toLatin1())))
        return failure("the extensions (X509V3_EXT_conf_nid)");
    if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0)
        return failure("X509_sign");

    out->keyPem = pemOf([&key](BIO* b) {
        return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    out->certificatePem = pemOf([&cert](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
    if (out->keyPem.isEmpty() || out->certificatePem.isEmpty())
        return failure("PEM encoding");
    return std::nullopt;
}

} // namespace runbox::tls
