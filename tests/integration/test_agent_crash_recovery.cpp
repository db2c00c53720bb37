// SIGKILL of the agent while managed executions run or wait (docs/managed.md "No sandbox outlives
// the agent", docs/STORE.md): no sandbox process survives the agent, and after a restart the
// executions are `lost` with a reason, never re-run, with their logs intact up to what was written.
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTest>
#include <QUuid>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QString uniqueMarker() {
    return QStringLiteral("rbx-marker-") + QUuid::createUuid().toString(QUuid::Id128);
}

QString describe(const QList<int>& pids) {
    QStringList lines;
    for (int pid : pids) {
        QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
        f.open(QIODevice::ReadOnly);
        lines << QStringLiteral("%1: %2").arg(pid).arg(
            QString::fromUtf8(f.readAll().replace('\0', ' ')).left(200));
    }
    return lines.join(QLatin1Char('\n'));
}

/// Waits up to @p timeoutMs for every process with @p marker to be gone; returns survivors.
QList<int> survivorsAfter(const QString& marker, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    QList<int> left = processesWithMarker(marker.toUtf8());
    while (!left.isEmpty() && !deadline.hasExpired()) {
        QTest::qWait(20);
        left = processesWithMarker(marker.toUtf8());
    }
    return left;
}

} // namespace

class TestAgentCrashRecovery final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;
    ApiClient& client() { return *m_agent.client(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void testSigkilledAgentLeavesNoSandboxAndItsRunBecomesLost() {
        const QString ws = m_agent.createWorkspace();
        const QString marker = uniqueMarker();
        const ApiResponse submitted = submitExecution(
            client(), ws,
            {{"argv", QJsonArray{"/usr/bin/bash", "-c",
                                 "i=0; while :; do echo \"line $i\"; i=$((i+1)); sleep 0.01; done",
                                 marker}}});
        QCOMPARE(submitted.status, 202);
        const QString id = submitted.json().value("executionId").toString();
        int lines = 0;
        const LogCapture seen = readLog(client(), id, 0, true, 30000, [&](const QJsonObject& ev) {
            lines += int(ev.value("data").toString().count(QLatin1Char('\n')));
            return lines < 20;
        });
        QVERIFY(seen.aborted);
        const QList<int> before = processesWithMarker(marker.toUtf8());
        QVERIFY(!before.isEmpty()); // positive control: bwrap, its init and bash carry the marker
        qInfo("before the kill:\n%s", qPrintable(describe(before)));

        m_agent.kill();
        // bwrap --die-with-parent and the agent's parent-death signal end the sandbox with the
        // agent; the start-up sweep is only a second line.
        const QList<int> survivors = survivorsAfter(marker, 5000);
        QVERIFY2(survivors.isEmpty(),
                 qPrintable("sandbox processes outlived the agent:\n" + describe(survivors)));

        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        const QJsonObject record = executionRecord(client(), id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("lost"));
        QVERIFY(!record.value("statusReason").toString().isEmpty());
        QVERIFY(m_agent.log().contains("marked lost"));

        const LogCapture log = readLog(client(), id, 0, true, 10000);
        QCOMPARE(log.status, 200);
        QVERIFY(log.contiguous);
        QVERIFY(log.bytes.startsWith(seen.bytes)); // nothing that was delivered is missing
        // Intact: consecutive whole lines, at most the last one cut by the kill.
        const QList<QByteArray> got = log.bytes.split('\n');
        for (qsizetype i = 0; i + 1 < got.size(); ++i)
            QCOMPARE(got.at(i), "line " + QByteArray::number(i));
        QVERIFY(log.endsWithExit());
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("lost"));
        QVERIFY(processesWithMarker(marker.toUtf8()).isEmpty());
    }

    void testQueuedExecutionIsLostAndNeverRun() {
        QCOMPARE(
            client()
                .call("PUT", "/v1/settings/quotas", QJsonObject{{"maxConcurrentExecutions", 1}})
                .status,
            200);
        const QString ws1 = m_agent.createWorkspace(), ws2 = m_agent.createWorkspace();
        const QString marker = uniqueMarker();
        const auto idOf = [](const ApiResponse& r) {
            return r.json().value("executionId").toString();
        };
        const QString running = idOf(submitExecution(
            client(), ws1, {{"argv", QJsonArray{"/usr/bin/bash", "-c", "sleep 120", marker}}}));
        QVERIFY(waitForRecord(client(), running, [](const QJsonObject& r) {
                    return r.value("state").toString() == QLatin1String("running");
                }).value("state") == QLatin1String("running"));
        const QString queued = idOf(submitExecution(
            client(), ws2, {{"argv", QJsonArray{"/usr/bin/bash", "-c", "touch ran"}}}));
        QCOMPARE(executionRecord(client(), queued).value("state").toString(),
                 QStringLiteral("queued"));

        m_agent.kill();
        const QList<int> survivors = survivorsAfter(marker, 5000);
        QVERIFY2(survivors.isEmpty(),
                 qPrintable("sandbox processes outlived the agent:\n" + describe(survivors)));
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        for (const QString& id : {running, queued}) {
            const QJsonObject r = executionRecord(client(), id);
            QCOMPARE(r.value("state").toString(), QStringLiteral("lost"));
            QVERIFY(!r.value("statusReason").toString().isEmpty());
        }
        QVERIFY(executionRecord(client(), queued).value("startedAt").isNull());
        // Never re-run: the slot is free now, yet nothing runs it.
        const ApiResponse probe =
            submitExecution(client(), ws1, {{"argv", QJsonArray{"/usr/bin/true"}}});
        QCOMPARE(waitUntilFinal(client(), idOf(probe)).value("state").toString(),
                 QStringLiteral("completed"));
        QVERIFY(!QFile::exists(m_agent.workspaceDir(ws2) + QStringLiteral("/ran")));
    }
};

QTEST_GUILESS_MAIN(TestAgentCrashRecovery)
#include "test_agent_crash_recovery.moc"
