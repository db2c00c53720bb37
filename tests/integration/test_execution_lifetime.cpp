// How an execution ends: at its command's exit (orphans do not hold it open), at its timeout,
// when the client goes away, and when the agent is stopped.
#include "support/AgentProcess.h"
#include "support/HostProcesses.h"

#include <QFile>
#include <QJsonArray>
#include <QTest>

using namespace runbox::testsupport;

class TestExecutionLifetime final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testOrphanHoldingStdoutDoesNotDelayExit() {
        // The background sleep inherits stdout and would keep the pipe open for 100 s.
        const QByteArray sleepArg = HostProcesses::uniqueSleepArgument(100);
        const ExecOutcome r =
            m_agent.shell(m_ws, QStringLiteral("sleep %1 & echo started").arg(sleepArg),
                          {{"executionTimeoutMs", 60000}});
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("started\n"));
        const double durationMs = r.exitEvent.value("durationMs").toDouble();
        QVERIFY2(durationMs < 3000, qPrintable(QString::number(durationMs)));
        QVERIFY2(HostProcesses::withCmdlineContaining(sleepArg).isEmpty(),
                 HostProcesses::describe(HostProcesses::withCmdlineContaining(sleepArg)));
    }

    void testTimeoutEndsRunAsTimedOut() {
        const QByteArray sleepArg = HostProcesses::uniqueSleepArgument(60);
        const ExecOutcome r =
            m_agent.shell(m_ws, QStringLiteral("echo before; sleep %1").arg(sleepArg),
                          {{"executionTimeoutMs", 1000}});
        QVERIFY2(r.status() == QLatin1String("timed_out"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("before\n")); // output before the kill is kept
        QCOMPARE(r.exitEvent.value("signal").toString(), QStringLiteral("SIGKILL"));
        const double durationMs = r.exitEvent.value("durationMs").toDouble();
        QVERIFY2(durationMs >= 1000 && durationMs < 30000, qPrintable(QString::number(durationMs)));
        // The whole tree is gone by the time the result is final.
        QVERIFY2(HostProcesses::withCmdlineContaining(sleepArg).isEmpty(),
                 HostProcesses::describe(HostProcesses::withCmdlineContaining(sleepArg)));
    }

    void testClientDisconnectKillsExecution() {
        const QString beat = m_agent.workspaceDir(m_ws) + QStringLiteral("/heartbeat");
        QFile::remove(beat);
        const QByteArray marker = HostProcesses::uniqueSleepArgument(500);
        // Writes its pid-namespace view (pid and a counter) every 100 ms; argv[0] marks it.
        const QString code =
            QStringLiteral("exec -a heartbeat-%1 bash -c 'i=0; while true; do i=$((i+1)); "
                           "echo \"$$ $i\" > /workspace/heartbeat.tmp; "
                           "mv /workspace/heartbeat.tmp /workspace/heartbeat; sleep 0.1; done'")
                .arg(QString::fromLatin1(marker));
        ExecStream* stream = m_agent.execStreaming(
            m_ws, {{"kind", "shell"}, {"code", code}, {"executionTimeoutMs", 120000}});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(beat), 20000);
        const QByteArray needle = "heartbeat-" + marker;
        QVERIFY2(!HostProcesses::withCmdlineContaining(needle).isEmpty(),
                 "positive control: the heartbeat process is visible on the host while it runs");
        stream->abort();
        QTRY_VERIFY2_WITH_TIMEOUT(
            HostProcesses::withCmdlineContaining(needle).isEmpty(),
            HostProcesses::describe(HostProcesses::withCmdlineContaining(needle)), 5000);
        const QByteArray last = readFile(beat);
        QTest::qWait(500); // five heartbeats' time: a live writer would have moved on
        QCOMPARE(readFile(beat), last);
        delete stream;
        // The agent is fine afterwards.
        QCOMPARE(m_agent.shell(m_ws, QStringLiteral("echo ok")).stdoutBytes, QByteArray("ok\n"));
    }

    void testAgentShutdownCancelsRunningExecution() {
        AgentProcess agent;
        QVERIFY2(agent.start(), qPrintable(agent.errorString()));
        const QString ws = agent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        const QByteArray sleepArg = HostProcesses::uniqueSleepArgument(300);
        ExecStream* stream = agent.execStreaming(
            ws,
            {{"kind", "shell"}, {"code", QStringLiteral("echo running; sleep %1").arg(sleepArg)}});
        QVERIFY(stream->waitForEvent(
            [](const QJsonObject& ev) { return ev.value("type").toString() == "stdout"; }, 20000));
        // Positive control: the sleeper is visible on the host while the run goes on.
        QTRY_VERIFY_WITH_TIMEOUT(!HostProcesses::withCmdlineContaining(sleepArg).isEmpty(), 10000);
        QVERIFY2(agent.stop(), qPrintable(agent.log()));
        QVERIFY(stream->waitForFinished(10000));
        QVERIFY2(stream->outcome().status() == QLatin1String("cancelled"),
                 qPrintable(stream->outcome().describe()));
        QVERIFY2(HostProcesses::withCmdlineContaining(sleepArg).isEmpty(),
                 HostProcesses::describe(HostProcesses::withCmdlineContaining(sleepArg)));
    }

private:
    static QByteArray readFile(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestExecutionLifetime)
#include "test_execution_lifetime.moc"
