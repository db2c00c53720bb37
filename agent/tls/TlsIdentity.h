#pragma once

#include "agent/Error.h"

#include <QHostAddress>
#include <QList>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QString>

#include <optional>

namespace runbox::tls {

/// The agent's TLS certificate and key (docs/contracts.md "TLS and pinning"): the operator's
/// (--tls-cert, --tls-key) or, without them, the one the agent generated in its state directory
/// (`tls-cert.pem`, `tls-key.pem` 0600) on the first start with --listen-tls and reuses on every
/// later start.
struct TlsIdentity {
    QSslCertificate certificate; ///< the leaf the agent presents
    QList<QSslCertificate>
        chain;               ///< intermediates after the leaf (an operator's file may hold them)
    QSslKey key;             ///< the leaf's private key
    QString certificatePath; ///< where it was read from
    bool generated = false;  ///< made by the agent (now or on an earlier start)
    bool createdNow = false; ///< made by this start

    /// SHA-256 of the leaf's DER encoding as `AB:CD:…` (tls::formatFingerprint).
    QString fingerprint() const;

    /// The server side of the TLS listener with this identity: TLS 1.2 or 1.3 only (RFC 8996
    /// deprecates 1.0 and 1.1; QSsl::TlsV1_2OrLater and OpenSSL's MinProtocol, SSL_CONF_cmd(3)),
    /// no renegotiation (TLS 1.2 renegotiation, RFC 5246 §7.4.1, is a DoS lever; TLS 1.3 has
    /// none, RFC 8446 §4.1: OpenSSL 3 refuses a client-initiated one by default, see
    /// SSL_CTX_set_options(3) SSL_OP_ALLOW_CLIENT_RENEGOTIATION, and the agent starts none),
    /// no client certificate asked for (requests are signed).
    QSslConfiguration serverConfiguration() const;

    /// The generated files in @p stateDir.
    static QString generatedCertificatePath(const QString& stateDir);
    static QString generatedKeyPath(const QString& stateDir);

    /// Reads the operator's pair when @p certPath is set (then @p keyPath must be too), else the
    /// generated pair in @p stateDir, generating it first (SelfSignedCertificate, SAN
    /// @p dnsNames and @p addresses) when neither file exists. The key is written 0600 through a
    /// temporary file and rename(2), then the certificate, so a crash never leaves a certificate
    /// without its key. Errors: InvalidArgument `tls_config` (one of --tls-cert/--tls-key
    /// alone), NotFound `tls_files_missing` (only one generated file is there: delete it),
    /// InvalidArgument `tls_unreadable` (a file that cannot be read or parsed, an encrypted key,
    /// a key that is not the certificate's), PermissionDenied `tls_key_mode` (the generated key
    /// is readable by group or others), Internal from generation or writing.
    static std::optional<Error> loadOrCreate(const QString& stateDir, const QString& certPath,
                                             const QString& keyPath, const QStringList& dnsNames,
                                             const QList<QHostAddress>& addresses,
                                             TlsIdentity* out);

    /// Only reads the certificate that loadOrCreate() would use (for --print-fingerprint):
    /// @p certPath when set, else the generated one. NotFound `tls_files_missing` when there is
    /// none yet; InvalidArgument `tls_unreadable` when it cannot be parsed.
    static std::optional<Error> readCertificate(const QString& stateDir, const QString& certPath,
                                                QSslCertificate* out);
};

} // namespace runbox::tls
