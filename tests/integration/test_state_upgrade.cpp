// A state directory written by the predecessor release opens with this agent (docs/STORE.md
// "Migrations"): tests/fixtures/state-round1/ was made by the round-1 runbox-agent (commit
// 9a50433) with tests/fixtures/make-state-round1.sh — a strong workspace with an uploaded file
// and a file written by an execution, three managed executions (exit 0 with stdout and stderr,
// exit 3, cancelled), a sync exec and changed quotas. This agent must migrate runbox.db to the
// schema it writes and keep every one of them: the records and their logs byte for byte, the
// workspace, its files and its token, the quotas; and the workspace must still run code.
#include "agent/store/Migrations.h"
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

const QString kFixture = QStringLiteral(RUNBOX_SOURCE_DIR "/tests/fixtures/state-round1");

QString fixtureWorkspace() {
    QFile f(QStringLiteral(RUNBOX_SOURCE_DIR "/tests/fixtures/state-round1.workspace"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLatin1(f.readAll().trimmed());
}

// Copies the fixture over @p stateDir's (emptied) contents, owned by @p uid. Git keeps only the
// executable bit, so the modes the agent insists on (0600 secrets, 0700 directories) are set the
// way the round-1 agent left them.
bool installFixture(const QString& stateDir, uid_t uid, QString* error) {
    QDir state(stateDir);
    for (const QString& entry :
         state.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
        if (!QFileInfo(state.filePath(entry)).isDir()
                ? !state.remove(entry)
                : !QDir(state.filePath(entry)).removeRecursively()) {
            *error = QStringLiteral("cannot empty %1").arg(state.filePath(entry));
            return false;
        }
    QDirIterator it(kFixture, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString from = it.next();
        const QString rel = QDir(kFixture).relativeFilePath(from);
        const QString to = state.filePath(rel);
        const bool isDir = it.fileInfo().isDir();
        if (isDir ? !state.mkpath(rel) : !QFile::copy(from, to)) {
            *error = QStringLiteral("cannot copy %1").arg(rel);
            return false;
        }
        const QByteArray path = QFile::encodeName(to);
        const bool secret =
            rel.endsWith(QLatin1String(".token")) || rel.endsWith(QLatin1String(".key"));
        ::chmod(path.constData(), isDir ? 0700 : secret ? 0600 : 0644);
        if (::getuid() == 0 && ::chown(path.constData(), uid, uid) != 0) {
            *error = QStringLiteral("cannot chown %1").arg(rel);
            return false;
        }
    }
    return true;
}

// PRAGMA user_version read from the file's header without opening it with SQLite (which may
// add -wal/-shm files beside it): four big-endian bytes at offset 60
// (https://sqlite.org/fileformat2.html#database_header). For a WAL file the header is current
// once the writer checkpointed at its clean stop, as both agents do. -1 when unreadable.
int schemaVersionOf(const QString& dbPath) {
    QFile f(dbPath);
    if (!f.open(QIODevice::ReadOnly) || !f.seek(60))
        return -1;
    const QByteArray b = f.read(4);
    if (b.size() != 4)
        return -1;
    return int((uchar(b[0]) << 24) | (uchar(b[1]) << 16) | (uchar(b[2]) << 8) | uchar(b[3]));
}

} // namespace

class TestStateUpgrade final : public QObject {
    Q_OBJECT
    AgentProcess m_agent;
    QString m_workspace;

private Q_SLOTS:
    void initTestCase() {
        m_workspace = fixtureWorkspace();
        QVERIFY2(!m_workspace.isEmpty(), "tests/fixtures/state-round1.workspace is missing");
        // A first start makes the state directory (owned by the agent's user); the fixture then
        // replaces what it wrote.
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString() + m_agent.log()));
        QVERIFY(m_agent.stop());
        QString error;
        QVERIFY2(installFixture(m_agent.stateDir(), m_agent.agentUid(), &error), qPrintable(error));
        const int fixtureVersion =
            schemaVersionOf(m_agent.stateDir() + QStringLiteral("/runbox.db"));
        QVERIFY2(fixtureVersion > 0 && fixtureVersion < store::migrations::latestVersion(),
                 qPrintable(QStringLiteral("fixture schema %1, this build %2: the fixture must be "
                                           "an older schema for this test to test a migration")
                                .arg(fixtureVersion)
                                .arg(store::migrations::latestVersion())));
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString() + m_agent.log()));
    }

    void workspaceIsKept() {
        const ApiResponse r = m_agent.client()->call("GET", "/v1/workspaces");
        QVERIFY2(r.ok(), r.body.constData());
        QStringList ids;
        for (const QJsonValue& w : r.json().value("workspaces").toArray())
            ids << w.toObject().value("id").toString();
        QCOMPARE(ids, QStringList{m_workspace});
    }

    void filesAreKept() {
        const QByteArray base = "/v1/workspaces/" + m_workspace.toUtf8() + "/files/";
        ApiResponse r = m_agent.client()->call("GET", base + "notes/kept.txt");
        QVERIFY2(r.ok(), r.body.constData());
        QCOMPARE(r.body, QByteArray("kept across the upgrade\n"));
        r = m_agent.client()->call("GET", base + "out/made.txt");
        QVERIFY2(r.ok(), r.body.constData());
        QCOMPARE(r.body, QByteArray("made\n"));
    }

    void executionRecordsAreKept_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("state");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("stdoutBytes");
        QTest::addColumn<QByteArray>("stderrBytes");
        QTest::newRow("completed") << "exec-ok"
                                   << "completed" << 0 << QByteArray("line 1\nline 2\nline 3\n")
                                   << QByteArray("to-stderr\n");
        QTest::newRow("failed") << "exec-fails"
                                << "failed" << 3 << QByteArray("failing\n") << QByteArray();
        QTest::newRow("cancelled") << "exec-cancelled"
                                   << "cancelled" << -1 << QByteArray() << QByteArray();
    }
    void executionRecordsAreKept() {
        QFETCH(QString, id);
        QFETCH(QString, state);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, stdoutBytes);
        QFETCH(QByteArray, stderrBytes);
        const QJsonObject record = executionRecord(*m_agent.client(), id);
        QVERIFY2(!record.isEmpty(), qPrintable(id));
        QCOMPARE(record.value("state").toString(), state);
        QCOMPARE(record.value("workspace").toString(), m_workspace);
        if (exitCode >= 0)
            QCOMPARE(record.value("exitCode").toInt(-1), exitCode);
        const LogCapture log = readLog(*m_agent.client(), id, 0, false);
        QCOMPARE(log.status, 200);
        QCOMPARE(log.stdoutBytes, stdoutBytes);
        QCOMPARE(log.stderrBytes, stderrBytes);
        QVERIFY(log.endsWithExit());
    }

    void quotasAreKept() {
        const ApiResponse r = m_agent.client()->call("GET", "/v1/settings/quotas");
        QVERIFY2(r.ok(), r.body.constData());
        const QJsonObject q = r.json().value("quotas").toObject().isEmpty()
                                  ? r.json()
                                  : r.json().value("quotas").toObject();
        QCOMPARE(q.value("maxOutputBytes").toInteger(), qint64(64) << 20);
        QCOMPARE(q.value("defaultExecutionTimeoutMs").toInteger(), qint64(15 * 60 * 1000));
        QCOMPARE(q.value("maxConcurrentExecutions").toInteger(), qint64(3));
    }

    void oldWorkspaceRunsNewExecutions() {
        const ExecOutcome sync = m_agent.shell(m_workspace, QStringLiteral("cat notes/kept.txt"));
        QCOMPARE(sync.exitCode(), 0);
        QCOMPARE(sync.stdoutBytes, QByteArray("kept across the upgrade\n"));
        const ApiResponse submitted = submitExecution(*m_agent.client(), m_workspace,
                                                      {{"kind", "shell"},
                                                       {"code", "cat out/made.txt"},
                                                       {"executionId", "exec-after-upgrade"}});
        QVERIFY2(submitted.ok(), submitted.body.constData());
        const QJsonObject done = waitUntilFinal(*m_agent.client(), "exec-after-upgrade");
        QCOMPARE(done.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(readLog(*m_agent.client(), "exec-after-upgrade", 0, false).stdoutBytes,
                 QByteArray("made\n"));
        // Listing shows old and new executions together, newest first.
        const ApiResponse list = m_agent.client()->call("GET", "/v1/executions?limit=10");
        QVERIFY2(list.ok(), list.body.constData());
        QStringList ids;
        for (const QJsonValue& e : list.json().value("executions").toArray())
            ids << e.toObject().value("executionId").toString();
        QCOMPARE(ids.value(0), QStringLiteral("exec-after-upgrade"));
        for (const char* old : {"exec-ok", "exec-fails", "exec-cancelled"})
            QVERIFY2(ids.contains(QLatin1String(old)), qPrintable(ids.join(' ')));
    }
    // Last: the header is current once the agent has checkpointed at its clean stop.
    void schemaIsMigratedToThisBuilds() {
        QVERIFY(m_agent.stop());
        QCOMPARE(schemaVersionOf(m_agent.stateDir() + QStringLiteral("/runbox.db")),
                 store::migrations::latestVersion());
    }
};

QTEST_MAIN(TestStateUpgrade)
#include "test_state_upgrade.moc"
