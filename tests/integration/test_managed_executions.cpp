// Managed executions against the real agent (docs/managed.md): they outlive clients, their logs
// resume exactly from any offset, follow ends with the exit event, cancel (queued: never starts;
// running: final only once the process is gone), executionId kept forever, one writer per
// workspace with visible queue positions.
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QFile>
#include <QJsonArray>
#include <QTest>
#include <QUuid>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QString uniqueMarker() {
    return QStringLiteral("rbx-marker-") + QUuid::createUuid().toString(QUuid::Id128);
}

/// argv running @p script under bash with @p marker as $0, so the sandboxed process can be found
/// in /proc by its command line.
QJsonObject bashWithMarker(const QString& script, const QString& marker) {
    return {{"argv", QJsonArray{"/usr/bin/bash", "-c", script, marker}}};
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestManagedExecutions final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;
    ApiClient& client() { return *m_agent.client(); }

    QString submitOk(const QString& ws, const QJsonObject& body) {
        const ApiResponse r = submitExecution(client(), ws, body);
        if (r.status != 202)
            qWarning("submit: %d %s", r.status, r.body.constData());
        return r.status == 202 ? r.json().value(QLatin1String("executionId")).toString()
                               : QString();
    }
    bool setQuota(const char* name, qint64 value) {
        return client().call("PUT", "/v1/settings/quotas", QJsonObject{{name, value}}).status ==
               200;
    }
    static bool isRunning(const QJsonObject& r) {
        return r.value(QLatin1String("state")).toString() == QLatin1String("running");
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void testManagedExecutionSurvivesItsClientDisconnecting() {
        const QString ws = m_agent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        QString id;
        {
            // A client of its own that submits, starts following, disconnects mid-stream and
            // goes away entirely (its connections close).
            ApiClient transient(m_agent.baseUrl(), m_agent.token());
            const ApiResponse r = submitExecution(
                transient, ws,
                {{"argv", QJsonArray{"/usr/bin/bash", "-c",
                                     "for i in $(seq 1 30); do echo tick $i; sleep 0.03; done"}}});
            QCOMPARE(r.status, 202);
            id = r.json().value(QLatin1String("executionId")).toString();
            const LogCapture partial =
                readLog(transient, id, 0, true, 30000, [](const QJsonObject&) { return false; });
            QVERIFY(partial.aborted);
            QVERIFY(partial.exitEvent.isEmpty());
        }
        const QJsonObject done = waitUntilFinal(client(), id);
        QCOMPARE(done.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(done.value("exitCode").toInt(-1), 0);
        QByteArray expected;
        for (int i = 1; i <= 30; ++i)
            expected += "tick " + QByteArray::number(i) + '\n';
        const LogCapture log = readLog(client(), id, 0, false);
        QCOMPARE(log.stdoutBytes, expected);
    }

    void testLogFromAnyOffsetReturnsExactlyTheBytesNotYetSeen() {
        const QString ws = m_agent.createWorkspace();
        // Interleaved stdout/stderr in many writes, multi-byte characters (one split across two
        // writes), and bytes that are not UTF-8.
        const QString code =
            QStringLiteral("import os, time\n"
                           "for i in range(300):\n"
                           "    os.write(1, f'out {i} h\\u00e9llo \\u2713\\n'.encode())\n"
                           "    os.write(2, bytes([0xff, 0xfe, i % 256]) + b'err\\n')\n"
                           "    if i % 60 == 0: time.sleep(0.01)\n"
                           "e = '\\u20ac'.encode()\n"
                           "os.write(1, e[:2]); time.sleep(0.05); os.write(1, e[2:] + b'\\n')\n");
        const QString id = submitOk(ws, {{"argv", QJsonArray{"/usr/bin/python3", "-c", code}}});
        QVERIFY(!id.isEmpty());
        QCOMPARE(waitUntilFinal(client(), id).value("state").toString(),
                 QStringLiteral("completed"));

        QByteArray expectedOut, expectedErr;
        for (int i = 0; i < 300; ++i) {
            expectedOut += QStringLiteral("out %1 h\u00e9llo \u2713\n").arg(i).toUtf8();
            expectedErr += QByteArray("\xff\xfe") + char(i % 256) + "err\n";
        }
        expectedOut += QStringLiteral("\u20ac\n").toUtf8();

        const LogCapture full = readLog(client(), id, 0, false);
        QCOMPARE(full.status, 200);
        QVERIFY(full.contiguous);
        QCOMPARE(full.firstOffset, qint64(0));
        QCOMPARE(full.stdoutBytes, expectedOut);
        QCOMPARE(full.stderrBytes, expectedErr);
        QVERIFY(full.endsWithExit());
        const qint64 size = full.bytes.size();
        QCOMPARE(full.nextOffset, size);

        for (const qint64 n : {qint64(1), qint64(2), qint64(3), qint64(17), size / 3, size / 2 + 1,
                               size - 2, size - 1, size}) {
            const LogCapture part = readLog(client(), id, n, false);
            QCOMPARE(part.status, 200);
            QVERIFY2(part.contiguous, qPrintable(QString::number(n)));
            if (n < size)
                QCOMPARE(part.firstOffset, n);
            QVERIFY2(full.bytes.left(n) + part.bytes == full.bytes,
                     qPrintable(QStringLiteral("offset %1: %2 bytes instead of %3")
                                    .arg(n)
                                    .arg(part.bytes.size())
                                    .arg(size - n)));
            QVERIFY(part.endsWithExit());
        }
        QCOMPARE(client()
                     .call("GET", "/v1/executions/" + id.toUtf8() +
                                      "/log?offset=" + QByteArray::number(size + 1))
                     .status,
                 400);
    }

    void testFollowFromAnOffsetWhileRunningEndsWithTheExitEvent() {
        const QString ws = m_agent.createWorkspace();
        const QString id = submitOk(
            ws, {{"argv", QJsonArray{"/usr/bin/bash", "-c",
                                     "for i in $(seq 100 199); do echo line $i; sleep 0.01; done; "
                                     "exit 3"}}});
        QVERIFY(!id.isEmpty());
        QByteArray expected;
        for (int i = 100; i < 200; ++i)
            expected += "line " + QByteArray::number(i) + '\n';
        // Wait until some output exists, then follow from inside it.
        QVERIFY(waitForRecord(
                    client(), id,
                    [](const QJsonObject& r) {
                        return r.value("logBytes").toObject().value("stdout").toInteger() > 50 ||
                               isFinalState(r.value("state").toString());
                    })
                    .value("logBytes")
                    .toObject()
                    .value("stdout")
                    .toInteger() > 50);
        const LogCapture followed = readLog(client(), id, 37, true);
        QCOMPARE(followed.status, 200);
        QCOMPARE(followed.firstOffset, qint64(37));
        QCOMPARE(followed.bytes, expected.mid(37));
        QVERIFY(followed.endsWithExit());
        int exits = 0;
        for (const QJsonObject& ev : followed.events)
            exits += ev.value("type").toString() == QLatin1String("exit");
        QCOMPARE(exits, 1);
        QCOMPARE(followed.exitEvent.value("status").toString(), QStringLiteral("failed"));
        QCOMPARE(followed.exitEvent.value("exitCode").toInt(), 3);
    }

    void testCancelledQueuedExecutionNeverStarts() {
        QVERIFY(setQuota("maxConcurrentExecutions", 1));
        const QString ws1 = m_agent.createWorkspace(), ws2 = m_agent.createWorkspace(),
                      ws3 = m_agent.createWorkspace();
        const QString blocker = submitOk(ws1, {{"argv", QJsonArray{"/usr/bin/sleep", "120"}}});
        QVERIFY(isRunning(waitForRecord(client(), blocker, isRunning)));
        const QString queued = submitOk(
            ws2, {{"argv", QJsonArray{"/usr/bin/bash", "-c", "echo ran > started-marker"}}});
        const QString next = submitOk(ws3, {{"argv", QJsonArray{"/usr/bin/true"}}});
        QVERIFY(!queued.isEmpty() && !next.isEmpty());

        // Queue positions are visible in the record and in the list (0 = next to start).
        QJsonObject q = executionRecord(client(), queued);
        QCOMPARE(q.value("state").toString(), QStringLiteral("queued"));
        QCOMPARE(q.value("queuePosition").toInt(-1), 0);
        QCOMPARE(executionRecord(client(), next).value("queuePosition").toInt(-1), 1);
        const QJsonArray listed = client()
                                      .call("GET", "/v1/executions?state=queued")
                                      .json()
                                      .value("executions")
                                      .toArray();
        QCOMPARE(listed.size(), 2);

        const ApiResponse cancelled =
            client().call("POST", "/v1/executions/" + queued.toUtf8() + "/cancel");
        QCOMPARE(cancelled.status, 200);
        QCOMPARE(cancelled.json().value("state").toString(), QStringLiteral("cancelled"));
        QCOMPARE(executionRecord(client(), next).value("queuePosition").toInt(-1), 0);
        const LogCapture log = readLog(client(), queued, 0, true, 10000);
        QVERIFY(log.endsWithExit());
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("cancelled"));
        QVERIFY(log.bytes.isEmpty());

        // Free the slot: the next queued one runs; the cancelled one still never does.
        client().call("POST", "/v1/executions/" + blocker.toUtf8() + "/cancel");
        QCOMPARE(waitUntilFinal(client(), next).value("state").toString(),
                 QStringLiteral("completed"));
        q = executionRecord(client(), queued);
        QCOMPARE(q.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY(q.value("startedAt").isNull());
        QVERIFY(!QFile::exists(m_agent.workspaceDir(ws2) + QStringLiteral("/started-marker")));
        QVERIFY(setQuota("maxConcurrentExecutions", 16));
    }

    void testCancelledRunningExecutionIsFinalOnlyOnceItsProcessIsGone() {
        const QString ws = m_agent.createWorkspace();
        const QString marker = uniqueMarker();
        const QString id = submitOk(
            ws, bashWithMarker("i=0; while :; do i=$((i+1)); echo $i > beat; sleep 0.01; done",
                               marker));
        QVERIFY(!id.isEmpty());
        const QString beat = m_agent.workspaceDir(ws) + QStringLiteral("/beat");
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(beat), 30000);
        QVERIFY(!processesWithMarker(marker.toUtf8()).isEmpty()); // positive control

        QCOMPARE(client().call("POST", "/v1/executions/" + id.toUtf8() + "/cancel").status, 200);
        QJsonObject record;
        QList<int> survivorsAtFinal;
        // Poll tightly: at the first moment the record is final, nothing of it may run.
        QDeadlineTimer deadline(30000);
        while (!deadline.hasExpired()) {
            record = executionRecord(client(), id);
            if (isFinalState(record.value("state").toString())) {
                survivorsAtFinal = processesWithMarker(marker.toUtf8());
                break;
            }
        }
        QCOMPARE(record.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY2(survivorsAtFinal.isEmpty(), "sandbox processes ran after the record was final");
        const QByteArray atFinal = readFile(beat);
        QTest::qWait(300); // the loop wrote every 10 ms: it would have moved on by now
        QCOMPARE(readFile(beat), atFinal);
    }

    void testCancelWhileTheSandboxIsStillSettingUpLeavesNothingRunning() {
        // Cancelled as soon as it is running: bwrap is usually still building the sandbox, before
        // its namespace init has a parent-death signal of its own.
        const QString ws = m_agent.createWorkspace();
        for (int round = 0; round < 5; ++round) {
            const QString marker = uniqueMarker();
            const QString id = submitOk(ws, bashWithMarker("sleep 120", marker));
            QVERIFY(isRunning(waitForRecord(client(), id, isRunning)));
            QCOMPARE(client().call("POST", "/v1/executions/" + id.toUtf8() + "/cancel").status,
                     200);
            QCOMPARE(waitUntilFinal(client(), id).value("state").toString(),
                     QStringLiteral("cancelled"));
            const QList<int> left = processesWithMarker(marker.toUtf8());
            QVERIFY2(left.isEmpty(),
                     qPrintable(QStringLiteral("round %1: %2 sandbox process(es) still run")
                                    .arg(round)
                                    .arg(left.size())));
        }
    }

    void testOneWriterPerWorkspaceAndDifferentWorkspacesInParallel() {
        const QString ws = m_agent.createWorkspace();
        const auto timed = [](const char* name) {
            return QJsonObject{
                {"argv", QJsonArray{"/usr/bin/bash", "-c",
                                    QStringLiteral("date +%s%N > %1.start; sleep 0.5; "
                                                   "date +%s%N > %1.end")
                                        .arg(QLatin1String(name))}}};
        };
        const QString a = submitOk(ws, timed("a"));
        const QString b = submitOk(ws, timed("b"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        const QJsonObject waiting = executionRecord(client(), b);
        QCOMPARE(waiting.value("state").toString(), QStringLiteral("queued"));
        QCOMPARE(waiting.value("queuePosition").toInt(-1), 0);
        QCOMPARE(waitUntilFinal(client(), b).value("state").toString(),
                 QStringLiteral("completed"));
        QCOMPARE(executionRecord(client(), a).value("state").toString(),
                 QStringLiteral("completed"));
        const QString dir = m_agent.workspaceDir(ws);
        const qint64 aEnd = readFile(dir + "/a.end").trimmed().toLongLong();
        const qint64 bStart = readFile(dir + "/b.start").trimmed().toLongLong();
        QVERIFY(aEnd > 0 && bStart > 0);
        QVERIFY2(bStart >= aEnd, "the second writer started before the first one ended");

        // Another workspace is not blocked by a long run.
        const QString other = m_agent.createWorkspace();
        const QString longRun = submitOk(ws, {{"argv", QJsonArray{"/usr/bin/sleep", "120"}}});
        QVERIFY(isRunning(waitForRecord(client(), longRun, isRunning)));
        const QString quick = submitOk(other, {{"argv", QJsonArray{"/usr/bin/true"}}});
        QCOMPARE(waitUntilFinal(client(), quick).value("state").toString(),
                 QStringLiteral("completed"));
        QVERIFY(isRunning(executionRecord(client(), longRun)));
        client().call("POST", "/v1/executions/" + longRun.toUtf8() + "/cancel");
        QCOMPARE(waitUntilFinal(client(), longRun).value("state").toString(),
                 QStringLiteral("cancelled"));
    }

    void testExecutionIdIsAnIdempotencyKeyKeptForever() {
        const QString ws = m_agent.createWorkspace();
        const QString key = QStringLiteral("job-") + QUuid::createUuid().toString(QUuid::Id128);
        const QJsonObject body{{"argv", QJsonArray{"/usr/bin/true"}}, {"executionId", key}};
        const ApiResponse first = submitExecution(client(), ws, body);
        QCOMPARE(first.status, 202);
        QCOMPARE(first.json().value("executionId").toString(), key);
        const auto expectConflict = [&](const char* when) {
            const ApiResponse again = submitExecution(
                client(), ws, {{"argv", QJsonArray{"/usr/bin/false"}}, {"executionId", key}});
            QVERIFY2(again.status == 409, when);
            QCOMPARE(again.errorCode(), QStringLiteral("duplicate_execution_id"));
            QVERIFY(again.errorMessage().contains(key));
        };
        expectConflict("while it runs");
        QCOMPARE(waitUntilFinal(client(), key).value("state").toString(),
                 QStringLiteral("completed"));
        expectConflict("after it ended");
        QVERIFY(m_agent.stop());
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        expectConflict("after an agent restart");
        QCOMPARE(executionRecord(client(), key).value("state").toString(),
                 QStringLiteral("completed"));
    }
};

QTEST_GUILESS_MAIN(TestManagedExecutions)
#include "test_managed_executions.moc"
