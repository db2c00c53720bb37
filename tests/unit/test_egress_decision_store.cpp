// Egress decisions: appended in order, read back per execution, never changed or deleted.
#include "agent/egress/EgressDecisionStore.h"
#include "agent/http/ErrorStatus.h"
#include "agent/store/Database.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::egress;

namespace {

EgressDecision decision(const QString& executionId, const QString& host, bool allowed,
                        const QString& reason, qint64 up = 0, qint64 down = 0) {
    EgressDecision d;
    d.executionId = executionId;
    d.host = host;
    d.port = 443;
    d.allowed = allowed;
    d.reason = reason;
    d.message = QStringLiteral("text of ") + reason;
    d.bytesUp = up;
    d.bytesDown = down;
    d.at = QDateTime::fromMSecsSinceEpoch(1'700'000'000'123, Qt::UTC);
    return d;
}

} // namespace

class TestEgressDecisionStore final : public QObject {
    Q_OBJECT
    QTemporaryDir m_root;
    std::unique_ptr<store::Database> m_db;

private Q_SLOTS:
    void init() {
        QString error;
        m_db = store::Database::open(
            m_root.filePath(QString::fromLatin1(QTest::currentTestFunction())), &error);
        QVERIFY2(m_db, qPrintable(error));
    }
    void cleanup() { m_db.reset(); }

    void testDecisionsComeBackPerExecutionInOrder() {
        EgressDecisionStore store(*m_db);
        QVERIFY(!store.append(decision("e1", "pypi.org", true, "allowed", 120, 4096), "w1"));
        QVERIFY(!store.append(decision("e2", "other.org", false, "not_in_allowlist"), "w2"));
        QVERIFY(!store.append(decision("e1", "127.0.0.1", false, "ip_literal"), "w1"));
        QList<EgressDecision> list;
        QVERIFY(!store.list("e1", 100, &list));
        QCOMPARE(list.size(), 2);
        QCOMPARE(list.at(0).host, QStringLiteral("pypi.org"));
        QVERIFY(list.at(0).allowed);
        QCOMPARE(list.at(0).bytesUp, qint64(120));
        QCOMPARE(list.at(0).bytesDown, qint64(4096));
        QCOMPARE(list.at(0).port, 443);
        QCOMPARE(list.at(0).message, QStringLiteral("text of allowed"));
        QCOMPARE(list.at(0).at.toMSecsSinceEpoch(), qint64(1'700'000'000'123));
        QCOMPARE(list.at(1).reason, QStringLiteral("ip_literal"));
        QVERIFY(!list.at(1).allowed);
        QCOMPARE(list.at(0).toJson().value("at").toString(),
                 QStringLiteral("2023-11-14T22:13:20.123Z"));
        QVERIFY(!store.list("nobody", 100, &list));
        QVERIFY(list.isEmpty());
    }

    void testWorkspaceOfAnExecutionIsRecorded() {
        EgressDecisionStore store(*m_db);
        QVERIFY(!store.append(decision("e1", "pypi.org", true, "allowed"), "w1"));
        QString workspace;
        QVERIFY(!store.workspaceOf("e1", &workspace));
        QCOMPARE(workspace, QStringLiteral("w1"));
        QVERIFY(!store.workspaceOf("e9", &workspace));
        QVERIFY(workspace.isEmpty());
    }

    void testDecisionsComeBackPerWorkspace() {
        EgressDecisionStore store(*m_db);
        QVERIFY(!store.append(decision("", "pypi.org", true, "allowed"), "light-1"));
        QVERIFY(!store.append(decision("e2", "other.org", false, "not_in_allowlist"), "w2"));
        QVERIFY(!store.append(decision("e3", "cran.r-project.org", true, "allowed"), "light-1"));
        QList<EgressDecision> list;
        QVERIFY(!store.listByWorkspace("light-1", 100, &list));
        QCOMPARE(list.size(), 2);
        QCOMPARE(list.at(0).host, QStringLiteral("pypi.org"));
        QCOMPARE(list.at(0).executionId, QString());
        QCOMPARE(list.at(0).workspaceId, QStringLiteral("light-1"));
        QCOMPARE(list.at(1).executionId, QStringLiteral("e3"));
        QVERIFY(!store.listByWorkspace("nobody", 100, &list));
        QVERIFY(list.isEmpty());
        QVERIFY(store.listByWorkspace("light-1", 0, &list)); // limit checked
    }

    void testRowsCannotBeChangedOrDeleted() {
        EgressDecisionStore store(*m_db);
        QVERIFY(!store.append(decision("e1", "pypi.org", true, "allowed"), "w1"));
        QSqlQuery query(m_db->connection());
        QVERIFY(!query.exec(QStringLiteral("UPDATE egress_decisions SET allowed = 0")));
        QVERIFY2(query.lastError().text().contains("append-only"),
                 qPrintable(query.lastError().text()));
        QVERIFY(!query.exec(QStringLiteral("DELETE FROM egress_decisions")));
        QList<EgressDecision> list;
        QVERIFY(!store.list("e1", 10, &list));
        QCOMPARE(list.size(), 1);
        QVERIFY(list.first().allowed);
    }

    void testBadLimitIsRefused() {
        EgressDecisionStore store(*m_db);
        QList<EgressDecision> list;
        const auto error = store.list("e1", 0, &list);
        QVERIFY(error);
        QCOMPARE(http::httpStatus(error->kind), 400);
    }
};

QTEST_GUILESS_MAIN(TestEgressDecisionStore)
#include "test_egress_decision_store.moc"
