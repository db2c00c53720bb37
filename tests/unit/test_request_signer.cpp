#include "shared/Crypto.h"
#include "shared/RequestSigner.h"

#include <QTest>

using namespace runbox;

class TestRequestSigner final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testSha256KnownVector() {
        // FIPS 180-2 appendix B.1
        QCOMPARE(crypto::sha256Hex("abc"),
                 QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    }
    void testHmacKnownVector() {
        // RFC 4231 test case 2
        QCOMPARE(crypto::hmacSha256("Jefe", "what do ya want for nothing?").toHex(),
                 QByteArray("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
        // RFC 4231 test case 6: a key longer than the block size is hashed first. The context
        // template is shared, so a short key before and after must not leak into it.
        QCOMPARE(crypto::hmacSha256(QByteArray(131, '\xaa'),
                                    "Test Using Larger Than Block-Size Key - Hash Key First")
                     .toHex(),
                 QByteArray("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
        QCOMPARE(crypto::hmacSha256("Jefe", "what do ya want for nothing?").toHex(),
                 QByteArray("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    }
    void testCanonicalMessageLayout() {
        QCOMPARE(RequestSigner::canonicalMessage("POST", "/v1/x?a=1", 1700000000123, "ab", "cd"),
                 QByteArray("POST\n/v1/x?a=1\n1700000000123\nab\ncd"));
    }
    void testSignatureChangesWithEveryField() {
        const QByteArray base = RequestSigner::sign("tok", "GET", "/a", 1, "n", "h");
        QCOMPARE(base.size(), 64);
        QVERIFY(base != RequestSigner::sign("tok2", "GET", "/a", 1, "n", "h"));
        QVERIFY(base != RequestSigner::sign("tok", "PUT", "/a", 1, "n", "h"));
        QVERIFY(base != RequestSigner::sign("tok", "GET", "/b", 1, "n", "h"));
        QVERIFY(base != RequestSigner::sign("tok", "GET", "/a", 2, "n", "h"));
        QVERIFY(base != RequestSigner::sign("tok", "GET", "/a", 1, "m", "h"));
        QVERIFY(base != RequestSigner::sign("tok", "GET", "/a", 1, "n", "i"));
    }
    void testNoncesAreFreshHex() {
        const QByteArray a = RequestSigner::newNonce(), b = RequestSigner::newNonce();
        QCOMPARE(a.size(), 32);
        QVERIFY(a != b);
        QVERIFY(QByteArray::fromHex(a).toHex() == a);
    }
    void testConstantTimeEquals() {
        QVERIFY(crypto::constantTimeEquals("abc", "abc"));
        QVERIFY(!crypto::constantTimeEquals("abc", "abd"));
        QVERIFY(!crypto::constantTimeEquals("abc", "abcd"));
    }
};

QTEST_GUILESS_MAIN(TestRequestSigner)
#include "test_request_signer.moc"
