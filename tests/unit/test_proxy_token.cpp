// Browser tokens of the port proxy and their origins (docs/contracts.md "Port proxy for
// browsers"): what a token opens and what it does not, the once-only URL use, and which Host
// headers name a workspace's port.
#include "agent/proxy/ProxyHeaders.h"
#include "agent/proxy/ProxyOrigin.h"
#include "agent/proxy/ProxyToken.h"

#include <QTest>

using namespace runbox;
using namespace runbox::proxy;

class TestProxyToken final : public QObject {
    Q_OBJECT
    const QString ws = QStringLiteral("0123456789abcdef");
    const QByteArray nonce = QByteArray(32, 'a');

private Q_SLOTS:
    void testATokenOpensItsWorkspaceAndPortOnly() {
        ProxyTokens tokens("agent-secret");
        const QByteArray t = tokens.mint(ws, nonce, 8080, 60, 1000);
        ProxyTokens::Claims claims;
        QVERIFY(!tokens.verify(t, ws, nonce, 8080, 1000, &claims)); // positive control
        QCOMPARE(claims.expiresAtS, qint64(1060));
        QCOMPARE(tokens.verify(t, ws, nonce, 8081, 1000)->code,
                 QStringLiteral("proxy_token_invalid"));
        QCOMPARE(tokens.verify(t, "fedcba9876543210", nonce, 8080, 1000)->code,
                 QStringLiteral("proxy_token_invalid"));
        // The workspace's token nonce changed (a new workspace): dead.
        QCOMPARE(tokens.verify(t, ws, QByteArray(32, 'b'), 8080, 1000)->code,
                 QStringLiteral("proxy_token_invalid"));
        QCOMPARE(tokens.verify(t, ws, nonce, 8080, 1060)->code,
                 QStringLiteral("proxy_token_expired"));
        // Another agent's key.
        QCOMPARE(ProxyTokens("other").verify(t, ws, nonce, 8080, 1000)->code,
                 QStringLiteral("proxy_token_invalid"));
        // Edited claims: a longer expiry, another port in the payload.
        QList<QByteArray> parts = t.split('.');
        parts[3] = "9999999999";
        QVERIFY(tokens.verify(parts.join('.'), ws, nonce, 8080, 1000));
        for (const QByteArray& bad :
             {QByteArray(), QByteArray("rbp1"), t + ".x", t.left(t.size() - 1),
              QByteArray("rbp2") + t.mid(4), QByteArray(600, 'a')})
            QCOMPARE(tokens.verify(bad, ws, nonce, 8080, 1000)->code,
                     QStringLiteral("proxy_token_invalid"));
    }

    void testAUrlTokenIsSpentOnce() {
        ProxyTokens tokens("agent-secret");
        ProxyTokens::Claims claims;
        QVERIFY(!tokens.verify(tokens.mint(ws, nonce, 80, 60, 1000), ws, nonce, 80, 1000, &claims));
        QVERIFY(tokens.consumeInUrl(claims, 1000));
        QVERIFY(!tokens.consumeInUrl(claims, 1001));
    }

    void testOriginsFromHostHeaders() {
        const auto o =
            ProxyOrigin::fromHost("8080-" + ws.toLatin1() + ".localhost:4311", "localhost");
        QVERIFY(o);
        QCOMPARE(o->port, 8080);
        QCOMPARE(o->workspaceId, ws);
        QVERIFY(
            ProxyOrigin::fromHost("8080-W" + ws.toUpper().toLatin1() + ".LocalHost.", "localhost"));
        QCOMPARE(o->hostName("localhost"), "8080-" + ws + ".localhost");
        for (const char* host :
             {"127.0.0.1:4311", "localhost",
              "8080-"
              "0123456789abcdef.example.com",
              "0-0123456789abcdef.localhost", "65536-0123456789abcdef.localhost",
              "08080-0123456789abcdef.localhost", "8080-0123456789abcde.localhost",
              "8080-0123456789abcdefa.localhost", "x.8080-0123456789abcdef.localhost",
              "8080_0123456789abcdef.localhost", "8080-0123456789abcdef.notlocalhost"})
            QVERIFY2(!ProxyOrigin::fromHost(host, "localhost"), host);
        QVERIFY(
            ProxyOrigin::fromHost("80-0123456789abcdef.runbox.example.org", "runbox.example.org"));
    }

    void testTheTokenCookieNeverReachesTheWorkspace() {
        QCOMPARE(withoutProxyTokenCookie("a=1; runbox_proxy=rbp1.x; b=2"), QByteArray("a=1; b=2"));
        QCOMPARE(withoutProxyTokenCookie("runbox_proxy=x;runbox_proxy = y"), QByteArray());
        QCOMPARE(withoutProxyTokenCookie("runbox_proxy_other=1"),
                 QByteArray("runbox_proxy_other=1"));
    }
};

QTEST_GUILESS_MAIN(TestProxyToken)
#include "test_proxy_token.moc"
