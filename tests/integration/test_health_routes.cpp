// GET /health (the only unauthenticated route) and the authenticated GET /v1/health.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestHealthRoutes final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testPublicHealthNeedsNoAuthAndTellsOnlyLiveness() {
        const RawHttpResponse r = rawRoundTrip(m_agent.port(), buildRequest("GET", "/health", {}));
        QCOMPARE(r.status, 200);
        const QJsonObject body = r.json();
        QStringList keys = body.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{"protocol", "status", "version"}));
        QCOMPARE(body.value("status").toString(), QStringLiteral("ok"));
        QVERIFY(!body.value("version").toString().isEmpty());
        QVERIFY(body.value("protocol").isDouble());
        const double protocol = body.value("protocol").toDouble();
        QVERIFY(protocol >= 1 && protocol == double(qint64(protocol)));
    }

    void testDetailedHealthNeedsAuth() {
        const RawHttpResponse r =
            rawRoundTrip(m_agent.port(), buildRequest("GET", "/v1/health", {}));
        QCOMPARE(r.status, 401);
        QVERIFY(!r.json().contains("sandbox"));
    }

    void testDetailedHealthShowsSandboxConclusion() {
        const ApiResponse r = m_agent.client()->call("GET", "/v1/health", {}, 30000);
        QCOMPARE(r.status, 200);
        const QJsonObject sandbox = r.json().value("sandbox").toObject();
        QCOMPARE(sandbox.value("usable").toBool(), true);
        QCOMPARE(sandbox.value("ready").toBool(), true);
        QVERIFY(!sandbox.value("bwrapPath").toString().isEmpty());
        const QString proc = sandbox.value("procMode").toString();
        QVERIFY2(proc == QLatin1String("new") || proc == QLatin1String("bind"), qPrintable(proc));
        QVERIFY(!sandbox.value("nestedUserns").toString().isEmpty());
        QVERIFY(sandbox.value("warnings").isArray());
        const QJsonObject seccomp = r.json().value("seccomp").toObject();
        QVERIFY(!seccomp.value("arch").toString().isEmpty());
        QVERIFY(!seccomp.contains("error"));
        // The agent logged the same conclusion in its one start-up summary line.
        QVERIFY2(m_agent.log().contains(QLatin1String("sandbox: ")), qPrintable(m_agent.log()));
    }

    void testDetailedHealthShowsTheLogStoreAndTheRetentionInForce() {
        const ApiResponse r = m_agent.client()->call("GET", "/v1/health", {}, 30000);
        QCOMPARE(r.status, 200);
        const QJsonObject logStore = r.json().value("logStore").toObject();
        QStringList keys = logStore.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{"bytes", "executions", "maxBytes", "retentionDays"}));
        // The defaults (docs/configuration.md): 30 days, 20 GiB.
        QCOMPARE(logStore.value("retentionDays").toInteger(), qint64(30));
        QCOMPARE(logStore.value("maxBytes").toInteger(), qint64(20) << 30);
        QVERIFY(logStore.value("bytes").toInteger() >= 0);
        QVERIFY(logStore.value("executions").toInteger() >= 0);
    }

    void testHealthRefusesOtherMethods() {
        const RawHttpResponse r =
            rawRoundTrip(m_agent.port(), buildRequest("POST", "/health", {}, "{}"));
        QCOMPARE(r.status, 405);
        QVERIFY(!r.errorCode().isEmpty());
    }

    void testUnknownRouteIs404OnlyAfterAuth() {
        const RawHttpResponse anonymous =
            rawRoundTrip(m_agent.port(), buildRequest("GET", "/v1/nothing-here", {}));
        QCOMPARE(anonymous.status, 401); // no route disclosure before authentication
        const ApiResponse r = m_agent.client()->call("GET", "/v1/nothing-here", {}, 30000);
        QCOMPARE(r.status, 404);
    }

    /// A 404/405 message quotes the path, cut after 200 bytes: a 10 000-byte path is not
    /// echoed back whole.
    void testNotFoundMessageCapsTheEchoedPath() {
        const QByteArray shortPath = "/v1/nothing-here";
        const ApiResponse control = m_agent.client()->call("GET", shortPath, {}, 30000);
        QCOMPARE(control.status, 404); // positive control: a short path is quoted whole
        QCOMPARE(control.errorMessage(), QStringLiteral("no route /v1/nothing-here"));

        const QByteArray path = "/v1/" + QByteArray(10000 - 4, 'p');
        QCOMPARE(path.size(), 10000);
        const ApiResponse r = m_agent.client()->call("GET", path, {}, 30000);
        QCOMPARE(r.status, 404);
        QCOMPARE(r.errorCode(), QStringLiteral("not_found"));
        QCOMPARE(r.errorMessage(),
                 QStringLiteral("no route ") + QString::fromLatin1(path.left(200)) + QChar(0x2026));
        QVERIFY2(r.body.size() < 1000, r.body.left(1000).constData());
    }

    void testMethodNotAllowedMessageCapsTheEchoedPath() {
        const QByteArray path =
            "/v1/workspaces/w0000000000000000/files/" + QByteArray(10000 - 39, 'f');
        QCOMPARE(path.size(), 10000);
        const ApiResponse r = m_agent.client()->call("POST", path, {}, 30000);
        QCOMPARE(r.status, 405);
        QCOMPARE(r.errorCode(), QStringLiteral("method_not_allowed"));
        QVERIFY2(r.errorMessage().endsWith(QString::fromLatin1(path.left(200)) + QChar(0x2026)),
                 qPrintable(r.errorMessage()));
        QVERIFY2(r.body.size() < 1000, r.body.left(1000).constData());
    }

private:
    AgentProcess m_agent;
};

QTEST_GUILESS_MAIN(TestHealthRoutes)
#include "test_health_routes.moc"
