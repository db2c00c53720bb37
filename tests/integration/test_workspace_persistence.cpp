// What carries over between executions of one workspace: its files, and nothing else.
#include "support/AgentProcess.h"

#include <QFile>
#include <QTest>

using namespace runbox::testsupport;

class TestWorkspacePersistence final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }
    void init() {
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testWorkspaceFilesPersistBetweenExecutions() {
        const ExecOutcome write = m_agent.shell(
            m_ws, QStringLiteral("mkdir -p sub && echo kept > /workspace/sub/data.txt"));
        QVERIFY2(write.status() == QLatin1String("completed"), qPrintable(write.describe()));
        // The file lies in the workspace directory on the host, not in a sandbox-private place.
        QFile host(m_agent.workspaceDir(m_ws) + QStringLiteral("/sub/data.txt"));
        QVERIFY(host.open(QIODevice::ReadOnly));
        QCOMPARE(host.readAll(), QByteArray("kept\n"));

        const ExecOutcome read = m_agent.python(
            m_ws, QStringLiteral("print(open('/workspace/sub/data.txt').read(), end='')"));
        QVERIFY2(read.status() == QLatin1String("completed"), qPrintable(read.describe()));
        QCOMPARE(read.stdoutBytes, QByteArray("kept\n"));
    }

    void testTmpDoesNotCarryOver() {
        const ExecOutcome first =
            m_agent.shell(m_ws, QStringLiteral("echo scratch > /tmp/scratch && cat /tmp/scratch"));
        QVERIFY2(first.stdoutBytes == "scratch\n", qPrintable(first.describe())); // it was there
        const ExecOutcome second = m_agent.shell(
            m_ws, QStringLiteral("if [ -e /tmp/scratch ]; then echo present; else echo gone; fi"));
        QCOMPARE(second.stdoutBytes, QByteArray("gone\n"));
    }

    void testCwdDoesNotCarryOver() {
        const ExecOutcome first =
            m_agent.shell(m_ws, QStringLiteral("mkdir -p deep && cd deep && pwd"));
        QCOMPARE(first.stdoutBytes, QByteArray("/workspace/deep\n"));
        const ExecOutcome second = m_agent.shell(m_ws, QStringLiteral("pwd"));
        QCOMPARE(second.stdoutBytes, QByteArray("/workspace\n"));
    }

    void testEnvDoesNotCarryOver() {
        const ExecOutcome first =
            m_agent.shell(m_ws, QStringLiteral("export EXPORTED=2; echo \"$GIVEN$EXPORTED\""),
                          {{"env", QJsonObject{{"GIVEN", "1"}}}});
        QCOMPARE(first.stdoutBytes, QByteArray("12\n"));
        const ExecOutcome second =
            m_agent.shell(m_ws, QStringLiteral("echo \"${GIVEN-unset} ${EXPORTED-unset}\""));
        QCOMPARE(second.stdoutBytes, QByteArray("unset unset\n"));
    }

    void testInterpreterStateDoesNotCarryOver() {
        const ExecOutcome first = m_agent.python(
            m_ws, QStringLiteral("import builtins\nbuiltins.leaked = 41\nprint(leaked + 1)"));
        QCOMPARE(first.stdoutBytes, QByteArray("42\n"));
        const ExecOutcome second = m_agent.python(
            m_ws, QStringLiteral("import builtins\nprint(hasattr(builtins, 'leaked'))"));
        QCOMPARE(second.stdoutBytes, QByteArray("False\n"));
    }

    void testWorkspacesDoNotSeeEachOther() {
        const ExecOutcome write = m_agent.shell(m_ws, QStringLiteral("echo mine > private.txt"));
        QVERIFY2(write.status() == QLatin1String("completed"), qPrintable(write.describe()));
        const QString other = m_agent.createWorkspace();
        QVERIFY(!other.isEmpty());
        const ExecOutcome look =
            m_agent.shell(other, QStringLiteral("ls -A /workspace; find / -name private.txt "
                                                "-not -path '/proc/*' 2>/dev/null || true"));
        QVERIFY2(look.status() == QLatin1String("completed"), qPrintable(look.describe()));
        QCOMPARE(look.stdoutBytes, QByteArray());
    }

private:
    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestWorkspacePersistence)
#include "test_workspace_persistence.moc"
