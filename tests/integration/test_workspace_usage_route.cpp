// What GET /v1/workspaces says of each workspace's executions, and GET /v1/workspaces/{id}/usage
// (docs/contracts.md "Workspaces and executions"), against the real agent: a fresh workspace
// has none recorded and uses next to nothing; after a managed execution that writes 3 MiB and a
// sparse 1 GiB file, the listing counts it with its time and the usage counts the 3 MiB the
// tree occupies (the sparse file by its blocks, its 1 GiB only as apparent size), as the quota
// does; refusals: another workspace's token, an unknown id, an unknown query parameter.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/EnvironmentApi.h"
#include "support/ManagedApi.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpSocket>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestWorkspaceUsageRoute final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;

    QJsonObject listed(const QString& id) {
        for (const QJsonValue& v :
             m_agent.client()->call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (v["id"].toString() == id)
                return v.toObject();
        return {};
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void testTheListingCountsRecordedExecutionsAndUsageCountsBlocks() {
        QByteArray token;
        const QString id = m_agent.createWorkspace(&token);
        QVERIFY(!id.isEmpty());
        QJsonObject item = listed(id);
        QCOMPARE(item.value("recordedExecutions").toInt(-1), 0);
        QVERIFY(item.contains("lastExecutionAt") && item.value("lastExecutionAt").isNull());
        ApiClient asWorkspace(m_agent.baseUrl(), token);
        const QByteArray usagePath = "/v1/workspaces/" + id.toUtf8() + "/usage";
        const ApiResponse before = asWorkspace.call("GET", usagePath);
        QVERIFY2(before.status == 200, before.body.constData());
        QVERIFY(before.json().value("allocatedBytes").toDouble() < 1024 * 1024);
        QCOMPARE(before.json().value("complete").toBool(), true);

        const qint64 startedMs = QDateTime::currentMSecsSinceEpoch();
        const ApiResponse submitted = submitExecution(
            *m_agent.client(), id,
            {{"kind", "shell"},
             {"code", "head -c 3145728 /dev/urandom > data.bin\ntruncate -s 1G sparse.bin\n"}});
        QVERIFY2(submitted.status == 202 || submitted.status == 201, submitted.body.constData());
        const QJsonObject record =
            waitUntilFinal(*m_agent.client(), submitted.json().value("executionId").toString());
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));

        item = listed(id);
        QCOMPARE(item.value("recordedExecutions").toInt(), 1);
        const QDateTime last =
            QDateTime::fromString(item.value("lastExecutionAt").toString(), Qt::ISODateWithMs);
        QVERIFY2(last.isValid() && last.toMSecsSinceEpoch() >= startedMs - 1000,
                 qPrintable(item.value("lastExecutionAt").toString()));

        const QJsonObject usage = asWorkspace.call("GET", usagePath).json();
        const double allocated = usage.value("allocatedBytes").toDouble();
        QVERIFY2(allocated >= 3 * 1024 * 1024 && allocated < 8 * 1024 * 1024,
                 qPrintable(QString::number(allocated)));
        QVERIFY(usage.value("apparentBytes").toDouble() >= 1024.0 * 1024 * 1024);
        QVERIFY2(usage.value("entries").toInt() >= 2, // data.bin, sparse.bin
                 QJsonDocument(usage).toJson().constData());
        QCOMPARE(usage.value("complete").toBool(), true);
        QVERIFY(usage.contains("maxWorkspaceBytes"));
    }

    /// Requests while a walk of the same workspace runs get its figure; one whose client went
    /// away meanwhile is skipped, never a crash.
    void testConcurrentRequestsShareTheWalk() {
        const QString id = m_agent.createWorkspace();
        QVERIFY(!id.isEmpty());
        QCOMPARE(m_agent.shell(id, "mkdir d && cd d && seq 30000 | xargs touch").status(),
                 QStringLiteral("completed"));
        const QByteArray path = "/v1/workspaces/" + id.toUtf8() + "/usage";
        // A client that asks and leaves at once.
        QTcpSocket leaver;
        leaver.connectToHost(QHostAddress::LocalHost, m_agent.baseUrl().port());
        QVERIFY(leaver.waitForConnected(5000));
        leaver.write(buildRequest(
            "GET", path,
            signedHeaders(m_agent.token(), "GET", path, {}, QDateTime::currentMSecsSinceEpoch())));
        QVERIFY(leaver.waitForBytesWritten(5000));
        leaver.abort();
        QList<ApiResponse> answers;
        for (int i = 0; i < 8; ++i)
            m_agent.client()->request("GET", path, {},
                                      [&answers](const ApiResponse& r) { answers.append(r); });
        QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 8, 60000);
        for (const ApiResponse& r : answers) {
            QVERIFY2(r.status == 200, r.body.constData());
            QVERIFY(r.json().value("entries").toInt() >= 30000);
        }
        // And the agent still answers afterwards.
        QCOMPARE(m_agent.client()->call("GET", path).status, 200);
    }

    void testUsageRefusals() {
        QByteArray tokenA;
        const QString a = m_agent.createWorkspace(&tokenA);
        const QString b = m_agent.createWorkspace();
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        ApiClient asA(m_agent.baseUrl(), tokenA);
        QCOMPARE(asA.call("GET", "/v1/workspaces/" + a.toUtf8() + "/usage").status, 200);
        const ApiResponse foreign = asA.call("GET", "/v1/workspaces/" + b.toUtf8() + "/usage");
        QCOMPARE(foreign.status, 404);
        QCOMPARE(errorOf(foreign).value("code").toString(), QStringLiteral("workspace_not_found"));
        QCOMPARE(m_agent.client()->call("GET", "/v1/workspaces/wffffffffffffffff/usage").status,
                 404);
        QCOMPARE(
            m_agent.client()->call("GET", "/v1/workspaces/" + a.toUtf8() + "/usage?deep=1").status,
            400);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceUsageRoute)
#include "test_workspace_usage_route.moc"
