// Host processes are invisible from inside the sandbox (own PID namespace, own /proc).
#include "support/AgentProcess.h"
#include "support/HostProcesses.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTest>

using namespace runbox::testsupport;

namespace {
/// Lists every pid of the sandbox's /proc with its command line, one "pid cmdline" per line.
const QString kListProcesses = QStringLiteral(
    "import os\n"
    "for p in sorted(int(d) for d in os.listdir('/proc') if d.isdigit()):\n"
    "    try:\n"
    "        c = open(f'/proc/{p}/cmdline', 'rb').read().replace(b'\\0', b' ').decode()\n"
    "    except OSError:\n"
    "        c = '?'\n"
    "    print(p, c)\n");
} // namespace

class TestSandboxProcessIsolation final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
        m_canaryArg = HostProcesses::uniqueSleepArgument(3600);
        m_canary.start(QStringLiteral("/usr/bin/sleep"), {QString::fromLatin1(m_canaryArg)});
        QVERIFY(m_canary.waitForStarted());
    }
    void cleanupTestCase() {
        m_canary.kill();
        m_canary.waitForFinished();
        QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
    }

    void testPositiveControlHostSeesCanaryAndSandboxSeesItself() {
        QTRY_VERIFY(!HostProcesses::withCmdlineContaining(m_canaryArg).isEmpty());
        const ExecOutcome r = m_agent.python(m_ws, kListProcesses);
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY2(r.stdoutBytes.contains("python3"), r.stdoutBytes.constData());
    }

    void testHostProcessesAreInvisible() {
        const ExecOutcome r = m_agent.python(m_ws, kListProcesses);
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        const QByteArray seen = r.stdoutBytes;
        QVERIFY2(!seen.contains(m_canaryArg), seen.constData());
        QVERIFY2(!seen.contains("runbox-agent"), seen.constData());
        QVERIFY2(!seen.contains(QCoreApplication::applicationFilePath().toUtf8()),
                 seen.constData());
        // Only the sandbox's own few processes: bwrap's init, the interpreter, maybe a helper.
        const qsizetype count = seen.count('\n');
        QVERIFY2(count >= 1 && count <= 4, seen.constData());
        QVERIFY2(seen.startsWith("1 "), seen.constData());
    }

    void testPsShowsOnlySandboxProcesses() {
        const ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("ps -e -o pid=,args="));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY2(!r.stdoutBytes.contains(m_canaryArg), r.stdoutBytes.constData());
        QVERIFY2(r.stdoutBytes.contains("ps -e"), r.stdoutBytes.constData());
        QVERIFY2(r.stdoutBytes.count('\n') <= 5, r.stdoutBytes.constData());
    }

    void testHostPidsCannotBeSignalled_data() {
        QTest::addColumn<bool>("ownPid");
        QTest::newRow("canary") << false;
        QTest::newRow("this test") << true;
    }
    void testHostPidsCannotBeSignalled() {
        QFETCH(bool, ownPid);
        const qint64 hostPid = ownPid ? QCoreApplication::applicationPid() : m_canary.processId();
        QVERIFY(hostPid > 100); // pids that small would exist inside too
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("kill -0 %1 2>/dev/null && echo reachable || echo unreachable; "
                                 "[ -e /proc/%1 ] && echo visible || echo invisible")
                      .arg(hostPid));
        QCOMPARE(r.stdoutBytes, QByteArray("unreachable\ninvisible\n"));
        QCOMPARE(m_canary.state(), QProcess::Running);
    }

private:
    AgentProcess m_agent;
    QString m_ws;
    QProcess m_canary;
    QByteArray m_canaryArg;
};

QTEST_GUILESS_MAIN(TestSandboxProcessIsolation)
#include "test_sandbox_processes.moc"
