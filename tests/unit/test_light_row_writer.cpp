// LightRowWriter: light workspace rows are group-committed (one transaction per burst), written
// within the flush delay, at flush() and on destruction; a delete queued before the create's row
// was written still lands; a busy database keeps them queued, a bad row costs only itself.
#include "agent/http/ErrorStatus.h"
#include "agent/store/Database.h"
#include "agent/store/WorkspaceRepository.h"
#include "agent/workspace/LightRowWriter.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;

namespace {

store::WorkspaceRecord lightRow(const QString& id) {
    store::WorkspaceRecord row;
    row.id = id;
    row.isolation = QStringLiteral("light");
    row.rootPath = QStringLiteral("/srv/runbox/light/") + id;
    row.ownerTokenId = QStringLiteral("agent");
    row.tokenNonce = QStringLiteral("00112233445566778899aabbccddeeff");
    row.uid = 20001;
    return row;
}

} // namespace

class TestLightRowWriter final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<store::Database> m_db;
    std::unique_ptr<store::WorkspaceRepository> m_repository;

    bool exists(const QString& id, bool* deleted = nullptr) const {
        store::WorkspaceRecord row;
        if (m_repository->get(id, &row))
            return false;
        if (deleted)
            *deleted = row.deletedMs.has_value();
        return true;
    }

private Q_SLOTS:
    void init() {
        QString error;
        m_db = store::Database::open(
            m_dir.filePath(QStringLiteral("state-%1").arg(QTest::currentTestFunction())), &error);
        QVERIFY2(m_db, qPrintable(error));
        m_repository = std::make_unique<store::WorkspaceRepository>(*m_db);
    }
    void cleanup() {
        m_repository.reset();
        m_db.reset();
    }

    void testRowsAreWrittenOnlyAtTheFlush() {
        workspace::LightRowWriter writer(m_repository.get());
        writer.created(lightRow(QStringLiteral("00000000000000a1")));
        writer.created(lightRow(QStringLiteral("00000000000000a2")));
        QVERIFY(!exists(QStringLiteral("00000000000000a1"))); // queued, not written yet
        QVERIFY(!writer.flush());
        bool deleted = true;
        QVERIFY(exists(QStringLiteral("00000000000000a1"), &deleted));
        QVERIFY(!deleted);
        QVERIFY(exists(QStringLiteral("00000000000000a2")));
        QVERIFY(!writer.flush()); // nothing queued: nothing to do
    }

    void testTheTimerWritesWithinTheDelay() {
        workspace::LightRowWriter writer(m_repository.get());
        writer.created(lightRow(QStringLiteral("00000000000000b1")));
        QTRY_VERIFY_WITH_TIMEOUT(exists(QStringLiteral("00000000000000b1")),
                                 workspace::LightRowWriter::kFlushDelayMs * 50);
        writer.deleted(QStringLiteral("00000000000000b1"), 1234);
        bool deleted = false;
        QTRY_VERIFY_WITH_TIMEOUT(exists(QStringLiteral("00000000000000b1"), &deleted) && deleted,
                                 workspace::LightRowWriter::kFlushDelayMs * 50);
        store::WorkspaceRecord row;
        QVERIFY(!m_repository->get(QStringLiteral("00000000000000b1"), &row));
        QCOMPARE(row.deletedMs.value_or(0), 1234);
    }

    void testADeleteQueuedBeforeItsCreateWasWrittenLands() {
        workspace::LightRowWriter writer(m_repository.get());
        writer.created(lightRow(QStringLiteral("00000000000000c1")));
        writer.deleted(QStringLiteral("00000000000000c1"), 0);
        writer.deleted(QStringLiteral("00000000000000ff"), 0); // never created: skipped, no error
        QVERIFY(!writer.flush());
        bool deleted = false;
        QVERIFY(exists(QStringLiteral("00000000000000c1"), &deleted));
        QVERIFY(deleted);
    }

    void testDestructionWritesWhatIsQueued() {
        {
            workspace::LightRowWriter writer(m_repository.get());
            writer.created(lightRow(QStringLiteral("00000000000000d1")));
        }
        QVERIFY(exists(QStringLiteral("00000000000000d1")));
    }

    void testABadRowCostsOnlyItself() {
        QVERIFY(!m_repository->insert({lightRow(QStringLiteral("00000000000000e1"))}));
        workspace::LightRowWriter writer(m_repository.get());
        writer.created(lightRow(QStringLiteral("00000000000000e2")));
        writer.created(lightRow(QStringLiteral("00000000000000e1"))); // exists: the batch fails
        writer.created(lightRow(QStringLiteral("00000000000000e3")));
        writer.deleted(QStringLiteral("00000000000000e2"), 0);
        const auto error = writer.flush();
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("workspace_exists"));
        bool deleted = false;
        QVERIFY(exists(QStringLiteral("00000000000000e2"), &deleted)); // written one at a time
        QVERIFY(deleted);
        QVERIFY(exists(QStringLiteral("00000000000000e3")));
        QVERIFY(!writer.flush()); // the bad row is dropped, not retried forever
    }

    void testFlushForAnswersOnlyForItsOwnRow() {
        // Before a managed execution on workspace g2, another workspace's bad row must not
        // refuse it; g2's own failure must.
        QVERIFY(!m_repository->insert({lightRow(QStringLiteral("00000000000000g1"))}));
        workspace::LightRowWriter writer(m_repository.get());
        writer.created(lightRow(QStringLiteral("00000000000000g1"))); // exists: fails
        writer.created(lightRow(QStringLiteral("00000000000000g2")));
        QVERIFY(!writer.flushFor(QStringLiteral("00000000000000g2")));
        QVERIFY(exists(QStringLiteral("00000000000000g2")));
        writer.created(lightRow(QStringLiteral("00000000000000g1"))); // fails again
        const auto own = writer.flushFor(QStringLiteral("00000000000000g1"));
        QVERIFY(own);
        QCOMPARE(own->code, QStringLiteral("workspace_exists"));
        QVERIFY(!writer.flushFor(QStringLiteral("00000000000000g3"))); // nothing queued
    }

    void testABusyDatabaseKeepsTheRowsForARetry() {
        // A database whose writers give up after 50 ms, and another connection holding its lock.
        QString error;
        const QString state = m_dir.filePath(QStringLiteral("busy"));
        store::Database::Options options;
        options.busyTimeoutMs = 50;
        auto db = store::Database::open(state, options, &error);
        QVERIFY2(db, qPrintable(error));
        store::WorkspaceRepository repository(*db);
        {
            QSqlDatabase blocker =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("blocker"));
            blocker.setDatabaseName(db->path());
            QVERIFY(blocker.open());
            QSqlQuery lock(blocker);
            QVERIFY(lock.exec(QStringLiteral("BEGIN IMMEDIATE")));
            workspace::LightRowWriter writer(&repository);
            writer.created(lightRow(QStringLiteral("00000000000000f1")));
            const auto busy = writer.flushFor(QStringLiteral("00000000000000f1"));
            QVERIFY(busy); // the execution waiting for this row gets a 503: worth a retry
            QCOMPARE(http::httpStatus(busy->kind), 503);
            QVERIFY(lock.exec(QStringLiteral("COMMIT"))); // the lock goes away
            store::WorkspaceRecord row;
            QTRY_VERIFY_WITH_TIMEOUT(!repository.get(QStringLiteral("00000000000000f1"), &row),
                                     workspace::LightRowWriter::kRetryDelayMs * 20);
            lock = QSqlQuery();
            blocker.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("blocker"));
    }
};

QTEST_GUILESS_MAIN(TestLightRowWriter)
#include "test_light_row_writer.moc"
