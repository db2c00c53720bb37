// The CPU an execution used, as its record and its `exit` event say (docs/bounds.md), for runs
// that end by themselves (positive control: wait4's rusage), and for runs the agent kills (a
// cancel, a timeout): their processes are reaped by the PID namespace's teardown with SIGCHLD
// ignored, so no rusage carries their CPU. Before the fix a cancelled pair of spinners that had
// run 3 s reported 5 ms.
#include "support/AgentProcess.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"

#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr const char* kSpinner = "sh -c 'while :; do :; done' & sh -c 'while :; do :; done'";

qint64 cpuMsOf(const QJsonObject& usage) {
    return usage.value("cpuUserMs").toInteger(-1) + usage.value("cpuSystemMs").toInteger(0);
}
} // namespace

class TestExecutionUsage final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;
    ApiClient& client() { return *m_agent.client(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void testARunThatEndsByItselfReportsItsCpu() { // positive control
        const QString ws = m_agent.createWorkspace();
        ExecStream run(&client(), ws,
                       {{"kind", "shell"}, {"code", "timeout 1.5 sh -c 'while :; do :; done'"}});
        QVERIFY(run.waitForFinished(30000));
        const qint64 cpu = cpuMsOf(run.outcome().exitEvent.value("usage").toObject());
        qInfo("self-ended spinner: %lld ms CPU in %lld ms", cpu,
              run.outcome().exitEvent.value("durationMs").toInteger());
        QVERIFY2(cpu >= 500, qPrintable(QString::number(cpu)));
    }

    void testACancelledRunReportsTheCpuItsProcessesUsed() {
        const QString ws = m_agent.createWorkspace();
        const ApiResponse submitted =
            submitExecution(client(), ws, {{"kind", "shell"}, {"code", kSpinner}});
        QCOMPARE(submitted.status, 202);
        const QString id = submitted.json().value("executionId").toString();
        QVERIFY(waitForRecord(client(), id, [](const QJsonObject& r) {
                    return r.value("state").toString() == QLatin1String("running");
                }).value("state") == QLatin1String("running"));
        QTest::qWait(2000);
        client().call("POST", "/v1/executions/" + id.toUtf8() + "/cancel");
        const QJsonObject record = waitUntilFinal(client(), id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("cancelled"));
        const qint64 cpu = cpuMsOf(record.value("usage").toObject());
        qInfo("cancelled spinners: %lld ms CPU in %lld ms", cpu,
              record.value("durationMs").toInteger());
        QVERIFY2(cpu >= 500, qPrintable(QString::number(cpu)));
    }

    void testATimedOutSyncRunReportsItsCpu() {
        const QString ws = m_agent.createWorkspace();
        ExecStream run(&client(), ws,
                       {{"kind", "shell"}, {"code", kSpinner}, {"executionTimeoutMs", 2000}});
        QVERIFY(run.waitForFinished(30000));
        QCOMPARE(run.outcome().status(), QStringLiteral("timed_out"));
        const qint64 cpu = cpuMsOf(run.outcome().exitEvent.value("usage").toObject());
        qInfo("timed-out spinners: %lld ms CPU", cpu);
        QVERIFY2(cpu >= 500, qPrintable(QString::number(cpu)));
    }
};

QTEST_GUILESS_MAIN(TestExecutionUsage)
#include "test_execution_usage.moc"
