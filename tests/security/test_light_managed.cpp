// Managed executions in light workspaces through the real agent, run as root
// (docs/light-workspaces.md): the same record, log, cancel, timeout and recovery as strong
// workspaces, and scoped to the workspace's token. Every refusal is preceded by a positive control.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include "support/ManagedApi.h"

#include <QFileInfo>
#include <QtTest>

using namespace lightagent;
namespace ts = runbox::testsupport;

namespace {

QByteArray seqBytes(int n) {
    QByteArray out;
    for (int i = 1; i <= n; ++i)
        out += QByteArray::number(i) + '\n';
    return out;
}

QJsonObject shBody(const QString& script, QJsonObject extra = {}) {
    extra.insert(QStringLiteral("argv"), QJsonArray{"/bin/sh", "-c", script});
    return extra;
}

} // namespace

class TestLightManaged final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

    QString submit(ApiClient& client, const Workspace& ws, const QJsonObject& body) {
        const ApiResponse r = ts::submitExecution(client, ws.id, body);
        if (r.status != 202) {
            qWarning("submit: %d %s", r.status, r.body.constData());
            return {};
        }
        return r.json().value("executionId").toString();
    }

    QString state(ApiClient& client, const QString& executionId) {
        return ts::executionRecord(client, executionId).value("state").toString();
    }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(44000, 200, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void testManagedExecutionLogIsByteExactAndFollowable() {
        ApiClient a(m_agent.url(), m_a.token);
        const QByteArray stdinData("line one\nno newline at the end");
        const QString id =
            submit(a, m_a,
                   shBody(QStringLiteral("printf xyz; seq 1 20000; cat; printf 'err\\377\\n' >&2; "
                                         "echo made > created.txt; id -u"),
                          {{"stdin", QString::fromUtf8(stdinData)}}));
        QVERIFY(!id.isEmpty());
        // Followed from offset 0 while it runs, to its exit event.
        const ts::LogCapture log = ts::readLog(a, id, 0, true);
        QCOMPARE(log.status, 200);
        QVERIFY(log.contiguous);
        QVERIFY(log.endsWithExit());
        const QByteArray expected =
            "xyz" + seqBytes(20000) + stdinData + QByteArray::number(m_a.uid) + '\n';
        QCOMPARE(log.stdoutBytes.size(), expected.size());
        QVERIFY(log.stdoutBytes == expected);
        QCOMPARE(log.stderrBytes, QByteArray("err\xff\n"));
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(log.exitEvent.value("exitCode").toInt(), 0);
        QVERIFY(log.exitEvent.value("createdFiles").toArray().contains(QJsonValue("created.txt")));

        const QJsonObject record = ts::executionRecord(a, id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(record.value("workspace").toString(), m_a.id);
        // Read again from an offset inside the log: the same bytes.
        const ts::LogCapture tail = ts::readLog(a, id, 3, false);
        QCOMPARE(tail.status, 200);
        QVERIFY(tail.bytes.startsWith(seqBytes(3)));
    }

    void testManagedExecutionIsCancelledWithItsWholeTree() {
        ApiClient a(m_agent.url(), m_a.token);
        const QString id = submit(a, m_a,
                                  shBody(QStringLiteral("setsid sleep 1000 </dev/null >/dev/null "
                                                        "2>&1 & echo started; sleep 1000")));
        QVERIFY(!id.isEmpty());
        // Positive control: it runs, under A's uid, with its setsid'd child.
        QVERIFY(waitUntil([&] { return state(a, id) == QLatin1String("running"); }, 30000));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(m_a.uid, "sleep 1000").size() >= 2; },
                          15000));
        const ApiResponse cancel = a.call("POST", "/v1/executions/" + id.toUtf8() + "/cancel");
        QCOMPARE(cancel.status, 200);
        const QJsonObject final = ts::waitUntilFinal(a, id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(m_a.uid, "sleep 1000").isEmpty(); },
                          10000));
        const ts::LogCapture log = ts::readLog(a, id, 0, true);
        QCOMPARE(log.stdoutBytes, QByteArray("started\n"));
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("cancelled"));
    }

    void testManagedExecutionTimesOut() {
        ApiClient a(m_agent.url(), m_a.token);
        const QString id =
            submit(a, m_a,
                   shBody(QStringLiteral("setsid sleep 1000 </dev/null >/dev/null 2>&1 & "
                                         "echo before; sleep 1000"),
                          {{"executionTimeoutMs", 1500}}));
        QVERIFY(!id.isEmpty());
        const QJsonObject final = ts::waitUntilFinal(a, id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("timed_out"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(m_a.uid, "sleep 1000").isEmpty(); },
                          10000));
        const ts::LogCapture log = ts::readLog(a, id, 0, false);
        QCOMPARE(log.stdoutBytes, QByteArray("before\n"));
        // A failing command is failed with its code, not an error of the agent.
        const QString failing = submit(a, m_a, shBody(QStringLiteral("exit 3")));
        const QJsonObject failed = ts::waitUntilFinal(a, failing);
        QCOMPARE(failed.value("state").toString(), QStringLiteral("failed"));
        QCOMPARE(failed.value("exitCode").toInt(), 3);
    }

    void testWorkspaceTokenSeesOnlyItsOwnExecutions() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        const QString id = submit(a, m_a, shBody(QStringLiteral("echo a-private")));
        QVERIFY(!id.isEmpty());
        ts::waitUntilFinal(a, id);
        const QByteArray path = "/v1/executions/" + id.toUtf8();
        // Positive controls: A and the agent see it.
        QCOMPARE(a.call("GET", path).status, 200);
        QCOMPARE(m_agent.client().call("GET", path).status, 200);
        QCOMPARE(ts::readLog(a, id, 0, false).stdoutBytes, QByteArray("a-private\n"));
        const QJsonArray listedForA =
            a.call("GET", "/v1/executions").json().value("executions").toArray();
        bool inA = false;
        for (const QJsonValue& v : listedForA)
            inA = inA || v.toObject().value("executionId").toString() == id;
        QVERIFY(inA);

        // B's token: not found, not listed, no log, no cancel, and no submit into A.
        QCOMPARE(b.call("GET", path).status, 404);
        const ts::LogCapture bLog = ts::readLog(b, id, 0, false);
        QCOMPARE(bLog.status, 404);
        QVERIFY(!bLog.bytes.contains("a-private"));
        QCOMPARE(b.call("POST", path + "/cancel").status, 404);
        const QJsonArray listedForB = b.call("GET", "/v1/executions?workspace=" + m_a.id.toUtf8())
                                          .json()
                                          .value("executions")
                                          .toArray();
        QCOMPARE(listedForB.size(), 0);
        QCOMPARE(ts::submitExecution(b, m_a.id, shBody(QStringLiteral("true"))).status, 404);
    }

    void testRunningManagedExecutionIsNeverEvictedAsIdle() {
        Workspace c = m_agent.createOne({{"idleTimeoutS", 2}});
        QVERIFY(!c.id.isEmpty());
        ApiClient client(m_agent.url(), c.token);
        const QString id = submit(client, c, shBody(QStringLiteral("sleep 4; echo survived")));
        QVERIFY(!id.isEmpty());
        const QJsonObject final = ts::waitUntilFinal(m_agent.client(), id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(ts::readLog(m_agent.client(), id, 0, false).stdoutBytes, QByteArray("survived\n"));
        // Once nothing runs, the idle workspace goes (positive control of the eviction).
        QVERIFY(waitUntil(
            [&] {
                return m_agent.client()
                           .call("GET", "/v1/workspaces?isolation=light")
                           .body.indexOf(c.id.toUtf8()) < 0;
            },
            20000));
    }

    void testDeletingTheWorkspaceCancelsItsManagedExecution() {
        Workspace c = m_agent.createOne();
        QVERIFY(!c.id.isEmpty());
        const QString id = submit(m_agent.client(), c, shBody(QStringLiteral("sleep 1000")));
        QVERIFY(waitUntil([&] { return state(m_agent.client(), id) == QLatin1String("running"); },
                          30000));
        QCOMPARE(m_agent.client().call("DELETE", "/v1/workspaces/" + c.id.toUtf8()).status, 200);
        const QJsonObject final = ts::waitUntilFinal(m_agent.client(), id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid).isEmpty(); }, 10000));
    }

    // Last: it restarts the agent, which removes every light workspace of the previous run.
    void testManagedExecutionOfACrashedAgentIsLostAndNothingOfItSurvives() {
        Workspace c = m_agent.createOne();
        QVERIFY(!c.id.isEmpty());
        const QString id = submit(m_agent.client(), c,
                                  shBody(QStringLiteral("setsid sleep 1000 </dev/null >/dev/null "
                                                        "2>&1 & echo up; sleep 1000")));
        QVERIFY(!id.isEmpty());
        // Positive control: it runs, with a setsid'd child, under C's uid.
        QVERIFY(waitUntil([&] { return state(m_agent.client(), id) == QLatin1String("running"); },
                          30000));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid, "sleep 1000").size() >= 2; },
                          15000));
        // The agent reads the pipe asynchronously: crash it only once "up" is in the log (a
        // slow, e.g. sanitized, agent may not have appended it yet).
        QVERIFY(waitUntil(
            [&] { return ts::readLog(m_agent.client(), id, 0, false).stdoutBytes == "up\n"; },
            15000));
        m_agent.crash();
        // The workspace's supervisors end with the agent (their control socket hangs up): the
        // PID namespace and everything in it goes.
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid).isEmpty(); }, 15000));
        QString error;
        QVERIFY2(m_agent.restart(&error), qPrintable(error));
        const QJsonObject record = ts::executionRecord(m_agent.client(), id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("lost"));
        const ts::LogCapture log = ts::readLog(m_agent.client(), id, 0, true);
        QCOMPARE(log.stdoutBytes, QByteArray("up\n"));
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("lost"));
        const ApiResponse listed = m_agent.client().call("GET", "/v1/workspaces");
        QCOMPARE(listed.status, 200);
        QVERIFY(!listed.body.contains(c.id.toUtf8()));
        QVERIFY(!QFileInfo::exists(c.home));
    }
};

QTEST_GUILESS_MAIN(TestLightManaged)
#include "test_light_managed.moc"
