#include "shared/TlsPin.h"

#include <QCryptographicHash>
#include <QRegularExpression>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStringList>
#include <QUrl>

namespace runbox::tls {

QByteArray certificateSha256(const QSslCertificate& certificate) {
    if (certificate.isNull())
        return {};
    return QCryptographicHash::hash(certificate.toDer(), QCryptographicHash::Sha256);
}

QString formatFingerprint(const QByteArray& sha256) {
    return QString::fromLatin1(sha256.toHex(':').toUpper());
}

std::optional<QByteArray> parseFingerprint(const QString& text) {
    QString t = text.trimmed();
    static const QRegularExpression kOpensslPrefix(QStringLiteral("^sha256\\s*fingerprint\\s*="),
                                                   QRegularExpression::CaseInsensitiveOption);
    t.remove(kOpensslPrefix);
    if (t.startsWith(QLatin1String("sha256:"), Qt::CaseInsensitive))
        t = t.mid(7);
    t.remove(QLatin1Char(':'));
    static const QRegularExpression kHex64(QStringLiteral("^[0-9A-Fa-f]{64}$"));
    if (!kHex64.match(t).hasMatch())
        return std::nullopt;
    return QByteArray::fromHex(t.toLatin1());
}

QString checkPeer(const QSslCertificate& presented, const QList<QSslError>& errors,
                  const QByteArray& pin) {
    const QByteArray actual = certificateSha256(presented);
    if (actual.isEmpty())
        return QStringLiteral("TLS: the agent presented no certificate");
    if (!pin.isEmpty()) {
        if (actual == pin)
            return {};
        return QStringLiteral("TLS: the agent's certificate does not match the pinned "
                              "fingerprint: expected %1, presented %2. The agent's certificate "
                              "changed, or this is not the agent: compare with "
                              "`runbox-agent --print-fingerprint` on its host before pinning the "
                              "new one; nothing was sent")
            .arg(formatFingerprint(pin), formatFingerprint(actual));
    }
    if (errors.isEmpty())
        return {};
    QStringList why;
    for (const QSslError& e : errors)
        why << e.errorString();
    why.removeDuplicates();
    return QStringLiteral("TLS: the agent's certificate is not trusted (%1); its SHA-256 "
                          "fingerprint is %2. Compare it with `runbox-agent --print-fingerprint` "
                          "on the agent's host (the agent also logs it at start), then pin it: "
                          "--fingerprint %2 (or RUNBOX_FINGERPRINT); nothing was sent")
        .arg(why.join(QStringLiteral("; ")), formatFingerprint(actual));
}

QString connectPinned(QSslSocket* socket, const QUrl& url, const QByteArray& pin, int timeoutMs) {
    QSslConfiguration config = socket->sslConfiguration();
    config.setProtocol(QSsl::TlsV1_2OrLater);
    config.setPeerVerifyMode(QSslSocket::VerifyPeer);
    socket->setSslConfiguration(config);
    QString refusal;
    const auto connection = QObject::connect(
        socket, &QSslSocket::sslErrors, socket, [socket, pin, &refusal](const QList<QSslError>& e) {
            refusal = checkPeer(socket->peerCertificate(), e, pin);
            if (refusal.isEmpty())
                socket->ignoreSslErrors();
        });
    socket->connectToHostEncrypted(url.host(), quint16(url.port(443)));
    const bool encrypted = socket->waitForEncrypted(timeoutMs);
    QObject::disconnect(connection);
    if (encrypted) // a CA-verified certificate raised no sslErrors: the pin is checked here
        refusal = checkPeer(socket->peerCertificate(), {}, pin);
    else if (refusal.isEmpty())
        refusal = socket->errorString();
    if (!refusal.isEmpty())
        socket->abort();
    return refusal;
}

} // namespace runbox::tls
