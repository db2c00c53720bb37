#pragma once

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QSslError>
#include <QString>

#include <optional>

class QSslSocket;
class QUrl;

namespace runbox::tls {

/// The SHA-256 of @p certificate's DER encoding (32 bytes): what a client pins and what
/// `runbox-agent --print-fingerprint` prints (docs/contracts.md "TLS and pinning"). Empty for a
/// null certificate.
QByteArray certificateSha256(const QSslCertificate& certificate);

/// @p sha256 (32 bytes) in the one output form: colon-separated uppercase hex pairs,
/// `AB:CD:…` (95 characters), as `openssl x509 -noout -fingerprint -sha256` prints it.
QString formatFingerprint(const QByteArray& sha256);

/// Reads a fingerprint typed by an operator: `AB:CD:…` (colons optional, any case), or
/// `sha256:<64 hex>`, or `SHA256 Fingerprint=AB:CD:…` as openssl prints it; surrounding blanks
/// ignored. Returns the 32 bytes, or std::nullopt when the text is none of these.
std::optional<QByteArray> parseFingerprint(const QString& text);

/// What a client decides about the certificate @p presented by an https:// agent, given the
/// verification @p errors of the system trust store (RFC 5280 path validation as OpenSSL does
/// it, plus the host name check of RFC 6125) and the operator's @p pin (32 bytes, or empty).
/// Returns an empty string to accept, else the refusal, loud and complete:
/// - with a pin: accepted exactly when SHA-256(DER) equals the pin, whatever @p errors say (the
///   pin is the identity; a self-signed certificate has no other); otherwise refused naming the
///   expected and the presented fingerprint;
/// - without a pin: accepted when @p errors is empty (a certificate of a CA in the system
///   store, for this host); otherwise refused with the errors, the presented fingerprint and how
///   to pin it (`--fingerprint`, `RUNBOX_FINGERPRINT`, `runbox-agent --print-fingerprint`).
QString checkPeer(const QSslCertificate& presented, const QList<QSslError>& errors,
                  const QByteArray& pin);

/// Connects @p socket to @p url's host and port (443 unless given) with TLS 1.2 or later and
/// waits at most @p timeoutMs for the handshake, deciding the certificate by checkPeer() with
/// @p pin. Blocking (for the CLI). Returns an empty string once the connection is encrypted and
/// its certificate accepted; else why not (the checkPeer() refusal, or the socket's error); the
/// socket is then aborted.
QString connectPinned(QSslSocket* socket, const QUrl& url, const QByteArray& pin, int timeoutMs);

} // namespace runbox::tls
