// Bad input to light workspace creation (POST /v1/workspaces {"isolation":"light"}) through the
// real agent running as root (docs/light-workspaces.md): every malformed or out-of-range `count`
// is 400 invalid_count naming the range, checked once (LightWorkspaceHost::create), and nothing
// is created; a count in range still works (positive control).
#include "LightAgentFixture.h"

#include <QtTest>

using namespace lightagent;

class TestLightCreateValidation final : public QObject {
    Q_OBJECT
private:
    Agent m_agent;
    Workspace m_a, m_b;

    int lightWorkspaces() {
        return m_agent.client()
            .call("GET", "/v1/health")
            .json()
            .value("light")
            .toObject()
            .value("workspaces")
            .toInt();
    }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(47000, 64, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void testCountInRangeCreates() {
        const ApiResponse r = m_agent.createLight({{"count", 2}});
        QCOMPARE(r.status, 201);
        QCOMPARE(r.json().value("workspaces").toArray().size(), 2);
        QCOMPARE(lightWorkspaces(), 4);
    }

    void testBadCountIs400_data() {
        QTest::addColumn<QJsonValue>("count");
        QTest::newRow("zero") << QJsonValue(0);
        QTest::newRow("negative") << QJsonValue(-3);
        QTest::newRow("one past the most") << QJsonValue(4097);
        QTest::newRow("huge") << QJsonValue(1e12);
        QTest::newRow("fraction") << QJsonValue(1.5);
        QTest::newRow("string") << QJsonValue("2");
        QTest::newRow("null") << QJsonValue(QJsonValue::Null);
    }

    void testBadCountIs400() {
        QFETCH(QJsonValue, count);
        const int before = lightWorkspaces();
        const ApiResponse r = m_agent.createLight({{"count", count}});
        QCOMPARE(r.status, 400);
        const QJsonObject error = r.json().value("error").toObject();
        QCOMPARE(error.value("code").toString(), QStringLiteral("invalid_count"));
        QVERIFY2(error.value("message").toString().contains("from 1 to 4096"),
                 qPrintable(error.value("message").toString()));
        QCOMPARE(lightWorkspaces(), before);
    }
};

QTEST_GUILESS_MAIN(TestLightCreateValidation)
#include "test_light_create_validation.moc"
