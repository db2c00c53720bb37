#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/Migrations.h"
#include "agent/store/Transaction.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace runbox::store;

namespace {

QVariant scalar(QSqlDatabase db, const QString& sql) {
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QVariant();
    return query.value(0);
}

QStringList columns(QSqlDatabase db, const QString& table) {
    QStringList names;
    QSqlQuery query(db);
    query.exec(QStringLiteral("PRAGMA table_info(%1)").arg(table));
    while (query.next())
        names.append(query.value(1).toString());
    return names;
}

/// Builds a database file at schema @p version directly (no Database object involved).
void createAtVersion(const QString& dir, int version) {
    const QString name = QStringLiteral("raw-%1").arg(version);
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(dir + QStringLiteral("/runbox.db"));
        QVERIFY(db.open());
        int reached = -1;
        QString error;
        QVERIFY2(migrations::migrate(db, version, &reached, &error), qPrintable(error));
        QCOMPARE(reached, version);
        QSqlQuery query(db);
        if (version >= 1) {
            QVERIFY(query.exec(
                QStringLiteral("INSERT INTO workspaces (id, isolation, created_ms, root_path)"
                               " VALUES ('w1', 'strong', 1, '/tmp/w1')")));
            QVERIFY(query.exec(QStringLiteral(
                "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
                " VALUES ('old-run', 'w1', 'shell', 'completed', 5)")));
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

} // namespace

class TestStoreDatabase final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testEmptyDirectoryMigratesFromV0ToLatest() {
        QTemporaryDir dir;
        QString error;
        auto db = Database::open(dir.path() + QStringLiteral("/state"), &error);
        QVERIFY2(db, qPrintable(error));
        QCOMPARE(db->schemaVersion(), migrations::latestVersion());
        QCOMPARE(migrations::latestVersion(), migrations::all().size());
        QSqlDatabase c = db->connection();
        QCOMPARE(scalar(c, QStringLiteral("PRAGMA user_version")).toInt(),
                 migrations::latestVersion());
        for (const QString& table : {QStringLiteral("workspaces"), QStringLiteral("executions"),
                                     QStringLiteral("settings"), QStringLiteral("audit")})
            QVERIFY2(!columns(c, table).isEmpty(), qPrintable(table));
    }

    void testEachMigrationStepKeepsData() {
        // An old file at every earlier version is brought forward with its rows intact.
        for (int version = 1; version < migrations::latestVersion(); ++version) {
            QTemporaryDir dir;
            createAtVersion(dir.path(), version);
            QString error;
            auto db = Database::open(dir.path(), &error);
            QVERIFY2(db, qPrintable(error));
            QCOMPARE(db->schemaVersion(), migrations::latestVersion());
            QCOMPARE(scalar(db->connection(), QStringLiteral("SELECT state FROM executions WHERE "
                                                             "execution_id = 'old-run'"))
                         .toString(),
                     QStringLiteral("completed"));
        }
    }

    void testSchemaFourOpensWithItsRecordsAndTakesBrokerJobs() {
        // A state directory of the previous schema (4: kind was shell|python|r|argv only) is
        // rebuilt by migration 5 with every row, its seq, its indexes and its triggers.
        QTemporaryDir dir;
        createAtVersion(dir.path(), 4);
        qint64 seqBefore = 0;
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), "v4-check");
            raw.setDatabaseName(dir.path() + QStringLiteral("/runbox.db"));
            QVERIFY(raw.open());
            QSqlQuery query(raw);
            // Positive control: schema 4 refuses the new kind.
            QVERIFY(!query.exec(QStringLiteral(
                "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
                " VALUES ('job-v4', 'w1', 'broker', 'queued', 6)")));
            QVERIFY(query.exec(QStringLiteral(
                "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms,"
                " started_ms) VALUES ('was-running', 'w1', 'argv', 'running', 7, 8)")));
            seqBefore = scalar(raw, QStringLiteral("SELECT seq FROM executions WHERE "
                                                   "execution_id = 'was-running'"))
                            .toLongLong();
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v4-check"));
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY2(db, qPrintable(error));
        QCOMPARE(db->schemaVersion(), migrations::latestVersion());
        QSqlDatabase c = db->connection();
        QCOMPARE(scalar(c, QStringLiteral("SELECT count(*) FROM executions")).toInt(), 2);
        QCOMPARE(scalar(c, QStringLiteral("SELECT seq FROM executions WHERE execution_id = "
                                          "'was-running'"))
                     .toLongLong(),
                 seqBefore);
        QCOMPARE(scalar(c, QStringLiteral("SELECT started_ms FROM executions WHERE execution_id"
                                          " = 'was-running'"))
                     .toLongLong(),
                 8);
        QSqlQuery query(c);
        QVERIFY2(query.exec(QStringLiteral(
                     "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
                     " VALUES ('job-v5', 'w1', 'broker', 'queued', 9)")),
                 qPrintable(query.lastError().text()));
        // New rows never reuse a seq, and the constraints still hold.
        QVERIFY(scalar(c, QStringLiteral("SELECT seq FROM executions WHERE execution_id = "
                                         "'job-v5'"))
                    .toLongLong() > seqBefore);
        QVERIFY(!query.exec(QStringLiteral(
            "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
            " VALUES ('bad-kind', 'w1', 'bogus', 'queued', 9)")));
        QVERIFY(!query.exec(QStringLiteral(
            "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
            " VALUES ('bad-ws', 'no-such-workspace', 'broker', 'queued', 9)")));
        QVERIFY(!query.exec(QStringLiteral("DELETE FROM executions WHERE execution_id = "
                                           "'old-run'")));
        for (const char* index : {"executions_by_created", "executions_by_workspace",
                                  "executions_by_state", "executions_by_kind"})
            QCOMPARE(scalar(c, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type ="
                                              " 'index' AND name = '%1'")
                                   .arg(QLatin1String(index)))
                         .toInt(),
                     1);
        QVERIFY(columns(c, QStringLiteral("execution_outputs")).contains(QStringLiteral("sha256")));
    }

    void testSchemaFiveOpensWithItsRecordsAndTakesUsageAndMemoryExceeded() {
        // A state directory of the previous release (schema 5: no memory_exceeded, no usage) is
        // rebuilt by migration 6; its records read back with usage unknown (null).
        QTemporaryDir dir;
        createAtVersion(dir.path(), 5);
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), "v5-check");
            raw.setDatabaseName(dir.path() + QStringLiteral("/runbox.db"));
            QVERIFY(raw.open());
            QSqlQuery query(raw);
            // Positive control: schema 5 refuses the new state.
            QVERIFY(!query.exec(QStringLiteral(
                "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
                " VALUES ('oom-v5', 'w1', 'shell', 'memory_exceeded', 6)")));
            QVERIFY(query.exec(QStringLiteral(
                "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms,"
                " started_ms) VALUES ('running-v5', 'w1', 'shell', 'running', 7, 8)")));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v5-check"));
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY2(db, qPrintable(error));
        QCOMPARE(db->schemaVersion(), migrations::latestVersion());
        ExecutionRepository repository(*db);
        ExecutionRecord old;
        QVERIFY(!repository.get(QStringLiteral("old-run"), &old));
        QCOMPARE(toString(old.state), QStringLiteral("completed"));
        QVERIFY(old.usage == ExecutionUsage{});
        QVERIFY(old.toJson().value("usage").toObject().value("peakMemoryBytes").isNull());
        ExecutionOutcome outcome;
        outcome.state = ExecutionState::MemoryExceeded;
        outcome.usage.peakMemoryBytes = 536870912;
        outcome.usage.cpuUserMs = 12;
        outcome.usage.cpuSystemMs = 3;
        outcome.usage.peakProcesses = 9;
        QVERIFY(!repository.finish(QStringLiteral("running-v5"), outcome));
        ExecutionRecord ended;
        QVERIFY(!repository.get(QStringLiteral("running-v5"), &ended));
        QCOMPARE(toString(ended.state), QStringLiteral("memory_exceeded"));
        QVERIFY(ended.usage == outcome.usage);
        QCOMPARE(ended.startedMs.value_or(0), qint64(8));
        QVERIFY(!repository.get(QStringLiteral("old-run"), &old)); // kept, still completed
        QCOMPARE(toString(old.state), QStringLiteral("completed"));
    }

    void testSchemaSixOpensWithItsRecordsAndTakesProvisionKindAndEnvironments() {
        // A state directory of the previous release (schema 6) is rebuilt by migration 7: its
        // records stay, kind 'provision' and the environment tables appear.
        QTemporaryDir dir;
        createAtVersion(dir.path(), 6);
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), "v6-check");
            raw.setDatabaseName(dir.path() + QStringLiteral("/runbox.db"));
            QVERIFY(raw.open());
            QSqlQuery query(raw);
            // Positive control: schema 6 refuses the new kind.
            QVERIFY(!query.exec(QStringLiteral(
                "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
                " VALUES ('build-v6', 'w1', 'provision', 'queued', 6)")));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v6-check"));
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY2(db, qPrintable(error));
        QCOMPARE(db->schemaVersion(), migrations::latestVersion());
        ExecutionRepository repository(*db);
        ExecutionRecord old;
        QVERIFY(!repository.get(QStringLiteral("old-run"), &old));
        QCOMPARE(toString(old.state), QStringLiteral("completed"));
        NewExecution build;
        build.executionId = QStringLiteral("build-v7");
        build.workspaceId = QStringLiteral("w1");
        build.kind = ExecutionKind::Provision;
        ExecutionRepository::InsertResult inserted;
        QVERIFY(!repository.insert(build, &inserted));
        QCOMPARE(toString(inserted.record.kind), QStringLiteral("provision"));
        QSqlDatabase c = db->connection();
        QVERIFY(columns(c, QStringLiteral("environments")).contains("current_revision_id"));
        QVERIFY(columns(c, QStringLiteral("environment_revisions")).contains("snapshot_sha256"));
        // The kept-forever trigger is made again after the rebuild.
        QSqlQuery del(c);
        QVERIFY(!del.exec(QStringLiteral("DELETE FROM executions WHERE execution_id='old-run'")));
    }

    void testReopeningDoesNotMigrateAgain() {
        QTemporaryDir dir;
        QString error;
        { QVERIFY(Database::open(dir.path(), &error)); }
        auto db = Database::open(dir.path(), &error);
        QVERIFY2(db, qPrintable(error));
        QCOMPARE(db->schemaVersion(), migrations::latestVersion());
    }

    void testNewerSchemaIsRefused() {
        QTemporaryDir dir;
        QString error;
        {
            auto db = Database::open(dir.path(), &error);
            QVERIFY(db);
            QSqlQuery query(db->connection());
            QVERIFY(query.exec(
                QStringLiteral("PRAGMA user_version = %1").arg(migrations::latestVersion() + 1)));
        }
        QVERIFY(!Database::open(dir.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("newer")), qPrintable(error));
    }

    void testForeignDatabaseIsRefused() {
        QTemporaryDir dir;
        createAtVersion(dir.path(), 0);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), "foreign");
            db.setDatabaseName(dir.path() + QStringLiteral("/runbox.db"));
            QVERIFY(db.open());
            QSqlQuery(db).exec(QStringLiteral("CREATE TABLE something (x)"));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("foreign"));
        QString error;
        QVERIFY(!Database::open(dir.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("not a Runbox database")), qPrintable(error));
    }

    void testGarbageFileIsAnErrorNotACrash() {
        QTemporaryDir dir;
        QFile file(dir.path() + QStringLiteral("/runbox.db"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(8192, 'x'));
        file.close();
        QString error;
        QVERIFY(!Database::open(dir.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("not a database")), qPrintable(error));
    }

    void testConnectionRunsWalWithForeignKeys() {
        QTemporaryDir dir;
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY(db);
        QSqlDatabase c = db->connection();
        QCOMPARE(scalar(c, QStringLiteral("PRAGMA journal_mode")).toString(),
                 QStringLiteral("wal"));
        QCOMPARE(scalar(c, QStringLiteral("PRAGMA foreign_keys")).toInt(), 1);
        QCOMPARE(scalar(c, QStringLiteral("PRAGMA synchronous")).toInt(), 1); // NORMAL
        {
            Transaction tx(*db, Durability::Acknowledged);
            QVERIFY(tx.begun());
            QCOMPARE(scalar(tx.db(), QStringLiteral("PRAGMA synchronous")).toInt(), 2); // FULL
            QVERIFY(!tx.commit());
        }
        QCOMPARE(scalar(c, QStringLiteral("PRAGMA synchronous")).toInt(), 1);
        // Foreign keys are enforced: an execution in a workspace that does not exist.
        QSqlQuery query(c);
        QVERIFY(!query.exec(QStringLiteral(
            "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
            " VALUES ('x', 'nowhere', 'shell', 'queued', 1)")));
    }

    void testWorkspacesHaveNoEnvColumn() {
        QTemporaryDir dir;
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY(db);
        const QStringList names = columns(db->connection(), QStringLiteral("workspaces"));
        QVERIFY(names.contains(QStringLiteral("root_path"))); // positive control
        for (const QString& name : names)
            QVERIFY2(!name.contains(QStringLiteral("env"), Qt::CaseInsensitive), qPrintable(name));
    }

    void testExecutionRowsCannotBeDeletedOrRenamed() {
        QTemporaryDir dir;
        createAtVersion(dir.path(), migrations::latestVersion());
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY(db);
        QSqlQuery query(db->connection());
        QVERIFY(query.exec(QStringLiteral("UPDATE executions SET state = 'completed'"))); // control
        QVERIFY(!query.exec(QStringLiteral("DELETE FROM executions")));
        QVERIFY(!query.exec(QStringLiteral("UPDATE executions SET execution_id = 'renamed'")));
        QCOMPARE(scalar(db->connection(), QStringLiteral("SELECT count(*) FROM executions WHERE "
                                                         "execution_id = 'old-run'"))
                     .toInt(),
                 1);
        // Retention (schema 8): only a finished row whose id is in execution_tombstones may go,
        // and tombstones are kept forever.
        QVERIFY(query.exec(QStringLiteral(
            "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms)"
            " VALUES ('still-running', 'w1', 'shell', 'running', 6)")));
        QVERIFY(query.exec(QStringLiteral(
            "INSERT INTO execution_tombstones (execution_id, workspace_id, kind, created_ms,"
            " removed_ms, reason) VALUES ('still-running', 'w1', 'shell', 6, 7, 'age'),"
            " ('old-run', 'w1', 'shell', 5, 7, 'age')")));
        QVERIFY(!query.exec(
            QStringLiteral("DELETE FROM executions WHERE execution_id = 'still-running'")));
        QVERIFY2(
            query.exec(QStringLiteral("DELETE FROM executions WHERE execution_id = 'old-run'")),
            qPrintable(query.lastError().text()));
        QCOMPARE(
            scalar(db->connection(), QStringLiteral("SELECT count(*) FROM executions")).toInt(), 1);
        QVERIFY(!query.exec(QStringLiteral("DELETE FROM execution_tombstones")));
        QVERIFY(!query.exec(
            QStringLiteral("UPDATE execution_tombstones SET execution_id = 'renamed'")));
        QVERIFY(query.exec(QStringLiteral("UPDATE execution_tombstones SET logs_removed = 1")));
    }

    void testEachThreadGetsItsOwnConnectionRemovedWithTheThread() {
        QTemporaryDir dir;
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY(db);
        const QString mainName = db->connection().connectionName();
        QCOMPARE(db->connection().connectionName(), mainName); // stable within a thread
        QString workerName;
        bool workerOpen = false;
        QThread* worker = QThread::create([&] {
            QSqlDatabase c = db->connection();
            workerName = c.connectionName();
            workerOpen = c.isOpen() && scalar(c, QStringLiteral("SELECT 1")).toInt() == 1;
        });
        worker->start();
        QVERIFY(worker->wait(10000));
        QVERIFY(workerOpen);
        QVERIFY(!workerName.isEmpty());
        QVERIFY(workerName != mainName);
        QVERIFY(!QSqlDatabase::contains(workerName)); // removed when the thread finished
        QVERIFY(QSqlDatabase::contains(mainName));
        delete worker;
        db.reset();
        QVERIFY(!QSqlDatabase::contains(mainName));
    }

    void testCachedStatementsArePreparedOncePerThreadAndRebound() {
        QTemporaryDir dir;
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY(db);
        const QString sql =
            QStringLiteral("INSERT INTO settings (key, value, updated_ms) VALUES (?, ?, 0)");
        QSqlQuery* first = nullptr;
        for (int i = 0; i < 3; ++i) {
            Transaction tx(*db, Durability::Normal);
            QVERIFY(tx.begun());
            QSqlQuery& insert = tx.prepareCached(sql);
            if (!first)
                first = &insert;
            QCOMPARE(&insert, first); // the same prepared statement every time
            insert.addBindValue(QStringLiteral("key-%1").arg(i));
            insert.addBindValue(QStringLiteral("value-%1").arg(i));
            QVERIFY2(insert.exec(), qPrintable(insert.lastError().text()));
            QVERIFY(!tx.commit());
        }
        for (int i = 0; i < 3; ++i)
            QCOMPARE(
                scalar(db->connection(),
                       QStringLiteral("SELECT value FROM settings WHERE key = 'key-%1'").arg(i))
                    .toString(),
                QStringLiteral("value-%1").arg(i));
        // A rolled-back transaction leaves the cached statement usable and writes nothing.
        {
            Transaction tx(*db, Durability::Normal);
            QSqlQuery& insert = tx.prepareCached(sql);
            insert.addBindValue(QStringLiteral("dropped"));
            insert.addBindValue(QStringLiteral("x"));
            QVERIFY(insert.exec());
        }
        QCOMPARE(scalar(db->connection(), QStringLiteral("SELECT count(*) FROM settings")).toInt(),
                 3);
        // Another thread gets a statement of its own, on its own connection.
        QSqlQuery* workers = nullptr;
        bool workerOk = false;
        QThread* worker = QThread::create([&] {
            Transaction tx(*db, Durability::Normal);
            QSqlQuery& insert = tx.prepareCached(sql);
            workers = &insert;
            insert.addBindValue(QStringLiteral("from-worker"));
            insert.addBindValue(QStringLiteral("w"));
            workerOk = tx.begun() && insert.exec() && !tx.commit();
        });
        worker->start();
        QVERIFY(worker->wait(10000));
        delete worker;
        QVERIFY(workerOk);
        QVERIFY(workers != first);
        QCOMPARE(scalar(db->connection(), QStringLiteral("SELECT count(*) FROM settings")).toInt(),
                 4);
    }

    void testConcurrentWritersWaitInsteadOfFailing() {
        QTemporaryDir dir;
        QString error;
        auto db = Database::open(dir.path(), &error);
        QVERIFY(db);
        constexpr int kThreads = 4, kRows = 50;
        QList<QThread*> threads;
        QAtomicInt failures = 0;
        for (int t = 0; t < kThreads; ++t) {
            threads.append(QThread::create([&, t] {
                for (int i = 0; i < kRows; ++i) {
                    Transaction tx(*db, Durability::Normal);
                    QSqlQuery q = tx.prepare(QStringLiteral(
                        "INSERT INTO settings (key, value, updated_ms) VALUES (?, '1', 0)"));
                    q.addBindValue(QStringLiteral("k-%1-%2").arg(t).arg(i));
                    if (!tx.begun() || !q.exec() || tx.commit())
                        failures.fetchAndAddRelaxed(1);
                }
            }));
            threads.last()->start();
        }
        for (QThread* thread : threads) {
            QVERIFY(thread->wait(60000));
            delete thread;
        }
        QCOMPARE(failures.loadRelaxed(), 0);
        QCOMPARE(scalar(db->connection(), QStringLiteral("SELECT count(*) FROM settings")).toInt(),
                 kThreads * kRows);
    }
};

QTEST_GUILESS_MAIN(TestStoreDatabase)
#include "test_store_database.moc"
