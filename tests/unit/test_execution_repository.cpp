#include "agent/http/ErrorStatus.h"
#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/WorkspaceRepository.h"

#include <QJsonArray>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace runbox::store;

namespace {

ExecutionOutcome ending(ExecutionState state, qint64 finishedMs = 0) {
    ExecutionOutcome outcome;
    outcome.state = state;
    outcome.finishedMs = finishedMs;
    return outcome;
}

WorkspaceRecord workspace(const QString& id, const QString& isolation,
                          std::optional<int> uid = std::nullopt) {
    WorkspaceRecord w;
    w.id = id;
    w.isolation = isolation;
    w.createdMs = 1;
    w.rootPath = QStringLiteral("/w/") + id;
    w.ownerTokenId = QStringLiteral("tok-a");
    w.tokenNonce = QStringLiteral("nonce-") + id;
    w.uid = uid;
    return w;
}

} // namespace

class TestExecutionRepository final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<Database> m_db;

    NewExecution make(const QString& id, qint64 createdMs = 1000,
                      const QString& workspace = QStringLiteral("ws1")) {
        NewExecution e;
        e.executionId = id;
        e.workspaceId = workspace;
        e.kind = ExecutionKind::Python;
        e.createdMs = createdMs;
        e.permissionEpoch = QJsonObject{{QStringLiteral("networkPolicy"), QStringLiteral("none")}};
        return e;
    }

    ExecutionRecord insertOk(const NewExecution& e) {
        ExecutionRepository repo(*m_db);
        ExecutionRepository::InsertResult result;
        const auto error = repo.insert(e, &result);
        if (error)
            qWarning("%s", qPrintable(error->message));
        return result.record;
    }

private Q_SLOTS:
    void init() {
        QString error;
        m_db = Database::open(m_dir.path() + QStringLiteral("/") +
                                  QString::number(QDateTime::currentMSecsSinceEpoch()) +
                                  QString::number(quintptr(this)) + QTest::currentTestFunction(),
                              &error);
        QVERIFY2(m_db, qPrintable(error));
        WorkspaceRepository workspaces(*m_db);
        QVERIFY(
            !workspaces.insert({workspace(QStringLiteral("ws1"), QStringLiteral("strong")),
                                workspace(QStringLiteral("ws2"), QStringLiteral("light"), 20001)}));
    }
    void cleanup() { m_db.reset(); }

    void testInsertStoresAQueuedRecord() {
        const ExecutionRecord r = insertOk(make(QStringLiteral("job-1"), 1234));
        QCOMPARE(r.executionId, QStringLiteral("job-1"));
        QVERIFY(r.clientSuppliedId);
        QCOMPARE(toString(r.state), toString(ExecutionState::Queued));
        QCOMPARE(r.createdMs, qint64(1234));
        QCOMPARE(r.permissionEpoch.value(QStringLiteral("networkPolicy")).toString(),
                 QStringLiteral("none"));
        const QJsonObject json = r.toJson();
        for (const char* unset :
             {"startedAt", "finishedAt", "exitCode", "signal", "durationMs", "queuePosition"})
            QVERIFY2(json.value(QLatin1String(unset)).isNull(), unset);
        QCOMPARE(json.value(QStringLiteral("state")).toString(), QStringLiteral("queued"));
    }

    void testGeneratedIdsAreValidAndDistinct() {
        const ExecutionRecord a = insertOk(make(QString()));
        const ExecutionRecord b = insertOk(make(QString()));
        QVERIFY(a.executionId.startsWith(QStringLiteral("ex_")));
        QVERIFY(isValidExecutionId(a.executionId));
        QVERIFY(a.executionId != b.executionId);
        QVERIFY(!a.clientSuppliedId);
    }

    void testInvalidClientIdsAreRefused() {
        ExecutionRepository repo(*m_db);
        ExecutionRepository::InsertResult result;
        QVERIFY(!repo.insert(make(QStringLiteral("Run_1.a:b-c")), &result)); // control
        for (const QString& bad :
             {QStringLiteral("../etc"), QStringLiteral("a/b"), QStringLiteral(".hidden"),
              QStringLiteral("a b"), QString(129, QLatin1Char('a')), QStringLiteral("-x"),
              QStringLiteral("x\u00e9")}) {
            const auto error = repo.insert(make(bad), &result);
            QVERIFY2(error, qPrintable(bad));
            QCOMPARE(runbox::http::httpStatus(error->kind), 400);
            QCOMPARE(error->code, QStringLiteral("invalid_execution_id"));
        }
    }

    void testDuplicateKeyReturnsTheExistingRecordForever() {
        ExecutionRepository repo(*m_db);
        ExecutionRepository::InsertResult first, again;
        QVERIFY(!repo.insert(make(QStringLiteral("idem-1"), 10), &first));
        QVERIFY(!first.duplicate);
        // Finish it, delete its workspace: the key stays taken.
        QVERIFY(!repo.markRunning(QStringLiteral("idem-1"), 20, {}));
        {
            auto e = repo.finish(QStringLiteral("idem-1"), ExecutionOutcome());
            QVERIFY2(!e, e ? qPrintable(e->message) : "");
        }
        QVERIFY(!WorkspaceRepository(*m_db).markDeleted(QStringLiteral("ws1"), 30));
        NewExecution replay = make(QStringLiteral("idem-1"), 99, QStringLiteral("ws2"));
        QVERIFY(!repo.insert(replay, &again));
        QVERIFY(again.duplicate);
        QCOMPARE(again.record.executionId, QStringLiteral("idem-1"));
        QCOMPARE(again.record.workspaceId, QStringLiteral("ws1")); // the original, untouched
        QCOMPARE(toString(again.record.state), toString(ExecutionState::Completed));
        // Reopening the database does not forget it either.
        const QString path = QFileInfo(m_db->path()).absolutePath();
        m_db.reset();
        QString error;
        m_db = Database::open(path, &error);
        QVERIFY(m_db);
        ExecutionRepository reopened(*m_db);
        QVERIFY(!reopened.insert(replay, &again));
        QVERIFY(again.duplicate);
    }

    void testConcurrentDuplicateInsertsCreateOneRecord() {
        constexpr int kThreads = 4;
        QList<QThread*> threads;
        QAtomicInt created = 0, duplicates = 0;
        for (int t = 0; t < kThreads; ++t) {
            threads.append(QThread::create([&] {
                ExecutionRepository repo(*m_db);
                for (int i = 0; i < 20; ++i) {
                    ExecutionRepository::InsertResult result;
                    if (repo.insert(make(QStringLiteral("race-%1").arg(i)), &result))
                        continue;
                    (result.duplicate ? duplicates : created).fetchAndAddRelaxed(1);
                }
            }));
            threads.last()->start();
        }
        for (QThread* thread : threads) {
            QVERIFY(thread->wait(60000));
            delete thread;
        }
        QCOMPARE(created.loadRelaxed(), 20);
        QCOMPARE(duplicates.loadRelaxed(), 20 * (kThreads - 1));
    }

    void testUnknownOrDeletedWorkspaceIsRefused() {
        ExecutionRepository repo(*m_db);
        ExecutionRepository::InsertResult result;
        auto error = repo.insert(make(QStringLiteral("a"), 1, QStringLiteral("nope")), &result);
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("workspace_not_found"));
        QVERIFY(!WorkspaceRepository(*m_db).markDeleted(QStringLiteral("ws2"), 5));
        error = repo.insert(make(QStringLiteral("b"), 1, QStringLiteral("ws2")), &result);
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 404);
    }

    void testLegalLifecycleRecordsEverything() {
        ExecutionRepository repo(*m_db);
        insertOk(make(QStringLiteral("life"), 1000));
        QVERIFY(!repo.setQueuePositions({{QStringLiteral("life"), 3}}));
        ExecutionRecord r;
        QVERIFY(!repo.get(QStringLiteral("life"), &r));
        QCOMPARE(r.queuePosition, std::optional<int>(3));
        const QJsonObject provenance{
            {QStringLiteral("env"),
             QJsonObject{{QStringLiteral("PATH"), QStringLiteral("/usr/bin")}}},
            {QStringLiteral("cwd"), QStringLiteral("/workspace")},
            {QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("-I")}}};
        QVERIFY(!repo.markRunning(QStringLiteral("life"), 1500, provenance));
        QVERIFY(!repo.updateLogBytes(QStringLiteral("life"), LogByteCounts{5, 6, 0}));
        ExecutionOutcome outcome;
        outcome.state = ExecutionState::Failed;
        outcome.finishedMs = 4000;
        outcome.exitCode = 3;
        outcome.statusReason = QStringLiteral("exited with status 3");
        outcome.createdFiles = {QStringLiteral("a.txt")};
        outcome.modifiedFiles = {QStringLiteral("b/c.txt")};
        outcome.deletedFiles = {QStringLiteral("d")};
        outcome.logBytes = LogByteCounts{10, 20, 3};
        QVERIFY(!repo.finish(QStringLiteral("life"), outcome));
        QVERIFY(!repo.get(QStringLiteral("life"), &r));
        QCOMPARE(toString(r.state), toString(ExecutionState::Failed));
        QCOMPARE(r.startedMs, std::optional<qint64>(1500));
        QCOMPARE(r.finishedMs, std::optional<qint64>(4000));
        QCOMPARE(r.durationMs, std::optional<qint64>(2500));
        QCOMPARE(r.exitCode, std::optional<int>(3));
        QVERIFY(!r.signal);
        QVERIFY(!r.queuePosition);
        QCOMPARE(r.provenance, provenance);
        QCOMPARE(r.deletedFiles, QStringList{QStringLiteral("d")});
        QCOMPARE(r.logBytes, (LogByteCounts{10, 20, 3}));

        const QJsonObject json = r.toJson();
        QCOMPARE(json.value(QStringLiteral("executionId")).toString(), QStringLiteral("life"));
        QCOMPARE(json.value(QStringLiteral("workspace")).toString(), QStringLiteral("ws1"));
        QCOMPARE(json.value(QStringLiteral("kind")).toString(), QStringLiteral("python"));
        QCOMPARE(json.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
        QCOMPARE(json.value(QStringLiteral("createdAt")).toString(),
                 QStringLiteral("1970-01-01T00:00:01.000Z"));
        QCOMPARE(json.value(QStringLiteral("finishedAt")).toString(),
                 QStringLiteral("1970-01-01T00:00:04.000Z"));
        QCOMPARE(json.value(QStringLiteral("durationMs")).toInteger(), 2500);
        QVERIFY(json.value(QStringLiteral("signal")).isNull());
        QVERIFY(json.value(QStringLiteral("queuePosition")).isNull());
        QCOMPARE(json.value(QStringLiteral("modifiedFiles")).toArray().at(0).toString(),
                 QStringLiteral("b/c.txt"));
        QCOMPARE(json.value(QStringLiteral("logBytes"))[QStringLiteral("retentionTruncated")],
                 QJsonValue(true));
        QCOMPARE(json.value(QStringLiteral("statusReason")).toString(),
                 QStringLiteral("exited with status 3"));
    }

    void testTransitionTable() {
        // Every (from, to) pair: legal ones succeed, illegal ones are refused with 409.
        const QList<ExecutionState> states = allExecutionStates();
        int n = 0;
        for (const ExecutionState from : states) {
            for (const ExecutionState to : states) {
                const QString id = QStringLiteral("t-%1").arg(n++);
                ExecutionRepository repo(*m_db);
                insertOk(make(id));
                // Bring it to `from` along a legal path: queued → running → terminal.
                if (from != ExecutionState::Queued)
                    QVERIFY(!repo.markRunning(id, 0, {}));
                if (isTerminal(from))
                    QVERIFY(!repo.finish(id, ending(from)));
                ExecutionRecord before;
                QVERIFY(!repo.get(id, &before));
                QCOMPARE(toString(before.state), toString(from));
                const auto error = to == ExecutionState::Running ? repo.markRunning(id, 0, {})
                                                                 : repo.finish(id, ending(to));
                const bool expectOk = isLegalTransition(from, to);
                QVERIFY2(bool(error) != expectOk,
                         qPrintable(toString(from) + QStringLiteral(" -> ") + toString(to)));
                if (error)
                    QCOMPARE(runbox::http::httpStatus(error->kind), 409);
                ExecutionRecord after;
                QVERIFY(!repo.get(id, &after));
                QCOMPARE(toString(after.state), toString(expectOk ? to : from));
            }
        }
    }

    void testOnlyOneOfTwoRacingFinishesWins() {
        insertOk(make(QStringLiteral("racer")));
        ExecutionRepository repo(*m_db);
        QVERIFY(!repo.markRunning(QStringLiteral("racer"), 0, {}));
        QAtomicInt wins = 0;
        QList<QThread*> threads;
        for (const ExecutionState end :
             {ExecutionState::Cancelled, ExecutionState::Completed, ExecutionState::TimedOut}) {
            threads.append(QThread::create([&, end] {
                ExecutionRepository mine(*m_db);
                if (!mine.finish(QStringLiteral("racer"), ending(end)))
                    wins.fetchAndAddRelaxed(1);
            }));
            threads.last()->start();
        }
        for (QThread* thread : threads) {
            QVERIFY(thread->wait(30000));
            delete thread;
        }
        QCOMPARE(wins.loadRelaxed(), 1);
    }

    void testMissingExecutionIs404() {
        ExecutionRepository repo(*m_db);
        ExecutionRecord r;
        auto error = repo.get(QStringLiteral("ghost"), &r);
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 404);
        error = repo.markRunning(QStringLiteral("ghost"), 0, {});
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("execution_not_found"));
    }

    void testMarkRunningAsLostRecoversUnfinishedOnly() {
        ExecutionRepository repo(*m_db);
        insertOk(make(QStringLiteral("q"), 1));
        insertOk(make(QStringLiteral("r"), 2));
        insertOk(make(QStringLiteral("done"), 3));
        QVERIFY(!repo.markRunning(QStringLiteral("r"), 100, {}));
        QVERIFY(!repo.markRunning(QStringLiteral("done"), 100, {}));
        QVERIFY(!repo.finish(QStringLiteral("done"), ending(ExecutionState::Completed, 150)));
        QStringList ids;
        QVERIFY(!repo.markRunningAsLost(QStringLiteral("agent restarted"), 500, &ids));
        QCOMPARE(QSet<QString>(ids.begin(), ids.end()),
                 (QSet<QString>{QStringLiteral("q"), QStringLiteral("r")}));
        ExecutionRecord r;
        QVERIFY(!repo.get(QStringLiteral("r"), &r));
        QCOMPARE(toString(r.state), toString(ExecutionState::Lost));
        QCOMPARE(r.statusReason, QStringLiteral("agent restarted"));
        QCOMPARE(r.durationMs, std::optional<qint64>(400));
        QVERIFY(!repo.get(QStringLiteral("q"), &r));
        QCOMPARE(toString(r.state), toString(ExecutionState::Lost));
        QVERIFY(r.statusReason.contains(QStringLiteral("had not started")));
        QVERIFY(!r.durationMs);
        QVERIFY(!repo.get(QStringLiteral("done"), &r));
        QCOMPARE(toString(r.state), toString(ExecutionState::Completed));
        // A lost execution is final: it can never be re-run.
        QVERIFY(repo.markRunning(QStringLiteral("r"), 0, {}));
        QVERIFY(!repo.markRunningAsLost(QStringLiteral("again"), 600, &ids));
        QVERIFY(ids.isEmpty());
    }

    void testListIsNewestFirstWithFilters() {
        ExecutionRepository repo(*m_db);
        insertOk(make(QStringLiteral("a"), 100));
        insertOk(make(QStringLiteral("b"), 200, QStringLiteral("ws2")));
        insertOk(make(QStringLiteral("c"), 300));
        insertOk(make(QStringLiteral("d"), 300)); // same ms: insertion order breaks the tie
        QVERIFY(!repo.markRunning(QStringLiteral("c"), 0, {}));
        auto ids = [&](const ExecutionFilter& f) {
            ExecutionPage page;
            const auto error = repo.list(f, &page);
            QStringList out;
            if (error)
                out.append(error->code);
            for (const auto& r : page.items)
                out.append(r.executionId);
            return out;
        };
        QCOMPARE(ids({}), (QStringList{"d", "c", "b", "a"}));
        ExecutionFilter f;
        f.workspaceId = QStringLiteral("ws1");
        QCOMPARE(ids(f), (QStringList{"d", "c", "a"}));
        f = {};
        f.states = {ExecutionState::Running};
        QCOMPARE(ids(f), (QStringList{"c"}));
        f = {};
        f.createdFromMs = 200;
        f.createdToMs = 300;
        QCOMPARE(ids(f), (QStringList{"b"}));
        f = {};
        f.limit = 0;
        QCOMPARE(ids(f), (QStringList{"invalid_filter"}));
        f = {};
        f.cursor = QStringLiteral("not-a-cursor");
        QCOMPARE(ids(f), (QStringList{"invalid_cursor"}));
        f.cursor = QStringLiteral("YzE6MTox"); // "c1:1:1" is accepted (a well-formed position)
        QCOMPARE(ids(f), QStringList());
    }

    void testCursorIsStableUnderInserts() {
        ExecutionRepository repo(*m_db);
        for (int i = 0; i < 25; ++i)
            insertOk(make(QStringLiteral("p%1").arg(i), 1000 + i / 2)); // pairs share a ms
        QStringList seen;
        ExecutionFilter f;
        f.limit = 4;
        int extra = 0;
        for (int pages = 0; pages < 20; ++pages) {
            ExecutionPage page;
            QVERIFY(!repo.list(f, &page));
            for (const auto& r : page.items)
                seen.append(r.executionId);
            // Between pages: newer executions arrive, some in the same ms as the page edge.
            insertOk(make(QStringLiteral("new%1").arg(extra++), 5000 + pages));
            if (!page.items.isEmpty())
                insertOk(
                    make(QStringLiteral("new%1").arg(extra++), page.items.constLast().createdMs));
            if (page.nextCursor.isEmpty())
                break;
            f.cursor = page.nextCursor;
        }
        QStringList expected;
        for (int i = 24; i >= 0; --i)
            expected.append(QStringLiteral("p%1").arg(i));
        QCOMPARE(seen, expected); // every original exactly once, in order, none of the new ones
    }

    void testWorkspaceRepositoryRoundTrip() {
        WorkspaceRepository repo(*m_db);
        WorkspaceRecord w;
        QVERIFY(!repo.get(QStringLiteral("ws2"), &w));
        QCOMPARE(w.isolation, QStringLiteral("light"));
        QCOMPARE(w.uid, std::optional<int>(20001));
        QCOMPARE(w.ownerTokenId, QStringLiteral("tok-a"));
        QList<WorkspaceRecord> live;
        QVERIFY(!repo.listLive(QStringLiteral("light"), &live));
        QCOMPARE(live.size(), 1);
        auto error = repo.insert({workspace(QStringLiteral("ws1"), QStringLiteral("strong"))});
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 409);
        error = repo.insert({workspace(QStringLiteral("w3"), QStringLiteral("medium"))});
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 400);
        QVERIFY(!repo.markDeleted(QStringLiteral("ws2"), 9));
        QVERIFY(repo.markDeleted(QStringLiteral("ws2"), 9)); // already deleted
        QVERIFY(!repo.listLive(QString(), &live));
        QCOMPARE(live.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestExecutionRepository)
#include "test_execution_repository.moc"
