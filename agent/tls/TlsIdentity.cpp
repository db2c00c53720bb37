#include "agent/tls/TlsIdentity.h"

#include "agent/config/StateDir.h"
#include "agent/tls/SelfSignedCertificate.h"
#include "shared/TlsPin.h"

#include <QFile>
#include <QFileInfo>
#include <QSslSocket>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <sys/stat.h>

namespace runbox::tls {

namespace {

/// Self-signed certificates are trusted by their pin, not by a validity window; ten years keeps
/// the pin stable for the agent's life (a pinning client accepts the pinned one even when
/// expired, docs/contracts.md "TLS and pinning").
constexpr int kValidityDays = 3650;

Error unreadable(const QString& path, const QString& why) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("tls_unreadable"),
                 QStringLiteral("TLS: %1: %2").arg(path, why)};
}

/// Reads @p path whole; an error naming it when it cannot.
std::optional<Error> readFile(const QString& path, QByteArray* out) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return unreadable(path, f.errorString());
    *out = f.readAll();
    return std::nullopt;
}

/// The OpenSSL passphrase callback that refuses: an encrypted key fails instead of prompting.
int noPassphrase(char*, int, int, void*) {
    return -1;
}

/// Parses @p keyPem, checks it belongs to @p certPem (X509_check_private_key(3)) and returns it
/// as a QSslKey of the right algorithm.
std::optional<Error> parseKey(const QByteArray& keyPem, const QByteArray& certPem,
                              const QString& keyPath, QSslKey* out) {
    BIO* keyBio = BIO_new_mem_buf(keyPem.constData(), int(keyPem.size()));
    EVP_PKEY* key =
        keyBio ? PEM_read_bio_PrivateKey(keyBio, nullptr, noPassphrase, nullptr) : nullptr;
    BIO_free(keyBio);
    BIO* certBio = BIO_new_mem_buf(certPem.constData(), int(certPem.size()));
    X509* cert = certBio ? PEM_read_bio_X509(certBio, nullptr, noPassphrase, nullptr) : nullptr;
    BIO_free(certBio);
    const bool matches = key && cert && X509_check_private_key(cert, key) == 1;
    const int type = key ? EVP_PKEY_get_base_id(key) : 0;
    EVP_PKEY_free(key);
    X509_free(cert);
    ERR_clear_error();
    if (!key)
        return unreadable(keyPath, QStringLiteral("no unencrypted PEM private key"));
    if (!matches)
        return unreadable(keyPath, QStringLiteral("the key is not the certificate's"));
    const QSsl::KeyAlgorithm algorithm = type == EVP_PKEY_EC    ? QSsl::Ec
                                         : type == EVP_PKEY_RSA ? QSsl::Rsa
                                                                : QSsl::Opaque;
    *out = QSslKey(keyPem, algorithm, QSsl::Pem, QSsl::PrivateKey);
    if (out->isNull())
        return unreadable(keyPath, QStringLiteral("Qt cannot use this key (EC or RSA only)"));
    return std::nullopt;
}

/// Generates the pair and writes the key (0600) then the certificate, each atomically.
std::optional<Error> generateInto(const QString& certPath, const QString& keyPath,
                                  const QStringList& dnsNames,
                                  const QList<QHostAddress>& addresses) {
    GeneratedIdentity made;
    if (auto e = SelfSignedCertificate::generate(dnsNames, addresses, kValidityDays, &made))
        return e;
    QString why;
    if (!config::writeFileAtomically(keyPath, made.keyPem, 0600, &why) ||
        !config::writeFileAtomically(certPath, made.certificatePem, 0644, &why))
        return Error{ErrorKind::Internal, QStringLiteral("tls_write_failed"),
                     QStringLiteral("TLS: %1").arg(why)};
    return std::nullopt;
}

} // namespace

QString TlsIdentity::fingerprint() const {
    return formatFingerprint(certificateSha256(certificate));
}

QSslConfiguration TlsIdentity::serverConfiguration() const {
    QSslConfiguration c = QSslConfiguration::defaultConfiguration();
    c.setProtocol(QSsl::TlsV1_2OrLater);
    c.setLocalCertificateChain(QList<QSslCertificate>{certificate} + chain);
    c.setPrivateKey(key);
    c.setPeerVerifyMode(QSslSocket::VerifyNone);
    c.setSslOption(QSsl::SslOptionDisableLegacyRenegotiation, true);
    // Qt hands this to SSL_CONF_cmd(3) (file syntax) when it builds the context. Renegotiation
    // needs no option: OpenSSL 3 servers refuse a client-initiated one unless
    // SSL_OP_ALLOW_CLIENT_RENEGOTIATION is set (SSL_CTX_set_options(3)), and the agent never
    // starts one. (`Options = NoRenegotiation` here made Qt 6.4's server hang in the handshake.)
    c.setBackendConfigurationOption("MinProtocol", QByteArray("TLSv1.2"));
    return c;
}

QString TlsIdentity::generatedCertificatePath(const QString& stateDir) {
    return stateDir + QStringLiteral("/tls-cert.pem");
}

QString TlsIdentity::generatedKeyPath(const QString& stateDir) {
    return stateDir + QStringLiteral("/tls-key.pem");
}

std::optional<Error> TlsIdentity::readCertificate(const QString& stateDir, const QString& certPath,
                                                  QSslCertificate* out) {
    const QString path = certPath.isEmpty() ? generatedCertificatePath(stateDir) : certPath;
    if (!QFileInfo::exists(path))
        return Error{ErrorKind::NotFound, QStringLiteral("tls_files_missing"),
                     QStringLiteral("TLS: %1 does not exist; the agent generates it on its first "
                                    "start with --listen-tls")
                         .arg(path)};
    QByteArray pem;
    if (auto e = readFile(path, &pem))
        return e;
    const QList<QSslCertificate> certs = QSslCertificate::fromData(pem, QSsl::Pem);
    if (certs.isEmpty())
        return unreadable(path, QStringLiteral("no PEM certificate"));
    *out = certs.first();
    return std::nullopt;
}

std::optional<Error> TlsIdentity::loadOrCreate(const QString& stateDir, const QString& certPath,
                                               const QString& keyPath, const QStringList& dnsNames,
                                               const QList<QHostAddress>& addresses,
                                               TlsIdentity* out) {
    if (certPath.isEmpty() != keyPath.isEmpty())
        return Error{ErrorKind::InvalidArgument, QStringLiteral("tls_config"),
                     QStringLiteral("TLS: --tls-cert and --tls-key go together (an operator's "
                                    "certificate needs its key); give both or neither")};
    out->generated = certPath.isEmpty();
    const QString cert = out->generated ? generatedCertificatePath(stateDir) : certPath;
    const QString key = out->generated ? generatedKeyPath(stateDir) : keyPath;
    if (out->generated) {
        const bool haveCert = QFileInfo::exists(cert);
        const bool haveKey = QFileInfo::exists(key);
        if (haveCert != haveKey)
            return Error{ErrorKind::NotFound, QStringLiteral("tls_files_missing"),
                         QStringLiteral("TLS: %1 exists without %2: delete it and the agent "
                                        "generates a new pair (clients must pin the new "
                                        "fingerprint)")
                             .arg(haveCert ? cert : key, haveCert ? key : cert)};
        if (!haveCert) {
            if (auto e = generateInto(cert, key, dnsNames, addresses))
                return e;
            out->createdNow = true;
        }
        struct stat st {};
        if (::stat(QFile::encodeName(key).constData(), &st) == 0 && (st.st_mode & 077) != 0)
            return Error{ErrorKind::PermissionDenied, QStringLiteral("tls_key_mode"),
                         QStringLiteral("TLS: %1 is readable by others (mode %2); chmod 600 it")
                             .arg(key)
                             .arg(st.st_mode & 0777, 3, 8, QLatin1Char('0'))};
    }
    QByteArray certPem;
    QByteArray keyPem;
    if (auto e = readFile(cert, &certPem))
        return e;
    if (auto e = readFile(key, &keyPem))
        return e;
    const QList<QSslCertificate> certs = QSslCertificate::fromData(certPem, QSsl::Pem);
    if (certs.isEmpty())
        return unreadable(cert, QStringLiteral("no PEM certificate"));
    if (auto e = parseKey(keyPem, certPem, key, &out->key))
        return e;
    out->certificate = certs.first();
    out->chain = certs.mid(1);
    out->certificatePath = cert;
    return std::nullopt;
}

} // namespace runbox::tls
