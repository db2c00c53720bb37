// Round trips through the real agent and a real bubblewrap sandbox: shell, python, argv.
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"

#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestExecRoundTrip final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testEchoRoundTrip() {
        const ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("echo hello runbox"));
        QCOMPARE(r.httpStatus, 200);
        QVERIFY2(r.hasExit(), qPrintable(r.describe()));
        QCOMPARE(r.status(), QStringLiteral("completed"));
        QCOMPARE(r.exitCode(), 0);
        QCOMPARE(r.stdoutBytes, QByteArray("hello runbox\n"));
        QCOMPARE(r.stderrBytes, QByteArray());
    }

    void testPythonRoundTrip() {
        const ExecOutcome r =
            m_agent.python(m_ws, QStringLiteral("import sys\nprint(sum(range(10)))\nprint('warn', "
                                                "file=sys.stderr)\nprint(sys.flags.isolated)\n"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("45\n1\n")); // 1: python3 -I
        QCOMPARE(r.stderrBytes, QByteArray("warn\n"));
    }

    void testArgvWithStdinRoundTrip() {
        const ExecOutcome r = m_agent.exec(
            m_ws, {{"argv", QJsonArray{"/usr/bin/tr", "a-z", "A-Z"}}, {"stdin", "shout"}});
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("SHOUT"));
    }

    void testArgumentsReachTheProgramVerbatim() {
        // User strings come after "--": nothing is parsed as a bwrap option.
        const QJsonArray argv{"/usr/bin/printf", "%s|", "--bind", "/", "$HOME", "a b"};
        const ExecOutcome r = m_agent.exec(m_ws, {{"argv", argv}});
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("--bind|/|$HOME|a b|"));
    }

    void testNonZeroExitIsFailedWithItsCode() {
        const ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("echo partial; exit 3"));
        QCOMPARE(r.status(), QStringLiteral("failed"));
        QCOMPARE(r.exitCode(), 3);
        QCOMPARE(r.stdoutBytes, QByteArray("partial\n"));
    }

    void testMissingProgramIsAFailedRunNotASetupFailure() {
        const ExecOutcome r =
            m_agent.exec(m_ws, {{"argv", QJsonArray{"/usr/bin/no-such-program-runbox"}}});
        QCOMPARE(r.status(), QStringLiteral("failed"));
        QCOMPARE(r.exitCode(), 127);
    }

    void testStreamStartsWithStartedAndEndsWithExit() {
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("echo out; echo err >&2"),
            {{"executionId", "roundtrip-" + QString::fromLatin1(RequestSigner::newNonce())}});
        QVERIFY2(r.events.size() >= 3, qPrintable(r.describe()));
        const QJsonObject started = r.events.first();
        QCOMPARE(started.value("type").toString(), QStringLiteral("started"));
        QVERIFY(started.value("executionId").toString().startsWith(QLatin1String("roundtrip-")));
        QCOMPARE(started.value("workspace").toString(), m_ws);
        QCOMPARE(r.events.last().value("type").toString(), QStringLiteral("exit"));
        for (qsizetype i = 1; i + 1 < r.events.size(); ++i)
            QVERIFY(r.events[i].value("type").toString() != QLatin1String("exit"));
        const QJsonObject exit = r.exitEvent;
        QVERIFY(exit.value("durationMs").isDouble());
        QVERIFY(exit.value("durationMs").toDouble() >= 0);
        QVERIFY(exit.value("signal").isNull());
        for (const char* key : {"createdFiles", "modifiedFiles", "deletedFiles"})
            QVERIFY2(exit.value(QLatin1String(key)).isArray(), key);
        QCOMPARE(exit.value("stdoutBytes").toInteger(), 4);
        QCOMPARE(exit.value("stderrBytes").toInteger(), 4);
    }

    void testExitEventListsCreatedFiles() {
        const ExecOutcome r =
            m_agent.shell(m_ws, QStringLiteral("echo new > created-by-roundtrip.txt"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY(QFile::exists(m_agent.workspaceDir(m_ws) + "/created-by-roundtrip.txt"));
        QVERIFY(r.exitEvent.value("createdFiles")
                    .toArray()
                    .contains(QStringLiteral("created-by-roundtrip.txt")));
    }

private:
    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestExecRoundTrip)
#include "test_exec_roundtrip.moc"
