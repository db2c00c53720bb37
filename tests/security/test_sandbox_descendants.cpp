// No process started in a sandbox outlives its execution: not with setsid, nohup or a double
// fork, not after a timeout, not after the client went away.
#include "support/AgentProcess.h"
#include "support/HostProcesses.h"

#include <QTest>

using namespace runbox::testsupport;

class TestNoDescendantSurvives final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testPositiveControlSandboxProcessesAreVisibleOnTheHost() {
        const QByteArray arg = HostProcesses::uniqueSleepArgument(1000);
        ExecStream* stream = m_agent.execStreaming(
            m_ws, {{"kind", "shell"}, {"code", QStringLiteral("sleep %1").arg(arg)}});
        QTRY_VERIFY_WITH_TIMEOUT(!HostProcesses::withCmdlineContaining(arg).isEmpty(), 20000);
        for (const HostProcess& p : HostProcesses::withCmdlineContaining(arg))
            QCOMPARE(p.uid, m_agent.agentUid());
        stream->abort();
        QTRY_VERIFY_WITH_TIMEOUT(HostProcesses::withCmdlineContaining(arg).isEmpty(), 5000);
        delete stream;
    }

    void testNoDescendantSurvivesTheResult_data() {
        QTest::addColumn<int>("seconds");
        QTest::addColumn<QString>("launch"); // shell code starting a sleeper "sleep ARG"
        QTest::newRow("setsid") << 1000 << QStringLiteral("setsid sh -c 'sleep ARG' &");
        QTest::newRow("nohup in a subshell") << 1001 << QStringLiteral("(nohup sleep ARG &)");
        QTest::newRow("setsid with output closed")
            << 1000 << QStringLiteral("setsid sh -c 'sleep ARG' </dev/null >/dev/null 2>&1 &");
        QTest::newRow("nohup with output closed")
            << 1001 << QStringLiteral("(nohup sleep ARG </dev/null >/dev/null 2>&1 &)");
        QTest::newRow("python double-fork daemon")
            << 1002
            << QStringLiteral(
                   "python3 -c 'import os\nif os.fork() == 0:\n os.setsid()\n if os.fork() == 0:\n"
                   "  os.closerange(0, 1024)\n  os.execv(\"/usr/bin/sleep\", [\"sleep\", "
                   "\"ARG\"])\n"
                   " os._exit(0)\nos.wait()'");
    }
    void testNoDescendantSurvivesTheResult() {
        QFETCH(int, seconds);
        QFETCH(QString, launch);
        const QByteArray arg = HostProcesses::uniqueSleepArgument(seconds);
        launch.replace(QLatin1String("ARG"), QString::fromLatin1(arg));
        // The script returns only once the sleeper runs, so that it really had to be killed.
        const ExecOutcome r = m_agent.shell(
            m_ws,
            launch + QStringLiteral("\nuntil pgrep -f 'sleep %1' >/dev/null; do sleep 0.05; "
                                    "done; echo launched")
                         .arg(arg),
            {{"executionTimeoutMs", 30000}});
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY2(r.stdoutBytes.endsWith("launched\n"), qPrintable(r.describe()));
        // Checked at once: the process tree ends before the result is final.
        QVERIFY2(HostProcesses::withCmdlineContaining(arg).isEmpty(),
                 HostProcesses::describe(HostProcesses::withCmdlineContaining(arg)));
    }

    void testNoDescendantSurvivesTimeout() {
        const QByteArray arg = HostProcesses::uniqueSleepArgument(1000);
        const ExecOutcome r = m_agent.shell(
            m_ws,
            QStringLiteral("setsid sh -c 'sleep %1' </dev/null >/dev/null 2>&1 &\n"
                           "until pgrep -f 'sleep %1' >/dev/null; do sleep 0.05; done\n"
                           "exec sleep 600 </dev/null >/dev/null 2>&1")
                .arg(arg),
            {{"executionTimeoutMs", 2000}});
        QVERIFY2(r.status() == QLatin1String("timed_out"), qPrintable(r.describe()));
        QVERIFY2(HostProcesses::withCmdlineContaining(arg).isEmpty(),
                 HostProcesses::describe(HostProcesses::withCmdlineContaining(arg)));
    }

    void testNothingSurvivesClientDisconnect() {
        const QByteArray arg = HostProcesses::uniqueSleepArgument(1000);
        ExecStream* stream = m_agent.execStreaming(
            m_ws, {{"kind", "shell"},
                   {"code", QStringLiteral("setsid sh -c 'sleep %1' </dev/null >/dev/null 2>&1 &\n"
                                           "(nohup sleep %1 &)\n"
                                           "echo ready; exec sleep 600")
                                .arg(arg)}});
        QVERIFY(stream->waitForEvent(
            [](const QJsonObject& ev) { return ev.value("type").toString() == "stdout"; }, 20000));
        QTRY_VERIFY_WITH_TIMEOUT(HostProcesses::withCmdlineContaining(arg).size() >= 2, 10000);
        stream->abort();
        QTRY_VERIFY2_WITH_TIMEOUT(
            HostProcesses::withCmdlineContaining(arg).isEmpty(),
            HostProcesses::describe(HostProcesses::withCmdlineContaining(arg)), 5000);
        delete stream;
    }

private:
    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestNoDescendantSurvives)
#include "test_sandbox_descendants.moc"
