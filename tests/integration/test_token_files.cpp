// Secret and token files read by the CLI and the agent (docs/contracts.md "Processes and
// start-up", "Pool credential"; shared/PrivateFile): `runbox --token-file` reads a 0600 file of
// its user and refuses a FIFO at once (exit 2) instead of hanging, and a 0644 one; the agent
// started with --pool-secret-file naming a FIFO stops with the reason instead of hanging before
// it logs anything. `runbox pool create` writes the fleet file 0600 whatever the umask.
#include "support/AgentProcess.h"
#include "support/CliRun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

bool writeFile(const QString& path, const QByteArray& data, mode_t mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

/// Uid ranges of this test's own (other root agents' tests may run at the same time).
AgentOptions withOwnUidRanges() {
    AgentOptions o;
    o.extraEnv = {{QStringLiteral("RUNBOX_STRONG_UID_FIRST"), QStringLiteral("1896000000")},
                  {QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096")},
                  {QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("58600")},
                  {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("64")}};
    return o;
}

} // namespace

class TestTokenFiles final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_agent.start(withOwnUidRanges()), qPrintable(m_agent.errorString()));
    }

    void testTheCliRefusesATokenFifoAtOnce() {
        const QString url = m_agent.baseUrl().toString();
        // Positive control: the agent's token in a 0600 file of this user.
        const QString token = m_dir.filePath("agent.token");
        QVERIFY(writeFile(token, m_agent.token() + '\n', 0600));
        CliResult r = runCli({"--url", url, "--token-file", token, "health"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // A FIFO: refused before anything is read, not a hang (the deadline kills a hung CLI:
        // exit -1).
        const QString fifo = m_dir.filePath("fifo.token");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        r = runCli({"--url", url, "--token-file", fifo, "health"}, 20000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--token-file") && r.err.contains("not a regular file"),
                 r.err.constData());
        // Others may read it.
        QVERIFY(::chmod(QFile::encodeName(token).constData(), 0644) == 0);
        r = runCli({"--url", url, "--token-file", token, "health"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("chmod 600"), r.err.constData());
    }

    void testTheAgentRefusesASecretFifoAtOnce() {
        QTemporaryDir dir;
        const QString secret = dir.filePath("pool.secret");
        const QString fifo = dir.filePath("fifo.secret");
        QVERIFY(writeFile(secret, QByteArray(64, 'a') + '\n', 0600));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        if (AgentProcess::runningAsRoot()) // the agent runs as nobody: its own files
            for (const QString& p : {dir.path(), secret, fifo})
                QVERIFY(::chown(QFile::encodeName(p).constData(), 65534, 65534) == 0);
        // Positive control: a 0600 secret of the agent's user; the agent starts.
        AgentProcess control;
        AgentOptions o = withOwnUidRanges();
        o.extraArgs = {"--pool", "pf", "--pool-secret-file", secret};
        QVERIFY2(control.start(o), qPrintable(control.errorString() + control.log()));
        QVERIFY(control.stop());
        // The FIFO: the agent stops with the reason (it hung before, logging nothing).
        AgentProcess agent;
        o.extraArgs = {"--pool", "pf", "--pool-secret-file", fifo};
        o.startTimeoutMs = 20000;
        QVERIFY(!agent.start(o));
        QVERIFY2(agent.log().contains("not a regular file"),
                 qPrintable(agent.errorString() + agent.log()));
    }

    void testPoolCreateWritesTheFleetFilePrivate() {
        QTemporaryDir home;
        const QString fleet = home.filePath("fleet.json");
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(home.filePath("config")));
        const mode_t umaskBefore = ::umask(022); // the usual umask: 0644 files
        const CliResult r = runCli({"--fleet", fleet, "pool", "create", "pc", "--per-host", "2",
                                    "--host", "h1=https://127.0.0.1:1"});
        ::umask(umaskBefore);
        qunsetenv("XDG_CONFIG_HOME");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QFile::exists(home.filePath("config/runbox/pools/pc.secret")));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(fleet).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        QFile file(fleet);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("\"pool\": \"pc\""));
    }
};

QTEST_GUILESS_MAIN(TestTokenFiles)
#include "test_token_files.moc"
