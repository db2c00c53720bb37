#include "agent/api/AuthVerifier.h"
#include "shared/Crypto.h"
#include "shared/RequestSigner.h"

#include <QTest>

using namespace runbox;
using namespace runbox::api;

class TestAuthVerifier final : public QObject {
    Q_OBJECT
    const QByteArray m_token = QByteArray(64, 'a');
    const qint64 m_now = 1'800'000'000'000;

    http::HttpRequest signedRequest(const QByteArray& token, qint64 ts, const QByteArray& nonce,
                                    const QByteArray& body = "{}") {
        http::HttpRequest r;
        r.method = "POST";
        r.rawTarget = "/v1/workspaces?x=1";
        r.body = body;
        r.headers = {{"authorization", "Bearer " + token},
                     {"x-runbox-timestamp", QByteArray::number(ts)},
                     {"x-runbox-nonce", nonce},
                     {"x-runbox-signature", RequestSigner::sign(token, r.method, r.rawTarget, ts,
                                                                nonce, crypto::sha256Hex(body))}};
        return r;
    }
    AuthVerifier verifier(const QByteArray& wsNonce = {}) {
        return AuthVerifier(m_token, 30000, [wsNonce](const QString& id) {
            return id == QLatin1String("w1") ? wsNonce : QByteArray();
        });
    }
private Q_SLOTS:
    void testValidSignatureIsAccepted() {
        auto v = verifier();
        Principal p;
        QVERIFY(!v.verify(signedRequest(m_token, m_now, RequestSigner::newNonce()), m_now, &p));
        QVERIFY(p.isAgent());
    }
    void testWrongTokenIsRefused() {
        auto v = verifier();
        Principal p;
        auto err = v.verify(signedRequest(QByteArray(64, 'b'), m_now, RequestSigner::newNonce()),
                            m_now, &p);
        QVERIFY(err);
        QCOMPARE(err->httpStatus, 401);
    }
    void testStaleAndFutureTimestampsAreRefused() {
        auto v = verifier();
        Principal p;
        QCOMPARE(
            v.verify(signedRequest(m_token, m_now - 31000, RequestSigner::newNonce()), m_now, &p)
                ->code,
            QString("signature_expired"));
        QCOMPARE(
            v.verify(signedRequest(m_token, m_now + 31000, RequestSigner::newNonce()), m_now, &p)
                ->code,
            QString("signature_expired"));
    }
    void testReplayedNonceIsRefused() {
        auto v = verifier();
        Principal p;
        const auto req = signedRequest(m_token, m_now, RequestSigner::newNonce());
        QVERIFY(!v.verify(req, m_now, &p));
        QCOMPARE(v.verify(req, m_now + 10, &p)->code, QString("replayed_request"));
    }
    void testTamperedBodyPathAndMethodAreRefused() {
        auto v = verifier();
        Principal p;
        auto body = signedRequest(m_token, m_now, RequestSigner::newNonce());
        body.body = "{\"x\":1}";
        QCOMPARE(v.verify(body, m_now, &p)->code, QString("signature_invalid"));
        auto path = signedRequest(m_token, m_now, RequestSigner::newNonce());
        path.rawTarget = "/v1/workspaces?x=2";
        QCOMPARE(v.verify(path, m_now, &p)->code, QString("signature_invalid"));
        auto method = signedRequest(m_token, m_now, RequestSigner::newNonce());
        method.method = "DELETE";
        QCOMPARE(v.verify(method, m_now, &p)->code, QString("signature_invalid"));
    }
    void testWorkspaceTokenIsScoped() {
        const QByteArray nonce = crypto::randomBytes(16).toHex();
        auto v = verifier(nonce);
        const QByteArray wsToken = WorkspaceToken::derive(m_token, "w1", nonce);
        Principal p;
        QVERIFY(!v.verify(signedRequest(wsToken, m_now, RequestSigner::newNonce()), m_now, &p));
        QVERIFY(!p.isAgent());
        QVERIFY(p.mayUseWorkspace("w1"));
        QVERIFY(!p.mayUseWorkspace("w2"));
        // A token forged for another workspace with a made-up nonce is refused.
        const QByteArray forged = WorkspaceToken::derive(QByteArray(64, 'z'), "w1", nonce);
        QVERIFY(v.verify(signedRequest(forged, m_now, RequestSigner::newNonce()), m_now, &p));
    }
    void testMalformedHeadersAreRefused() {
        auto v = verifier();
        Principal p;
        auto r = signedRequest(m_token, m_now, "XYZ");
        QCOMPARE(v.verify(r, m_now, &p)->code, QString("signature_invalid"));
        r = signedRequest(m_token, m_now, RequestSigner::newNonce());
        r.headers.append(qMakePair(QByteArray("authorization"), QByteArray("Bearer x")));
        QCOMPARE(v.verify(r, m_now, &p)->code, QString("unauthorized"));
    }
};

QTEST_GUILESS_MAIN(TestAuthVerifier)
#include "test_auth_verifier.moc"
