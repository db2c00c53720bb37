#include "agent/http/ErrorStatus.h"
#include "agent/store/Database.h"
#include "agent/store/QuotaStore.h"
#include "agent/store/SettingsRepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace runbox::store;

namespace {

QJsonObject parse(const char* json) {
    return QJsonDocument::fromJson(json).object();
}

int auditCount(const Database& db) {
    QSqlQuery query(db.connection());
    query.exec(QStringLiteral("SELECT count(*) FROM audit"));
    return query.next() ? query.value(0).toInt() : -1;
}

} // namespace

class TestQuotaStore final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_root;
    QString m_state;
    std::unique_ptr<Database> m_db;

    void reopen() {
        m_db.reset();
        QString error;
        m_db = Database::open(m_state, &error);
        QVERIFY2(m_db, qPrintable(error));
    }

private Q_SLOTS:
    void init() {
        m_state = m_root.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        reopen();
    }
    void cleanup() { m_db.reset(); }

    void testFirstStartSeedsThenStoredValuesWin() {
        QuotaSettings::Seeds seeds{{QStringLiteral("maxOutputBytes"), 5000}};
        {
            QuotaStore quotas(*m_db);
            QCOMPARE(quotas.current().maxOutputBytes, QuotaSettings{}.maxOutputBytes);
            QVERIFY(!quotas.initialize(seeds, 100));
            QCOMPARE(quotas.current().maxOutputBytes, qint64(5000));
            QCOMPARE(quotas.current().maxWorkspaceBytes, QuotaSettings{}.maxWorkspaceBytes);
            QList<AuditEntry> history;
            QVERIFY(!quotas.history(0, 100, &history));
            QCOMPARE(history.size(), QuotaSettings::fields().size());
            for (const AuditEntry& entry : std::as_const(history)) {
                QCOMPARE(entry.tokenId, QString::fromLatin1(QuotaStore::kSeedTokenId));
                QVERIFY(entry.before.isNull());
                QCOMPARE(entry.atMs, qint64(100));
            }
        }
        reopen();
        seeds.insert(QStringLiteral("maxOutputBytes"), 7000);
        QuotaStore quotas(*m_db);
        QStringList warnings;
        QVERIFY(!quotas.initialize(seeds, 200, &warnings));
        QCOMPARE(quotas.current().maxOutputBytes, qint64(5000)); // stored value wins
        QCOMPARE(warnings.size(), 1);
        QVERIFY(warnings.first().contains(QStringLiteral("RUNBOX_MAX_OUTPUT_BYTES")));
        QCOMPARE(auditCount(*m_db), QuotaSettings::fields().size()); // nothing re-seeded
    }

    void testAFieldMissingFromTheStoreIsSeededOnItsOwn() {
        QuotaStore quotas(*m_db);
        QVERIFY(!quotas.initialize(QuotaSettings::Seeds(), 1));
        QSqlQuery(m_db->connection())
            .exec(QStringLiteral("DELETE FROM settings WHERE key = 'quota.maxLightWorkspaces'"));
        const QuotaSettings::Seeds seeds{{QStringLiteral("maxLightWorkspaces"), 12}};
        QuotaStore upgraded(*m_db);
        QVERIFY(!upgraded.initialize(seeds, 2));
        QCOMPARE(upgraded.current().maxLightWorkspaces, qint64(12));
    }

    void testInvalidSeedIsAnError() {
        // The configuration table refuses malformed text; a seed out of range still names the
        // variable.
        const QuotaSettings::Seeds seeds{{QStringLiteral("maxWorkspaceBytes"), qint64(1) << 60}};
        QuotaStore quotas(*m_db);
        const auto error = quotas.initialize(seeds);
        QVERIFY(error);
        QVERIFY(error->message.contains(QStringLiteral("RUNBOX_MAX_WORKSPACE_BYTES")));
        QCOMPARE(auditCount(*m_db), 0); // nothing seeded from a bad environment
    }

    void testTamperedStoredValueIsAnError() {
        QVERIFY(!QuotaStore(*m_db).initialize(QuotaSettings::Seeds()));
        QSqlQuery(m_db->connection())
            .exec(QStringLiteral(
                "UPDATE settings SET value = '-5' WHERE key = 'quota.maxOutputBytes'"));
        QuotaStore quotas(*m_db);
        const auto error = quotas.initialize(QuotaSettings::Seeds());
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 500);
    }

    void testUpdateAuditsEachChangedFieldWithWhoAndWhen() {
        QuotaStore quotas(*m_db);
        QVERIFY(!quotas.initialize(QuotaSettings::Seeds(), 1));
        QuotaSettings applied;
        QVERIFY(!quotas.update(parse(R"({"maxOutputBytes": 10, "maxWorkspaceBytes": 10737418240})"),
                               QStringLiteral("tok-1"), 5000, &applied));
        QCOMPARE(applied.maxOutputBytes, qint64(10));
        QCOMPARE(quotas.current().maxOutputBytes, qint64(10));
        std::optional<AuditEntry> last;
        QVERIFY(!quotas.lastChange(&last));
        QVERIFY(last);
        QCOMPARE(last->tokenId, QStringLiteral("tok-1"));
        QCOMPARE(last->key, QStringLiteral("quota.maxOutputBytes"));
        QCOMPARE(last->before.toInteger(), QuotaSettings{}.maxOutputBytes);
        QCOMPARE(last->after.toInteger(), qint64(10));
        QCOMPARE(last->atMs, qint64(5000));
        QCOMPARE(last->toJson().value(QStringLiteral("at")).toString(),
                 QStringLiteral("1970-01-01T00:00:05.000Z"));
        // maxWorkspaceBytes was given but unchanged: no row for it.
        QCOMPARE(auditCount(*m_db), QuotaSettings::fields().size() + 1);
        // The same value again changes nothing and audits nothing.
        QVERIFY(!quotas.update(parse(R"({"maxOutputBytes": 10})"), QStringLiteral("tok-2"), 6000,
                               &applied));
        QCOMPARE(auditCount(*m_db), QuotaSettings::fields().size() + 1);
        // Survives a restart.
        reopen();
        QuotaStore again(*m_db);
        QVERIFY(!again.initialize(QuotaSettings::Seeds()));
        QCOMPARE(again.current().maxOutputBytes, qint64(10));
    }

    void testRefusedUpdateChangesNothing() {
        QuotaStore quotas(*m_db);
        QVERIFY(!quotas.initialize(QuotaSettings::Seeds(), 1));
        const int before = auditCount(*m_db);
        QuotaSettings applied;
        const auto error =
            quotas.update(parse(R"({"maxOutputBytes": 10, "maxWorkspaceBytes": -1})"),
                          QStringLiteral("tok"), 2, &applied);
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("invalid_quota"));
        QCOMPARE(quotas.current().maxOutputBytes, QuotaSettings{}.maxOutputBytes);
        QCOMPARE(auditCount(*m_db), before);
    }

    void testValueAndAuditRowCommitTogether() {
        QuotaStore quotas(*m_db);
        QVERIFY(!quotas.initialize(QuotaSettings::Seeds(), 1));
        // Make every audit insert fail: the value must not change either.
        QVERIFY(QSqlQuery(m_db->connection())
                    .exec(QStringLiteral("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit"
                                         " BEGIN SELECT RAISE(ABORT, 'audit refused'); END")));
        QuotaSettings applied;
        QVERIFY(
            quotas.update(parse(R"({"maxOutputBytes": 10})"), QStringLiteral("tok"), 2, &applied));
        QCOMPARE(quotas.current().maxOutputBytes, QuotaSettings{}.maxOutputBytes);
        QHash<QString, QJsonValue> stored;
        QVERIFY(!SettingsRepository(*m_db).getAll(QStringLiteral("quota."), &stored));
        QCOMPARE(stored.value(QStringLiteral("quota.maxOutputBytes")).toInteger(),
                 QuotaSettings{}.maxOutputBytes);
        // Positive control: without the trigger the same update goes through.
        QVERIFY(QSqlQuery(m_db->connection()).exec(QStringLiteral("DROP TRIGGER refuse_audit")));
        QVERIFY(
            !quotas.update(parse(R"({"maxOutputBytes": 10})"), QStringLiteral("tok"), 3, &applied));
        QCOMPARE(quotas.current().maxOutputBytes, qint64(10));
    }

    void testConcurrentUpdatesLoseNothing() {
        QuotaStore quotas(*m_db);
        QVERIFY(!quotas.initialize(QuotaSettings::Seeds(), 1));
        const QStringList fields{QStringLiteral("maxOutputBytes"),
                                 QStringLiteral("maxWorkspaceBytes"),
                                 QStringLiteral("uploadMaxFileBytes")};
        QList<QThread*> threads;
        QAtomicInt failures = 0;
        for (const QString& field : fields) {
            threads.append(QThread::create([&, field] {
                for (int i = 1; i <= 20; ++i) {
                    QuotaSettings applied;
                    if (quotas.update(QJsonObject{{field, i}}, QStringLiteral("tok-") + field, i,
                                      &applied))
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
        // Each thread's last write is in force (no read-modify-write lost another's field).
        QCOMPARE(quotas.current().maxOutputBytes, qint64(20));
        QCOMPARE(quotas.current().maxWorkspaceBytes, qint64(20));
        QCOMPARE(quotas.current().uploadMaxFileBytes, qint64(20));
        QCOMPARE(auditCount(*m_db), QuotaSettings::fields().size() + 60);
    }

    void testGenericSettingsKeepJsonShapesAndPaginateTheAudit() {
        SettingsRepository settings(*m_db);
        const QJsonObject policy{
            {QStringLiteral("mode"), QStringLiteral("allowlist")},
            {QStringLiteral("domains"), QJsonArray{QStringLiteral("pypi.org")}}};
        QList<AuditEntry> written;
        QVERIFY(!settings.set({{QStringLiteral("network.policy"), policy}}, QStringLiteral("t1"),
                              10, &written));
        QCOMPARE(written.size(), 1);
        QVERIFY(!settings.set({{QStringLiteral("network.policy"), QStringLiteral("none")}},
                              QStringLiteral("t2"), 20, &written));
        QCOMPARE(written.first().before.toObject(), policy);
        QCOMPARE(written.first().after.toString(), QStringLiteral("none"));
        QHash<QString, QJsonValue> all;
        QVERIFY(!settings.getAll(QStringLiteral("network."), &all));
        QCOMPARE(all.value(QStringLiteral("network.policy")).toString(), QStringLiteral("none"));
        QList<AuditEntry> page;
        QVERIFY(!settings.audit(QStringLiteral("network."), 0, 1, &page));
        QCOMPARE(page.size(), 1);
        QCOMPARE(page.first().tokenId, QStringLiteral("t2"));
        QVERIFY(!settings.audit(QStringLiteral("network."), page.first().id, 10, &page));
        QCOMPARE(page.size(), 1);
        QCOMPARE(page.first().tokenId, QStringLiteral("t1"));
        QVERIFY(settings.audit(QString(), 0, 0, &page)); // bad limit
    }
};

QTEST_GUILESS_MAIN(TestQuotaStore)
#include "test_quota_store.moc"
