// Science environment revisions that are no longer current lose their prefix once unused
// (docs/environments.md "Lifecycle"), never while a queued or running execution names them:
// the real agent with RUNBOX_ENV_REVISION_GRACE_S=0 (sweeps every 0.5 s), no network.
#include "support/AgentProcess.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestScienceEnvironmentSweep final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_wheelhouse;
    AgentProcess m_agent;
    QString m_envId;
    ApiClient& client() { return *m_agent.client(); }

    QString prefixOf(const QString& revision) {
        return m_agent.stateDir() + "/environments/" + m_envId + '/' + revision;
    }
    /// Installs @p package and waits for the build; returns the new revision id.
    QString install(const QString& package) {
        const ApiResponse r =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{package}}});
        if (r.status != 202)
            return {};
        const QJsonObject record =
            waitUntilFinal(client(), r.json().value("executionId").toString(), 180000);
        return record.value("state") == QLatin1String("completed")
                   ? r.json().value("revisionId").toString()
                   : QString();
    }
    QString current() {
        return client()
            .call("GET", "/v1/environments/" + m_envId.toUtf8())
            .json()
            .value("currentRevisionId")
            .toString();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(openToSandboxes(m_wheelhouse.path()));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "1.0", "X = 'a1'"));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkgb", "1.0", "X = 'b1'"));
        AgentOptions options;
        options.extraEnv.insert("RUNBOX_ENV_WHEELHOUSE", m_wheelhouse.path());
        options.extraEnv.insert("RUNBOX_ENV_REVISION_GRACE_S", "0");
        options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1880100000");
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "sweep"}, {"language", "python"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        QCOMPARE(waitUntilFinal(client(), created.json().value("executionId").toString(), 180000)
                     .value("state")
                     .toString(),
                 QStringLiteral("completed"));
    }

    void testAnUnusedOldRevisionLosesItsPrefixTheCurrentOneKeepsIt() {
        const QString first = current();
        QVERIFY(QFileInfo(prefixOf(first)).isDir()); // positive control
        const QString second = install("pkga");
        QVERIFY(!second.isEmpty());
        QCOMPARE(current(), second);
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(prefixOf(first)), 10000);
        QTest::qWait(1500); // several sweeps: the current revision stays
        QVERIFY(QFileInfo(prefixOf(second)).isDir());
        bool removedAt = false;
        for (const QJsonValue& r :
             client()
                 .call("GET", "/v1/environments/" + m_envId.toUtf8() + "/revisions")
                 .json()
                 .value("revisions")
                 .toArray())
            if (r["id"].toString() == first)
                removedAt = r["prefixRemovedAt"].isString();
        QVERIFY(removedAt);
        // Its metadata and snapshot stay; naming it now is refused before anything runs.
        QCOMPARE(client()
                     .call("GET", "/v1/environment-revisions/" + first.toUtf8() + "/snapshot")
                     .status,
                 200);
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome refused = m_agent.shell(ws, "true", {{"environmentRevisionId", first}});
        QCOMPARE(refused.httpStatus, 409);
        QVERIFY2(refused.errorBody.contains("environment_revision_removed"),
                 refused.errorBody.constData());
    }

    void testARevisionNamedByRunningAndQueuedExecutionsIsKept() {
        const QString pinned = current();
        const QString ws = m_agent.createWorkspace();
        const QString gate = m_agent.workspaceDir(ws) + "/go";
        const ApiResponse running =
            submitExecution(client(), ws,
                            {{"kind", "shell"},
                             {"environmentId", m_envId},
                             {"code", "while [ ! -e /workspace/go ]; do sleep 0.1; done\n"
                                      "python3 -c 'import pkga; print(pkga.X)'\n"}});
        QCOMPARE(running.status, 202);
        const QString runningId = running.json().value("executionId").toString();
        QCOMPARE(waitForRecord(client(), runningId,
                               [](const QJsonObject& r) {
                                   return r.value("state").toString() != QLatin1String("queued");
                               })
                     .value("state")
                     .toString(),
                 QStringLiteral("running"));
        // In another workspace: a blocker without environment, and queued behind it an
        // execution naming the same revision explicitly (only its record refers to it).
        const QString ws2 = m_agent.createWorkspace();
        const ApiResponse blocker = submitExecution(
            client(), ws2,
            {{"kind", "shell"}, {"code", "while [ ! -e /workspace/go ]; do sleep 0.1; done"}});
        QCOMPARE(blocker.status, 202);
        const ApiResponse queued =
            submitExecution(client(), ws2,
                            {{"kind", "shell"},
                             {"environmentRevisionId", pinned},
                             {"code", "python3 -c 'import pkga; print(pkga.X)'"}});
        QCOMPARE(queued.status, 202);
        const QString queuedId = queued.json().value("executionId").toString();
        const QString next = install("pkgb");
        QVERIFY(!next.isEmpty());
        QCOMPARE(current(), next);
        QTest::qWait(2000); // four sweeps
        QVERIFY(QFileInfo(prefixOf(pinned)).isDir());
        QCOMPARE(executionRecord(client(), queuedId).value("state").toString(),
                 QStringLiteral("queued"));
        // The held one ends first: the queued record alone keeps the revision.
        QFile go(gate);
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QCOMPARE(waitUntilFinal(client(), runningId).value("state").toString(),
                 QStringLiteral("completed"));
        QTest::qWait(2000); // four sweeps
        QVERIFY(QFileInfo(prefixOf(pinned)).isDir());
        // Nor can the environment be deleted under the queued execution.
        const ApiResponse deleted = client().call("DELETE", "/v1/environments/" + m_envId.toUtf8());
        QCOMPARE(deleted.status, 409);
        QCOMPARE(deleted.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("environment_in_use"));
        QFile go2(m_agent.workspaceDir(ws2) + "/go");
        QVERIFY(go2.open(QIODevice::WriteOnly));
        go2.close();
        QCOMPARE(waitUntilFinal(client(), queuedId).value("state").toString(),
                 QStringLiteral("completed"));
        QCOMPARE(readLog(client(), runningId, 0, false).stdoutBytes, QByteArray("a1\n"));
        QCOMPARE(readLog(client(), queuedId, 0, false).stdoutBytes, QByteArray("a1\n"));
        // Unused now: removed at a next sweep.
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(prefixOf(pinned)), 10000);
        QVERIFY(QFileInfo(prefixOf(next)).isDir());
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentSweep)
#include "test_science_environment_sweep.moc"
