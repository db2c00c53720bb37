#pragma once

#include "agent/Error.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QStringList>

#include <optional>

namespace runbox::tls {

/// A freshly generated key pair and self-signed certificate, PEM encoded.
struct GeneratedIdentity {
    QByteArray keyPem;         ///< PKCS#8 `PRIVATE KEY` (unencrypted: the file is 0600)
    QByteArray certificatePem; ///< X.509 v3 `CERTIFICATE`
};

/// Makes the agent's own TLS identity when the operator supplies none (docs/contracts.md "TLS
/// and pinning"): an ECDSA key on P-256 (prime256v1, RFC 5480) and a self-signed X.509 v3
/// certificate signed with ECDSA-SHA256 (RFC 5280), through OpenSSL 3's EVP APIs
/// (EVP_EC_gen(3), X509_sign(3)).
///
/// The certificate: subject and issuer `CN=<first DNS name>, O=runbox-agent`; a random 127-bit
/// serial; valid from one hour before now (clocks differ) for @p validityDays days; extensions
/// basicConstraints CA:FALSE (critical), keyUsage digitalSignature (critical),
/// extendedKeyUsage serverAuth, subjectKeyIdentifier, and subjectAltName with every name of
/// @p dnsNames (only `[A-Za-z0-9.-]` names are kept) and every address of @p addresses. Clients
/// trust it by its SHA-256 pin, not by a CA. Errors: Internal `tls_generation_failed` naming
/// the OpenSSL step and its error text.
class SelfSignedCertificate final {
public:
    static std::optional<Error> generate(const QStringList& dnsNames,
                                         const QList<QHostAddress>& addresses, int validityDays,
                                         GeneratedIdentity* out);
};

} // namespace runbox::tls
