// The agent's TLS identity and the client's pin decision (docs/contracts.md "TLS and pinning"):
// agent/tls/ (SelfSignedCertificate, TlsIdentity, PlaintextListen) and shared/TlsPin.
#include "agent/tls/PlaintextListen.h"
#include "agent/tls/SelfSignedCertificate.h"
#include "agent/tls/TlsIdentity.h"
#include "shared/TlsPin.h"

#include <QFile>
#include <QProcess>
#include <QSslKey>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::tls;

class TestTlsIdentity final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testFingerprintFormsRoundTrip() {
        const QByteArray sha = QByteArray::fromHex("7940318790035"
                                                   "8ee4f264f54f374ae843905521"
                                                   "19ef074a59c8c29f6181c55d4");
        QCOMPARE(sha.size(), 32);
        const QString colon = formatFingerprint(sha);
        QCOMPARE(colon.size(), 95);
        QVERIFY(colon.startsWith(QLatin1String("79:40:31:")));
        QCOMPARE(parseFingerprint(colon), std::optional<QByteArray>(sha));
        QCOMPARE(parseFingerprint(colon.toLower()), std::optional<QByteArray>(sha));
        QCOMPARE(parseFingerprint(QStringLiteral("sha256:") + QString::fromLatin1(sha.toHex())),
                 std::optional<QByteArray>(sha));
        QCOMPARE(parseFingerprint(QStringLiteral(" sha256 Fingerprint=") + colon + '\n'),
                 std::optional<QByteArray>(sha));
        QVERIFY(!parseFingerprint(colon.left(92))); // 31 bytes
        QVERIFY(!parseFingerprint(QStringLiteral("sha1:") + QString::fromLatin1(sha.toHex())));
        QVERIFY(!parseFingerprint(QString()));
    }

    void testPlainListenerStaysOnLoopback_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("127.0.0.1") << "127.0.0.1" << true;
        QTest::newRow("127.8.9.10") << "127.8.9.10" << true;
        QTest::newRow("::1") << "::1" << true;
        QTest::newRow("mapped 127") << "::ffff:127.0.0.1" << true;
        QTest::newRow("0.0.0.0") << "0.0.0.0" << false;
        QTest::newRow("::") << "::" << false;
        QTest::newRow("10.0.0.1") << "10.0.0.1" << false;
        QTest::newRow("128.0.0.1") << "128.0.0.1" << false;
    }

    void testPlainListenerStaysOnLoopback() {
        QFETCH(QString, address);
        QFETCH(bool, loopback);
        const QHostAddress a(address);
        QCOMPARE(isLoopback(a), loopback);
        const auto refusal = plaintextListenRefusal(a, false);
        QCOMPARE(refusal.has_value(), !loopback);
        if (refusal) {
            QCOMPARE(refusal->code, QStringLiteral("plaintext_remote_refused"));
            QVERIFY(refusal->message.contains(QLatin1String("confidentiality")));
            QVERIFY(refusal->message.contains(QLatin1String("--allow-plaintext-remote")));
        }
        QVERIFY(!plaintextListenRefusal(a, true)); // the operator's explicit choice
    }

    void testGeneratedCertificateIsP256WithTheNamesAndAKeyOnly0600() {
        QTemporaryDir dir;
        TlsIdentity identity;
        const auto e = TlsIdentity::loadOrCreate(dir.path(), {}, {}, {"agent-host", "bad name!"},
                                                 {QHostAddress("192.0.2.7")}, &identity);
        QVERIFY2(!e, e ? qPrintable(e->message) : "");
        QVERIFY(identity.generated && identity.createdNow);
        QCOMPARE(identity.key.algorithm(), QSsl::Ec);
        QCOMPARE(identity.key.length(), 256);
        const auto san = identity.certificate.subjectAlternativeNames();
        QCOMPARE(san.values(QSsl::DnsEntry), QList<QString>{"agent-host"});
        QCOMPARE(san.values(QSsl::IpAddressEntry), QList<QString>{"192.0.2.7"});
        // Self-issued (QSslCertificate::isSelfSigned() asks X509_check_issued(3), which wants
        // keyCertSign in the keyUsage: a leaf that cannot sign certificates has none).
        QCOMPARE(identity.certificate.issuerDisplayName(),
                 identity.certificate.subjectDisplayName());
        QVERIFY(identity.certificate.expiryDate() > QDateTime::currentDateTimeUtc().addYears(9));
        QVERIFY(identity.certificate.effectiveDate() < QDateTime::currentDateTimeUtc());
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(TlsIdentity::generatedKeyPath(dir.path())), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        // The fingerprint is what `openssl x509 -fingerprint -sha256` says of the file.
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
                      {"x509", "-noout", "-fingerprint", "-sha256", "-in",
                       TlsIdentity::generatedCertificatePath(dir.path())});
        if (openssl.waitForFinished(10000) && openssl.exitCode() == 0)
            QCOMPARE(QString::fromLatin1(openssl.readAllStandardOutput()).trimmed(),
                     QStringLiteral("sha256 Fingerprint=") + identity.fingerprint());

        // Reused on the next start, not regenerated.
        TlsIdentity again;
        QVERIFY(!TlsIdentity::loadOrCreate(dir.path(), {}, {}, {"other"}, {}, &again));
        QVERIFY(!again.createdNow);
        QCOMPARE(again.fingerprint(), identity.fingerprint());
        QSslCertificate printed;
        QVERIFY(!TlsIdentity::readCertificate(dir.path(), {}, &printed));
        QCOMPARE(formatFingerprint(certificateSha256(printed)), identity.fingerprint());
    }

    void testBrokenPairsAreRefused() {
        QTemporaryDir dir;
        TlsIdentity first;
        QVERIFY(!TlsIdentity::loadOrCreate(dir.path(), {}, {}, {"a"}, {}, &first));
        // A key readable by others is refused, as agent.token is.
        const QString keyPath = TlsIdentity::generatedKeyPath(dir.path());
        QVERIFY(QFile::setPermissions(keyPath,
                                      QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
        TlsIdentity t;
        auto e = TlsIdentity::loadOrCreate(dir.path(), {}, {}, {}, {}, &t);
        QVERIFY(e);
        QCOMPARE(e->code, QStringLiteral("tls_key_mode"));
        QVERIFY(QFile::setPermissions(keyPath, QFile::ReadOwner | QFile::WriteOwner));
        // The operator's certificate with another key.
        QTemporaryDir other;
        TlsIdentity second;
        QVERIFY(!TlsIdentity::loadOrCreate(other.path(), {}, {}, {"b"}, {}, &second));
        e = TlsIdentity::loadOrCreate(dir.path(), TlsIdentity::generatedCertificatePath(dir.path()),
                                      TlsIdentity::generatedKeyPath(other.path()), {}, {}, &t);
        QVERIFY(e);
        QVERIFY2(e->message.contains(QLatin1String("not the certificate's")),
                 qPrintable(e->message));
        // Positive control: the operator's pair that belongs together.
        e = TlsIdentity::loadOrCreate(dir.path(),
                                      TlsIdentity::generatedCertificatePath(other.path()),
                                      TlsIdentity::generatedKeyPath(other.path()), {}, {}, &t);
        QVERIFY2(!e, e ? qPrintable(e->message) : "");
        QVERIFY(!t.generated);
        QCOMPARE(t.fingerprint(), second.fingerprint());
        // One of --tls-cert/--tls-key alone; a certificate without its key.
        e = TlsIdentity::loadOrCreate(
            dir.path(), TlsIdentity::generatedCertificatePath(other.path()), {}, {}, {}, &t);
        QVERIFY(e && e->code == QStringLiteral("tls_config"));
        QVERIFY(QFile::remove(keyPath));
        e = TlsIdentity::loadOrCreate(dir.path(), {}, {}, {}, {}, &t);
        QVERIFY(e && e->code == QStringLiteral("tls_files_missing"));
    }

    void testPeerDecision() {
        QTemporaryDir dir;
        TlsIdentity id;
        QVERIFY(!TlsIdentity::loadOrCreate(dir.path(), {}, {}, {"a"}, {}, &id));
        const QByteArray right = certificateSha256(id.certificate);
        QByteArray wrong = right;
        wrong[0] = char(wrong[0] ^ 1);
        const QList<QSslError> selfSigned{
            QSslError(QSslError::SelfSignedCertificate, id.certificate)};
        QCOMPARE(checkPeer(id.certificate, selfSigned, right), QString()); // the pin decides
        QCOMPARE(checkPeer(id.certificate, {}, {}), QString()); // verified by the system store
        const QString mismatch = checkPeer(id.certificate, {}, wrong);
        QVERIFY(mismatch.contains(QLatin1String("expected ") + formatFingerprint(wrong)));
        QVERIFY(mismatch.contains(QLatin1String("presented ") + id.fingerprint()));
        const QString unpinned = checkPeer(id.certificate, selfSigned, {});
        QVERIFY(unpinned.contains(id.fingerprint()));
        QVERIFY(unpinned.contains(QLatin1String("--fingerprint")));
        QVERIFY(!checkPeer(QSslCertificate(), {}, right).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTlsIdentity)
#include "test_tls_identity.moc"
