// WorkspaceInfo and WorkspaceTableModel: the agent's workspace JSON read tolerantly (missing
// fields, wrong types, non-object entries, a body that is not the expected shape), the create
// answer's `rejected`, rows updated in place on refresh (kept, changed, removed, appended, checked
// by QAbstractItemModelTester and by a persistent index), sorting through SortRole, tokens kept in
// memory only, sizes and recorded executions shown as reported.
#include "console/api/WorkspaceInfo.h"
#include "console/models/WorkspaceTableModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace runbox::console;

namespace {
QJsonObject strong(const char* id, const char* created, double uid) {
    return {{"id", id}, {"isolation", "strong"}, {"createdAt", created}, {"uid", uid}};
}
QJsonObject light(const char* id, const char* created) {
    return {{"id", id},
            {"isolation", "light"},
            {"createdAt", created},
            {"uid", 3000},
            {"confinement", QJsonObject{{"landlock", true}}},
            {"lastBoundsKill", QJsonValue::Null}};
}
QList<WorkspaceInfo> list(const QJsonArray& items) {
    return WorkspaceInfo::listFromJson({{"workspaces", items}});
}
} // namespace

class TestWorkspaceTableModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testReadsWhatTheAgentReports() {
        QJsonObject o = strong("w1", "2026-12-07T05:00:00.123Z", 1879048193);
        o.insert("environmentBuild", "e0123");
        const WorkspaceInfo w = WorkspaceInfo::fromJson(o);
        QCOMPARE(w.id, QStringLiteral("w1"));
        QCOMPARE(w.isolation, QStringLiteral("strong"));
        QCOMPARE(w.createdAt, QDateTime(QDate(2026, 12, 7), QTime(5, 0, 0, 123), Qt::UTC));
        QCOMPARE(w.uid, 1879048193);
        QCOMPARE(w.environmentBuild, QStringLiteral("e0123"));
        QCOMPARE(w.idleTimeoutS, -1);
        QVERIFY(w.token.isEmpty());
        QVERIFY(!w.isLight());

        QJsonObject l = light("w2", "2026-12-07T05:00:01.000Z");
        l.insert("idleTimeoutS", 600);
        l.insert("token", "rbw1.abc");
        l.insert("lastBoundsKill", QJsonObject{{"bound", "memory"}, {"reason", "rss over 1 GiB"}});
        const WorkspaceInfo lw = WorkspaceInfo::fromJson(l);
        QVERIFY(lw.isLight());
        QCOMPARE(lw.idleTimeoutS, 600);
        QCOMPARE(lw.token, QStringLiteral("rbw1.abc"));
        QVERIFY(lw.confinement.value("landlock").toBool());
        QVERIFY(lw.boundsKillText().contains(QStringLiteral("rss over 1 GiB")));
    }

    void testSurprisingBodiesNeverCrash() {
        // Wrong types, negative or fractional numbers: left at "unknown".
        const WorkspaceInfo w = WorkspaceInfo::fromJson({{"id", "w1"},
                                                         {"isolation", 7},
                                                         {"createdAt", "yesterday"},
                                                         {"uid", -4},
                                                         {"idleTimeoutS", 1.5},
                                                         {"confinement", "none"},
                                                         {"lastBoundsKill", QJsonArray{1}}});
        QCOMPARE(w.id, QStringLiteral("w1"));
        QVERIFY(w.isolation.isEmpty());
        QVERIFY(!w.createdAt.isValid());
        QCOMPARE(w.uid, -1);
        QCOMPARE(w.idleTimeoutS, -1);
        QVERIFY(w.confinement.isEmpty());
        QVERIFY(w.boundsKillText().isEmpty());
        // Entries that are not objects, or have no id, are skipped; other shapes give nothing.
        QCOMPARE(list({1, "w", QJsonObject{{"isolation", "strong"}}, strong("w3", "", 1)}).size(),
                 1);
        QVERIFY(WorkspaceInfo::listFromJson({{"workspaces", "all"}}).isEmpty());
        QVERIFY(WorkspaceInfo::listFromJson({}).isEmpty());
        QVERIFY(WorkspaceInfo::listFromJson(QJsonDocument::fromJson("[1,2]").object()).isEmpty());
        // An unknown tier is shown as the agent said it.
        QCOMPARE(WorkspaceInfo::isolationLabel(QStringLiteral("medium")), QStringLiteral("medium"));
    }

    void testCreateAnswer() {
        const WorkspaceCreateResult r = WorkspaceCreateResult::fromJson(
            {{"workspaces", QJsonArray{light("w1", "2026-12-07T05:00:00.000Z")}}, {"rejected", 3}});
        QCOMPARE(r.workspaces.size(), 1);
        QCOMPARE(r.rejected, 3);
        QCOMPARE(WorkspaceCreateResult::fromJson({{"rejected", "many"}}).rejected, 0);
        QCOMPARE(WorkspaceCreateResult::fromJson({{"rejected", -2}}).rejected, 0);
    }

    void testRowsUpdateInPlace() {
        WorkspaceTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setWorkspaces(list({strong("w1", "2026-12-07T05:00:00.000Z", 10),
                                  light("w2", "2026-12-07T05:00:01.000Z"),
                                  strong("w3", "2026-12-07T05:00:02.000Z", 11)}));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(WorkspaceTableModel::ColumnCount));
        const QPersistentModelIndex kept = model.index(2, WorkspaceTableModel::IdColumn);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

        // Same list: nothing at all.
        model.setWorkspaces(list({strong("w1", "2026-12-07T05:00:00.000Z", 10),
                                  light("w2", "2026-12-07T05:00:01.000Z"),
                                  strong("w3", "2026-12-07T05:00:02.000Z", 11)}));
        QCOMPARE(changed.count() + removed.count() + inserted.count() + reset.count(), 0);

        // w1 gone, w2 changed (a bounds kill), w4 new: one removal, one change, one insert.
        QJsonObject w2 = light("w2", "2026-12-07T05:00:01.000Z");
        w2.insert("lastBoundsKill", QJsonObject{{"bound", "disk"}, {"reason", "quota"}});
        model.setWorkspaces(list({w2, strong("w3", "2026-12-07T05:00:02.000Z", 11),
                                  strong("w4", "2026-12-07T05:00:03.000Z", 12)}));
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(inserted.count(), 1);
        QVERIFY(kept.isValid());
        QCOMPARE(kept.data().toString(), QStringLiteral("w3"));
        QCOMPARE(model.rowOf(QStringLiteral("w1")), -1);
        QCOMPARE(model.rowOf(QStringLiteral("w4")), 2);
        QVERIFY(model.index(0, WorkspaceTableModel::NotesColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("quota")));
        QCOMPARE(model.index(0, WorkspaceTableModel::IsolationColumn).data().toString(),
                 QStringLiteral("Light"));
        QCOMPARE(model.index(1, WorkspaceTableModel::UidColumn).data().toString(),
                 QStringLiteral("11"));
        QVERIFY(model.workspaceAt(99).id.isEmpty());
        QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Workspace"));

        model.setWorkspaces({});
        QCOMPARE(model.rowCount(), 0);
    }

    void testSortsByItsKeys() {
        WorkspaceTableModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(WorkspaceTableModel::SortRole);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setWorkspaces(list({strong("wb", "2026-12-07T05:00:02.000Z", 9),
                                  strong("wa", "2026-12-07T05:00:01.000Z", 100),
                                  strong("wc", "2026-12-07T05:00:03.000Z", 20)}));
        proxy.sort(WorkspaceTableModel::UidColumn, Qt::AscendingOrder); // numbers, not text
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("wb"));
        QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("wa"));
        proxy.sort(WorkspaceTableModel::CreatedColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("wc"));
        model.setWorkspaces(list({strong("wb", "2026-12-07T05:00:02.000Z", 9),
                                  strong("wa", "2026-12-07T05:00:01.000Z", 100),
                                  strong("wc", "2026-12-07T05:00:03.000Z", 20),
                                  strong("wd", "2026-12-07T05:00:04.000Z", 1)}));
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("wd"));
    }

    void testSizeAndExecutionsColumns() {
        WorkspaceTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QJsonObject used = strong("w1", "2026-12-07T05:00:00.000Z", 10);
        used.insert("recordedExecutions", 3);
        used.insert("lastExecutionAt", "2026-12-07T06:00:00.000Z");
        QJsonObject fresh = light("w2", "2026-12-07T05:00:01.000Z");
        fresh.insert("recordedExecutions", 0);
        fresh.insert("lastExecutionAt", QJsonValue::Null);
        fresh.insert("environmentId", "e42");
        fresh.insert("idleTimeoutS", 600);
        fresh.insert("lastUsedAt", "2026-12-07T06:00:00.000Z");
        fresh.insert("idleDeadlineAt", "2026-12-07T06:10:00.000Z");
        QJsonObject odd = strong("w3", "2026-12-07T05:00:02.000Z", 11);
        odd.insert("recordedExecutions", "many"); // another type: unknown, never a crash
        model.setWorkspaces(list({used, fresh, odd}));
        const auto cell = [&](int row, int column) {
            return model.index(row, column).data().toString();
        };
        QVERIFY2(cell(0, WorkspaceTableModel::ExecutionsColumn).startsWith(QStringLiteral("3, ")),
                 qPrintable(cell(0, WorkspaceTableModel::ExecutionsColumn)));
        QCOMPARE(cell(1, WorkspaceTableModel::ExecutionsColumn), QStringLiteral("0"));
        QVERIFY(cell(2, WorkspaceTableModel::ExecutionsColumn).isEmpty());
        QVERIFY(cell(1, WorkspaceTableModel::NotesColumn).contains(QStringLiteral("e42")));
        // The light one's idle deadline, in local time; none while in use.
        const QString deadline = QLocale().toString(
            QDateTime(QDate(2026, 12, 7), QTime(6, 10), Qt::UTC).toLocalTime().time(),
            QLocale::ShortFormat);
        QVERIFY2(cell(1, WorkspaceTableModel::IdleColumn).contains(deadline),
                 qPrintable(cell(1, WorkspaceTableModel::IdleColumn)));
        fresh.insert("idleDeadlineAt", QJsonValue::Null);
        model.setWorkspaces(list({used, fresh, odd}));
        QVERIFY2(cell(1, WorkspaceTableModel::IdleColumn).startsWith(QStringLiteral("in use")),
                 qPrintable(cell(1, WorkspaceTableModel::IdleColumn)));
        // Sizes: none until measured; a capped walk says "at least".
        QVERIFY(cell(0, WorkspaceTableModel::SizeColumn).isEmpty());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setUsage(QStringLiteral("w1"), 3 * 1024 * 1024, true);
        model.setUsage(QStringLiteral("w2"), 5 * 1024 * 1024, false);
        QCOMPARE(changed.count(), 2);
        QVERIFY2(cell(0, WorkspaceTableModel::SizeColumn).contains(QStringLiteral("3.0")),
                 qPrintable(cell(0, WorkspaceTableModel::SizeColumn)));
        QVERIFY(!cell(0, WorkspaceTableModel::SizeColumn).startsWith(QStringLiteral("≥")));
        QVERIFY(cell(1, WorkspaceTableModel::SizeColumn).startsWith(QStringLiteral("≥")));
        QCOMPARE(model.index(0, WorkspaceTableModel::SizeColumn)
                     .data(WorkspaceTableModel::SortRole)
                     .toLongLong(),
                 3 * 1024 * 1024);
        // A refresh keeps the figure; a gone workspace takes it along.
        model.setWorkspaces(list({used, odd}));
        QCOMPARE(model.allocatedBytesOf(QStringLiteral("w1")), 3 * 1024 * 1024);
        QCOMPARE(model.allocatedBytesOf(QStringLiteral("w2")), -1);
    }

    void testTokensKeptInMemory() {
        WorkspaceTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setWorkspaces(list({strong("w1", "2026-12-07T05:00:00.000Z", 10)}));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.rememberToken(QStringLiteral("w1"), QStringLiteral("secret"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.tokenOf(QStringLiteral("w1")), QStringLiteral("secret"));
        const QString shown = model.index(0, WorkspaceTableModel::TokenColumn).data().toString();
        QVERIFY(!shown.isEmpty());
        QVERIFY(!shown.contains(QStringLiteral("secret"))); // never displayed
        // A create answer's idle timeout is shown while listings leave it out.
        QJsonObject made = light("w1", "2026-12-07T05:00:00.000Z");
        made.insert("idleTimeoutS", 600);
        model.rememberCreated(WorkspaceInfo::fromJson(made));
        QVERIFY(model.index(0, WorkspaceTableModel::IdleColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("600")));
        QCOMPARE(model.idleTimeoutOf(model.workspaceAt(0)), 600);
        model.forgetTokens();
        QVERIFY(model.tokenOf(QStringLiteral("w1")).isEmpty());
        QCOMPARE(model.idleTimeoutOf(model.workspaceAt(0)), -1);
        QVERIFY(model.index(0, WorkspaceTableModel::TokenColumn).data().toString().isEmpty());
    }
};

QTEST_MAIN(TestWorkspaceTableModel)
#include "test_workspace_table_model.moc"
