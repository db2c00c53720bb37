// store::ExecutionRetention against a real temporary database and log store, with a test-double
// clock: a jump past the age bound removes exactly the finished executions that are due (never a
// queued or running one), the size bound removes the oldest finished first until it holds, an
// execution finishing over the bound triggers a pass, each pass writes its audit row, and a
// removed id stays taken.
#include "agent/http/ErrorStatus.h"
#include "agent/store/Database.h"
#include "agent/store/ExecutionOutputRepository.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/ExecutionRetention.h"
#include "agent/store/LogStore.h"
#include "agent/store/SettingsRepository.h"
#include "agent/store/WorkspaceRepository.h"

#include <QDir>
#include <QElapsedTimer>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox::store;

namespace {

constexpr qint64 kDayMs = qint64(86400) * 1000;
constexpr qint64 kT0 = qint64(1700000000000); // the test clock's start, ms since the epoch
constexpr qsizetype kOutputBytes = 10000;

} // namespace

class TestExecutionRetention final : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<LogStore> m_logs;
    qint64 m_now = kT0;

    ExecutionRetention::Clock clock() {
        return [this] { return m_now; };
    }
    ExecutionRepository repo() { return ExecutionRepository(*m_db); }

    /// A queued execution created at @p createdMs with its log (@p outputBytes of stdout).
    bool create(const QString& id, qint64 createdMs, qsizetype outputBytes = kOutputBytes) {
        NewExecution e;
        e.executionId = id;
        e.workspaceId = QStringLiteral("ws1");
        e.kind = ExecutionKind::Shell;
        e.createdMs = createdMs;
        ExecutionRepository::InsertResult inserted;
        if (repo().insert(e, &inserted) || inserted.duplicate || m_logs->create(id, 0))
            return false;
        return outputBytes == 0 ||
               m_logs->append(id, LogStream::Stdout, QByteArray(outputBytes, 'x')) >= 0;
    }
    bool start(const QString& id, qint64 startedMs) {
        return !repo().markRunning(id, startedMs, {});
    }
    /// Log first, then the record (as the agent does).
    bool finish(const QString& id, qint64 finishedMs) {
        ExecutionOutcome outcome;
        outcome.state = ExecutionState::Completed;
        outcome.finishedMs = finishedMs;
        outcome.exitCode = 0;
        return !m_logs->finish(id) && !repo().finish(id, outcome);
    }
    bool finishedExecution(const QString& id, qint64 createdMs, qint64 finishedMs) {
        return create(id, createdMs) && start(id, createdMs) && finish(id, finishedMs);
    }
    bool exists(const QString& id) {
        ExecutionRecord r;
        return !repo().get(id, &r);
    }
    bool logFilesExist(const QString& id) {
        return !QDir(m_logs->logsDir()).entryList({id + QStringLiteral(".log*")}).isEmpty();
    }
    qint64 logBytes(const QString& id) { return m_logs->diskBytes({id}).value(id); }
    QList<AuditEntry> retentionAudit() {
        QList<AuditEntry> rows;
        SettingsRepository settings(*m_db);
        if (settings.audit(QLatin1String(ExecutionRetention::kAuditKey), 0, 100, &rows))
            return {};
        return rows;
    }

    int scalarInt(const QString& sql) {
        QSqlQuery query(m_db->connection());
        return query.exec(sql) && query.next() ? query.value(0).toInt() : -1;
    }

private Q_SLOTS:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        QString error;
        m_db = Database::open(m_dir->path(), &error);
        QVERIFY2(m_db, qPrintable(error));
        m_logs = std::make_unique<LogStore>(m_dir->path());
        QVERIFY(m_logs->initialize(&error));
        WorkspaceRecord w;
        w.id = QStringLiteral("ws1");
        w.isolation = QStringLiteral("strong");
        w.createdMs = 1;
        w.rootPath = QStringLiteral("/w/ws1");
        QVERIFY(!WorkspaceRepository(*m_db).insert({w}));
        m_now = kT0;
    }
    void cleanup() {
        m_logs.reset();
        m_db.reset();
        m_dir.reset();
    }

    void testClockJumpPastTheAgeRemovesExactlyTheOldFinishedOnes() {
        // Finished 2 days and 1 day before T0, and at T0; a running and a queued one created
        // 40 days before T0 (older than everything, never finished).
        QVERIFY(finishedExecution(QStringLiteral("old-2"), kT0 - 3 * kDayMs, kT0 - 2 * kDayMs));
        QVERIFY(finishedExecution(QStringLiteral("old-1"), kT0 - 2 * kDayMs, kT0 - kDayMs));
        QVERIFY(finishedExecution(QStringLiteral("fresh"), kT0 - kDayMs, kT0));
        QVERIFY(create(QStringLiteral("running"), kT0 - 40 * kDayMs));
        QVERIFY(start(QStringLiteral("running"), kT0 - 40 * kDayMs));
        QVERIFY(create(QStringLiteral("queued"), kT0 - 40 * kDayMs, 0));
        QVERIFY(!ExecutionOutputRepository(*m_db).record(
            QStringLiteral("old-1"),
            {ExecutionOutput{QStringLiteral("out.bin"), 3, QString(64, QLatin1Char('a'))}}));
        const qint64 oldBytes =
            logBytes(QStringLiteral("old-1")) + logBytes(QStringLiteral("old-2"));
        QVERIFY(oldBytes > 2 * kOutputBytes);

        ExecutionRetention retention(*m_db, m_logs.get(), RetentionPolicy{30, 0}, clock());
        QVERIFY(!retention.initialize());
        QCOMPARE(retention.executions(), qint64(3)); // the finished ones
        const qint64 bytesBefore = retention.bytes();
        QCOMPARE(bytesBefore, oldBytes + logBytes(QStringLiteral("fresh")));

        // Positive control: at T0 (and 28 days on) nothing is due.
        ExecutionRetention::Result result;
        QVERIFY(!retention.runNow(&result));
        m_now = kT0 + 28 * kDayMs;
        QVERIFY(!retention.runNow(&result));
        QCOMPARE(result.removedForAge, 0);
        QVERIFY(retentionAudit().isEmpty());
        for (const char* id : {"old-2", "old-1", "fresh", "running", "queued"})
            QVERIFY2(exists(QLatin1String(id)), id);

        // The jump: 29.5 days after T0 the cut is T0 - 0.5 day.
        m_now = kT0 + 29 * kDayMs + kDayMs / 2;
        QVERIFY(!retention.runNow(&result));
        QCOMPARE(result.removedForAge, 2);
        QCOMPARE(result.removedForSize, 0);
        QCOMPARE(result.bytesFreed, oldBytes);
        QVERIFY(!exists(QStringLiteral("old-1")));
        QVERIFY(!exists(QStringLiteral("old-2")));
        QVERIFY(!logFilesExist(QStringLiteral("old-1")));
        QVERIFY(!logFilesExist(QStringLiteral("old-2")));
        QList<ExecutionOutput> outputs;
        QVERIFY(!ExecutionOutputRepository(*m_db).list(QStringLiteral("old-1"), &outputs));
        QVERIFY(outputs.isEmpty());
        for (const char* id : {"fresh", "running", "queued"}) {
            QVERIFY2(exists(QLatin1String(id)), id);
            QVERIFY2(logFilesExist(QLatin1String(id)), id);
        }
        QCOMPARE(retention.bytes(), bytesBefore - oldBytes);
        QCOMPARE(retention.executions(), qint64(1));

        // GET says it was removed; the id is still taken.
        ExecutionRecord record;
        const auto notFound = repo().get(QStringLiteral("old-1"), &record);
        QVERIFY(notFound);
        QCOMPARE(runbox::http::httpStatus(notFound->kind), 404);
        QVERIFY2(notFound->message.contains(QLatin1String("removed by retention")),
                 qPrintable(notFound->message));
        NewExecution again;
        again.executionId = QStringLiteral("old-1");
        again.workspaceId = QStringLiteral("ws1");
        ExecutionRepository::InsertResult inserted;
        QVERIFY(!repo().insert(again, &inserted));
        QVERIFY(inserted.duplicate);
        QCOMPARE(inserted.record.executionId, QStringLiteral("old-1"));

        // One audit row for the pass, committed with it.
        const QList<AuditEntry> audit = retentionAudit();
        QCOMPARE(audit.size(), 1);
        QCOMPARE(audit.first().tokenId, QLatin1String(ExecutionRetention::kAuditTokenId));
        QCOMPARE(audit.first().atMs, m_now);
        const QJsonObject after = audit.first().after.toObject();
        QCOMPARE(after.value("reason").toString(), QStringLiteral("age"));
        QCOMPARE(after.value("removed").toInteger(), qint64(2));
        QCOMPARE(after.value("bytesFreed").toInteger(), qint64(oldBytes));
        QCOMPARE(after.value("oldestFinishedAt").toString(), isoTimestamp(kT0 - 2 * kDayMs));
        QCOMPARE(after.value("newestFinishedAt").toString(), isoTimestamp(kT0 - kDayMs));
        QCOMPARE(audit.first().before.toObject().value("executions").toInteger(), qint64(3));

        // Far later: the running and queued ones are still never removed, fresh now is.
        m_now = kT0 + 400 * kDayMs;
        QVERIFY(!retention.runNow(&result));
        QCOMPARE(result.removedForAge, 3);
        QVERIFY(!exists(QStringLiteral("fresh")));
        QVERIFY(exists(QStringLiteral("running")));
        QVERIFY(exists(QStringLiteral("queued")));
        QCOMPARE(retentionAudit().size(), 2);
    }

    void testZeroDaysKeepsForever() {
        QVERIFY(finishedExecution(QStringLiteral("ancient"), 1000, 2000));
        ExecutionRetention retention(*m_db, m_logs.get(), RetentionPolicy{0, 0}, clock());
        QVERIFY(!retention.initialize());
        m_now = kT0 + 10000 * kDayMs;
        ExecutionRetention::Result result;
        QVERIFY(!retention.runNow(&result));
        QCOMPARE(result.removedForAge + result.removedForSize, 0);
        QVERIFY(exists(QStringLiteral("ancient")));
    }

    void testSizeBoundRemovesOldestFinishedFirstUntilItHolds() {
        // Finish order differs from creation order: e3, e1, e5, e2, e4.
        const QList<QPair<const char*, qint64>> finishedAt{
            {"e1", 2000}, {"e2", 4000}, {"e3", 1000}, {"e4", 5000}, {"e5", 3000}};
        for (const auto& [id, at] : finishedAt)
            QVERIFY(finishedExecution(QLatin1String(id), 100, at));
        // The oldest created of all is still running: it is never a candidate.
        QVERIFY(create(QStringLiteral("running"), 1));
        QVERIFY(start(QStringLiteral("running"), 1));
        const qint64 each = logBytes(QStringLiteral("e1"));
        for (const char* id : {"e2", "e3", "e4", "e5"})
            QCOMPARE(logBytes(QLatin1String(id)), each);

        ExecutionRetention retention(*m_db, m_logs.get(), RetentionPolicy{0, 3 * each}, clock());
        QVERIFY(!retention.initialize());
        QCOMPARE(retention.bytes(), 5 * each); // the running log is not counted yet
        QCOMPARE(retention.executions(), qint64(5));
        for (const auto& [id, at] : finishedAt)
            QVERIFY2(exists(QLatin1String(id)), id); // positive control

        retention.start(3600 * 1000); // a pass now, then hourly
        QCOMPARE(retention.bytes(), 3 * each);
        QVERIFY(!exists(QStringLiteral("e3")));
        QVERIFY(!exists(QStringLiteral("e1")));
        for (const char* id : {"e5", "e2", "e4", "running"})
            QVERIFY2(exists(QLatin1String(id)), id);
        QList<AuditEntry> audit = retentionAudit();
        QCOMPARE(audit.size(), 1);
        QCOMPARE(audit.first().after.toObject().value("reason").toString(), QStringLiteral("size"));
        QCOMPARE(audit.first().after.toObject().value("removed").toInteger(), qint64(2));
        QCOMPARE(audit.first().after.toObject().value("bytesFreed").toInteger(), qint64(2 * each));

        // The running one finishes (same output): over the bound, so a pass follows on the
        // event loop and removes the oldest finished left (e5), not the one that just ended.
        QVERIFY(finish(QStringLiteral("running"), 6000));
        QCOMPARE(retention.bytes(), 4 * each);
        QTRY_VERIFY(!exists(QStringLiteral("e5")));
        QCOMPARE(retention.bytes(), 3 * each);
        for (const char* id : {"e2", "e4", "running"})
            QVERIFY2(exists(QLatin1String(id)), id);
        audit = retentionAudit();
        QCOMPARE(audit.size(), 2);
        QCOMPARE(audit.first().after.toObject().value("removed").toInteger(), qint64(1));
        QCOMPARE(retention.healthJson().value("bytes").toInteger(), qint64(3 * each));
        QCOMPARE(retention.healthJson().value("executions").toInteger(), qint64(3));
        QCOMPARE(retention.healthJson().value("maxBytes").toInteger(), qint64(3 * each));
        QCOMPARE(retention.healthJson().value("retentionDays").toInteger(), qint64(0));
    }

    void testManyDueAreRemovedInPassesOfAtMostABatchEachAudited() {
        // 1100 finished long ago (rows only, no logs), one transaction.
        constexpr int kRows = 2 * ExecutionRetention::kBatch + 100;
        QSqlDatabase c = m_db->connection();
        QVERIFY(c.transaction());
        QSqlQuery insert(c);
        QVERIFY(insert.prepare(QStringLiteral(
            "INSERT INTO executions (execution_id, workspace_id, kind, state, created_ms,"
            " finished_ms) VALUES (?, 'ws1', 'shell', 'completed', 1, ?)")));
        for (int i = 0; i < kRows; ++i) {
            insert.addBindValue(QStringLiteral("bulk-%1").arg(i));
            insert.addBindValue(1000 + i);
            QVERIFY(insert.exec());
        }
        QVERIFY(c.commit());
        QVERIFY(finishedExecution(QStringLiteral("recent"), kT0, kT0));
        ExecutionRetention retention(*m_db, m_logs.get(), RetentionPolicy{30, 0}, clock());
        QVERIFY(!retention.initialize());
        QCOMPARE(retention.executions(), qint64(kRows + 1));
        QElapsedTimer timer;
        timer.start();
        ExecutionRetention::Result result;
        QVERIFY(!retention.runNow(&result));
        qInfo("%d removed in %lld ms", result.removedForAge, qlonglong(timer.elapsed()));
        QCOMPARE(result.removedForAge, kRows);
        QCOMPARE(result.audit.size(), 3);
        QCOMPARE(result.audit.at(0).after.toObject().value("removed").toInteger(),
                 qint64(ExecutionRetention::kBatch));
        QCOMPARE(result.audit.at(2).after.toObject().value("removed").toInteger(), qint64(100));
        QCOMPARE(retentionAudit().size(), 3);
        QCOMPARE(retention.executions(), qint64(1));
        QVERIFY(exists(QStringLiteral("recent")));
        QCOMPARE(scalarInt(QStringLiteral("SELECT count(*) FROM executions")), 1);
        QCOMPARE(scalarInt(QStringLiteral("SELECT count(*) FROM execution_tombstones")), kRows);
    }

    void testStartUpFinishesAnInterruptedRemoval() {
        QVERIFY(finishedExecution(QStringLiteral("half-gone"), 100, 200));
        QVERIFY(finishedExecution(QStringLiteral("kept"), 100, 300));
        // A crash after the commit, before the files went: tombstone pending, record gone.
        QSqlQuery query(m_db->connection());
        QVERIFY(query.exec(QStringLiteral(
            "INSERT INTO execution_tombstones (execution_id, workspace_id, kind, created_ms,"
            " finished_ms, removed_ms, reason) VALUES ('half-gone', 'ws1', 'shell', 100, 200,"
            " 500, 'size')")));
        QVERIFY(
            query.exec(QStringLiteral("DELETE FROM executions WHERE execution_id = 'half-gone'")));
        QVERIFY(logFilesExist(QStringLiteral("half-gone"))); // control
        ExecutionRetention retention(*m_db, m_logs.get(), RetentionPolicy{0, 0}, clock());
        QVERIFY(!retention.initialize());
        QVERIFY(!logFilesExist(QStringLiteral("half-gone")));
        QVERIFY(logFilesExist(QStringLiteral("kept")));
        QCOMPARE(retention.bytes(), logBytes(QStringLiteral("kept")));
        QVERIFY(query.exec(QStringLiteral("SELECT logs_removed FROM execution_tombstones")));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toInt(), 1);
    }
};

QTEST_GUILESS_MAIN(TestExecutionRetention)
#include "test_execution_retention.moc"
