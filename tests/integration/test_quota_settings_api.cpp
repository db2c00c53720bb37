// GET/PUT /v1/settings/quotas against the real agent (agent/store/QuotaSettings.h): validation, the
// audit trail, first-start seeding from RUNBOX_* variables, /v1/health, and new values applying
// only to executions created afterwards (their permission epoch).
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestQuotaSettingsApi final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;
    ApiClient& client() { return *m_agent.client(); }

    QJsonObject quotasBody() { return client().call("GET", "/v1/settings/quotas").json(); }
    ApiResponse putQuotas(const QByteArray& rawBody) {
        return client().callRaw("PUT", "/v1/settings/quotas", rawBody);
    }

private Q_SLOTS:
    void initTestCase() {
        AgentOptions options;
        options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_OUTPUT_BYTES"),
                                QStringLiteral("123456789"));
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
    }

    void testFirstStartSeedsFromTheEnvironmentAndHealthShowsValuesInForce() {
        const QJsonObject quotas = quotasBody().value("quotas").toObject();
        QCOMPARE(quotas.value("maxOutputBytes").toInteger(), qint64(123456789));
        QCOMPARE(quotas.value("maxWorkspaceBytes").toInteger(), qint64(10) << 30);
        const QJsonObject health = client().call("GET", "/v1/health").json();
        QCOMPARE(health.value("quotas").toObject(), quotas);
    }

    void testZeroInTheEnvironmentSeedsUnlimited() {
        AgentProcess fresh;
        AgentOptions options;
        options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_OUTPUT_BYTES"), QStringLiteral("0"));
        QVERIFY2(fresh.start(options), qPrintable(fresh.errorString()));
        const QJsonObject health = fresh.client()->call("GET", "/v1/health").json();
        QCOMPARE(health.value("quotas").toObject().value("maxOutputBytes").toInteger(-1),
                 qint64(0));
        QCOMPARE(health.value("limits").toObject().value("maxOutputBytes").toInteger(-1),
                 qint64(0));
    }

    void testInvalidValuesAreRefusedAndChangeNothing_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("negative") << QByteArray(R"({"maxOutputBytes":-1})");
        QTest::newRow("fractional") << QByteArray(R"({"maxOutputBytes":1.5})");
        QTest::newRow("string") << QByteArray(R"({"maxOutputBytes":"1GiB"})");
        QTest::newRow("numeric string") << QByteArray(R"({"maxWorkspaceBytes":"1024"})");
        QTest::newRow("boolean") << QByteArray(R"({"maxConcurrentExecutions":true})");
        QTest::newRow("null") << QByteArray(R"({"maxOutputBytes":null})");
        QTest::newRow("absurd bytes") << QByteArray(R"({"maxWorkspaceBytes":1152921504606846976})");
        QTest::newRow("huge double") << QByteArray(R"({"maxWorkspaceBytes":1e300})");
        QTest::newRow("absurd count") << QByteArray(R"({"maxConcurrentExecutions":100000000})");
        QTest::newRow("absurd timeout") << QByteArray(R"({"maxExecutionTimeoutMs":1e15})");
        QTest::newRow("default above max")
            << QByteArray(R"({"defaultExecutionTimeoutMs":7200000,"maxExecutionTimeoutMs":1000})");
        QTest::newRow("unknown field") << QByteArray(R"({"maxFooBytes":1})");
        QTest::newRow("one bad among good")
            << QByteArray(R"({"maxOutputBytes":1048576,"maxWorkspaceBytes":-5})");
        QTest::newRow("array body") << QByteArray("[1,2]");
        QTest::newRow("not json") << QByteArray("maxOutputBytes=5");
    }

    void testInvalidValuesAreRefusedAndChangeNothing() {
        QFETCH(QByteArray, body);
        const QJsonObject before = quotasBody();
        QVERIFY(before.contains("quotas"));
        const ApiResponse r = putQuotas(body);
        QCOMPARE(r.status, 400);
        QVERIFY(!r.errorCode().isEmpty());
        QVERIFY(!r.errorMessage().isEmpty());
        QCOMPARE(quotasBody(), before); // values and lastChange untouched
    }

    void testPutChangesOnlyTheGivenFieldsAndRecordsWhoChangedWhat() {
        const QJsonObject before = quotasBody().value("quotas").toObject();
        const qint64 oldValue = before.value("uploadMaxFileBytes").toInteger();
        const qint64 newValue = oldValue / 2 + 1;
        const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
        const ApiResponse r = client().call("PUT", "/v1/settings/quotas",
                                            QJsonObject{{"uploadMaxFileBytes", newValue}});
        QCOMPARE(r.status, 200);
        QJsonObject expected = before;
        expected.insert("uploadMaxFileBytes", newValue);
        QCOMPARE(r.json().value("quotas").toObject(), expected);
        QCOMPARE(quotasBody().value("quotas").toObject(), expected);

        const QJsonObject last = quotasBody().value("lastChange").toObject();
        QCOMPARE(last.value("key").toString(), QStringLiteral("quota.uploadMaxFileBytes"));
        QCOMPARE(last.value("before").toInteger(), oldValue);
        QCOMPARE(last.value("after").toInteger(), newValue);
        QVERIFY(!last.value("tokenId").toString().isEmpty());
        const QDateTime at = QDateTime::fromString(last.value("at").toString(), Qt::ISODateWithMs);
        QVERIFY(at.isValid());
        QVERIFY(at.toMSecsSinceEpoch() >= t0 - 1000);
    }

    void testWorkspaceTokenCannotReadOrChangeQuotas() {
        const ApiResponse created =
            client().call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
        QCOMPARE(created.status, 201);
        const QByteArray token = created.json()
                                     .value("workspaces")
                                     .toArray()
                                     .first()
                                     .toObject()
                                     .value("token")
                                     .toString()
                                     .toLatin1();
        ApiClient scoped(m_agent.baseUrl(), token);
        QCOMPARE(scoped.call("GET", "/v1/settings/quotas").status, 403);
        QCOMPARE(
            scoped.call("PUT", "/v1/settings/quotas", QJsonObject{{"maxOutputBytes", 1}}).status,
            403);
        QVERIFY(quotasBody().value("quotas").toObject().value("maxOutputBytes").toInteger() != 1);
    }

    void testNewValuesApplyOnlyToExecutionsCreatedAfterwards() {
        const auto put = [&](const char* name, qint64 v) {
            return client().call("PUT", "/v1/settings/quotas", QJsonObject{{name, v}}).status;
        };
        QCOMPARE(put("maxWorkspaceBytes", qint64(10) << 30), 200);
        QCOMPARE(put("maxConcurrentExecutions", 1), 200);
        const QString ws0 = m_agent.createWorkspace(), ws1 = m_agent.createWorkspace(),
                      ws2 = m_agent.createWorkspace();
        const auto idOf = [](const ApiResponse& r) {
            return r.json().value("executionId").toString();
        };
        const QString blocker =
            idOf(submitExecution(client(), ws0, {{"argv", QJsonArray{"/usr/bin/sleep", "120"}}}));
        QVERIFY(waitForRecord(client(), blocker, [](const QJsonObject& r) {
                    return r.value("state").toString() == QLatin1String("running");
                }).value("state") == QLatin1String("running"));
        // 4 MiB written, then a pause long enough for the size watcher to look at it.
        const QJsonObject writer{
            {"argv", QJsonArray{"/usr/bin/bash", "-c",
                                "head -c 4194304 /dev/zero > f && sync f && sleep 1.5"}}};
        const QString before = idOf(submitExecution(client(), ws1, writer));
        QCOMPARE(put("maxWorkspaceBytes", 1 << 20), 200);
        const QString after = idOf(submitExecution(client(), ws2, writer));
        QVERIFY(!before.isEmpty() && !after.isEmpty());

        const auto epochLimit = [&](const QString& id) {
            return executionRecord(client(), id)
                .value("permissionEpoch")
                .toObject()
                .value("quotas")
                .toObject()
                .value("maxWorkspaceBytes")
                .toInteger();
        };
        QCOMPARE(epochLimit(before), qint64(10) << 30);
        QCOMPARE(epochLimit(after), qint64(1) << 20);

        client().call("POST", "/v1/executions/" + blocker.toUtf8() + "/cancel");
        // Both start after the change; each runs under the settings it was created with.
        const QJsonObject b = waitUntilFinal(client(), before);
        const QJsonObject a = waitUntilFinal(client(), after);
        QCOMPARE(b.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(a.value("state").toString(), QStringLiteral("quota_exceeded"));
        QCOMPARE(put("maxWorkspaceBytes", qint64(10) << 30), 200);
        QCOMPARE(put("maxConcurrentExecutions", 16), 200);
    }

    /// This host delegates no cgroup with the cpu controller: a CPU limit cannot hold, so an
    /// execution under one is refused (fail closed), whether the setting or the request sets it.
    void testCpuLimitIsRefusedWhereNothingEnforcesIt() {
        const QJsonObject cpu = client().call("GET", "/v1/health").json().value("cpu").toObject();
        if (cpu.value("mode").toString() == QLatin1String("cgroup2"))
            QSKIP("this host delegates the cpu controller: the refusal does not apply");
        QCOMPARE(cpu.value("mode").toString(), QStringLiteral("none"));
        QVERIFY(!cpu.value("reason").toString().isEmpty());
        const QString ws = m_agent.createWorkspace();
        const QJsonObject run{{"argv", QJsonArray{"/usr/bin/true"}}};
        QCOMPARE(submitExecution(client(), ws, run).status, 202); // positive control: no limit
        QJsonObject limited = run;
        limited.insert("maxCpuMillicores", 500);
        const ApiResponse byRequest = submitExecution(client(), ws, limited);
        QCOMPARE(byRequest.status, 503);
        QCOMPARE(byRequest.errorCode(), QStringLiteral("limit_unenforceable"));
        QCOMPARE(client()
                     .call("PUT", "/v1/settings/quotas", QJsonObject{{"maxCpuMillicores", 1500}})
                     .status,
                 200);
        const ApiResponse bySetting = submitExecution(client(), ws, run);
        QCOMPARE(bySetting.status, 503);
        QVERIFY(bySetting.errorMessage().contains("maxCpuMillicores"));
        QCOMPARE(client()
                     .call("PUT", "/v1/settings/quotas", QJsonObject{{"maxCpuMillicores", 0}})
                     .status,
                 200);
        QCOMPARE(submitExecution(client(), ws, run).status, 202);
    }

    void testStoredValuesWinOverTheEnvironmentAfterARestart() {
        QCOMPARE(client()
                     .call("PUT", "/v1/settings/quotas", QJsonObject{{"maxOutputBytes", 4096}})
                     .status,
                 200);
        QVERIFY(m_agent.stop());
        AgentOptions options;
        options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_OUTPUT_BYTES"),
                                QStringLiteral("123456789"));
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        QCOMPARE(quotasBody().value("quotas").toObject().value("maxOutputBytes").toInteger(),
                 qint64(4096));
    }
};

QTEST_GUILESS_MAIN(TestQuotaSettingsApi)
#include "test_quota_settings_api.moc"
