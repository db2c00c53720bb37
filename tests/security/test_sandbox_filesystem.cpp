// Host files outside what is bound are out of reach; /usr is read-only; the agent's own state
// (its token) is invisible.
#include "support/AgentProcess.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace runbox::testsupport;

class TestSandboxFilesystemIsolation final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testPositiveControlWorkspaceWritableAndUsrReadable() {
        const ExecOutcome r =
            m_agent.python(m_ws, QStringLiteral("open('/workspace/w.txt', 'w').write('ok')\n"
                                                "print(open('/workspace/w.txt').read(), "
                                                "len(open('/usr/bin/python3', 'rb').read(4)))"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("ok 4\n"));
        // And the probe below really distinguishes: it reports a file that exists as readable.
        const ExecOutcome probe = m_agent.python(m_ws, probeScript("/usr/bin/python3"));
        QCOMPARE(probe.stdoutBytes, QByteArray("readable\n"));
    }

    void testHostSecretsAreUnreachable_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("/etc/shadow") << QStringLiteral("/etc/shadow");
        QTest::newRow("/etc/gshadow") << QStringLiteral("/etc/gshadow");
        QTest::newRow("/root") << QStringLiteral("/root");
        QTest::newRow("/root/.bashrc") << QStringLiteral("/root/.bashrc");
        QTest::newRow("/home") << QStringLiteral("/home");
        QTest::newRow("/etc/ssh") << QStringLiteral("/etc/ssh");
        QTest::newRow("/var") << QStringLiteral("/var");
        QTest::newRow("/work") << QStringLiteral("/work");
        QTest::newRow("agent token") << QStringLiteral("STATE/agent.token");
        QTest::newRow("agent state dir") << QStringLiteral("STATE");
    }
    void testHostSecretsAreUnreachable() {
        QFETCH(QString, path);
        path.replace(QLatin1String("STATE"), m_agent.stateDir());
        const ExecOutcome r = m_agent.python(m_ws, probeScript(path.toUtf8()));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("unreachable\n"));
    }

    void testHostSecretsExistOnTheHost() {
        // Positive control for the list above: these are real targets on this host.
        if (AgentProcess::runningAsRoot())
            QVERIFY(QFile::exists(QStringLiteral("/etc/shadow")));
        QVERIFY(QDir(QStringLiteral("/root")).exists());
        QVERIFY(QFile::exists(m_agent.stateDir() + QStringLiteral("/agent.token")));
    }

    void testUsrIsReadOnly() {
        const ExecOutcome r = m_agent.python(
            m_ws, QStringLiteral("import errno\n"
                                 "for p in ('/usr/bin/runbox-evil', '/usr/lib/python3/x.py', "
                                 "'/bin/runbox-evil', '/usr/bin/python3'):\n"
                                 "    try:\n"
                                 "        open(p, 'a')\n"
                                 "        print('WRITABLE', p)\n"
                                 "    except OSError as e:\n"
                                 "        print(errno.errorcode[e.errno])\n"
                                 "for line in open('/proc/self/mountinfo'):\n"
                                 "    f = line.split()\n"
                                 "    if f[4] == '/usr':\n"
                                 "        print('usr-mount', f[5].split(',')[0])\n"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY2(!r.stdoutBytes.contains("WRITABLE"), r.stdoutBytes.constData());
        // Creating files fails on the read-only mount itself (EROFS), not only on permissions;
        // the existing root-owned file is refused either way.
        const QList<QByteArray> lines = r.stdoutBytes.split('\n');
        QVERIFY2(lines.size() >= 5, r.stdoutBytes.constData());
        QCOMPARE(lines[0], QByteArray("EROFS"));
        QCOMPARE(lines[1], QByteArray("EROFS"));
        QCOMPARE(lines[2], QByteArray("EROFS"));
        QVERIFY2(lines[3] == "EROFS" || lines[3] == "EACCES", lines[3].constData());
        QVERIFY2(r.stdoutBytes.contains("usr-mount ro\n"), r.stdoutBytes.constData());
        QVERIFY(!QFile::exists(QStringLiteral("/usr/bin/runbox-evil")));
    }

    /// bwrap's root is a tmpfs of its own, unsized and counted by no bound: an attack wrote 2 GiB
    /// to /etc in a run under a 512 MiB memory limit and it completed. It is read-only now.
    void testRootIsReadOnlyOutsideTmpAndWorkspace() {
        const ExecOutcome r = m_agent.python(
            m_ws, QStringLiteral("import errno\n"
                                 "for p in ('/etc/big', '/big', '/var/x', '/tmp/ok', "
                                 "'/workspace/ok', '/dev/shm/ok'):\n"
                                 "    try:\n"
                                 "        open(p, 'w').write('x')\n"
                                 "        print('written', p)\n"
                                 "    except OSError as e:\n"
                                 "        print(errno.errorcode[e.errno], p)\n"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        for (const char* line : {"EROFS /etc/big", "EROFS /big"})
            QVERIFY2(r.stdoutBytes.contains(line), r.stdoutBytes.constData());
        QVERIFY2(!r.stdoutBytes.contains("written /var/x"), r.stdoutBytes.constData());
        // Positive control: the writable mounts still are.
        for (const char* line : {"written /tmp/ok", "written /workspace/ok", "written /dev/shm/ok"})
            QVERIFY2(r.stdoutBytes.contains(line), r.stdoutBytes.constData());
    }

    void testWorkspaceSymlinkDoesNotLeadOut() {
        // A symlink in the workspace resolves inside the sandbox's view, not the host's.
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("ln -sf /etc/shadow /workspace/shadow-link; "
                                 "cat /workspace/shadow-link 2>/dev/null || echo unreachable"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("unreachable\n"));
    }

private:
    /// Python that prints "readable" when @p path can be opened or listed, else "unreachable".
    static QString probeScript(const QByteArray& path) {
        return QStringLiteral("import os\np = %1\ntry:\n"
                              "    os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read(1)\n"
                              "    print('readable')\n"
                              "except OSError:\n"
                              "    print('unreachable')\n")
            .arg(QString::fromLatin1("'" + path + "'"));
    }

    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestSandboxFilesystemIsolation)
#include "test_sandbox_filesystem.moc"
