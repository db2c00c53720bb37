// ExecutionTableModel: lazy paging through fetchMore(), live merging of the first page, stale
// answers ignored, a missing route stops paging — under QAbstractItemModelTester throughout.
#include "console/models/ExecutionTableModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using runbox::console::ExecutionInfo;
using runbox::console::ExecutionTableModel;

namespace {

ExecutionInfo makeExecution(int i, const QString& state = QStringLiteral("completed")) {
    return ExecutionInfo::fromJson(QJsonObject{
        {"executionId", QStringLiteral("ex_%1").arg(i, 4, 10, QLatin1Char('0'))},
        {"workspace", QStringLiteral("w%1").arg(i % 3)},
        {"kind", "shell"},
        {"state", state},
        {"createdAt", "2026-11-30T00:00:00.000Z"},
        {"startedAt", "2026-11-30T00:00:01.000Z"},
        {"durationMs", 1500},
        {"exitCode", 0},
        {"permissionEpoch", QJsonObject{{"npuDevices", QJsonArray{2, 5}}}},
    });
}

// An agent-like page source over a list, newest first; answers asynchronously.
struct FakeSource {
    QList<ExecutionInfo> items;
    int pageSize = 10;
    int requests = 0;
    bool routeMissing = false;

    ExecutionTableModel::PageFetcher fetcher() {
        return [this](const QString& cursor,
                      std::function<void(const ExecutionTableModel::Page&)> done) {
            ++requests;
            ExecutionTableModel::Page page;
            if (routeMissing) {
                page.routeMissing = true;
            } else {
                const int start = cursor.isEmpty() ? 0 : cursor.toInt();
                page.items = items.mid(start, pageSize);
                if (start + pageSize < items.size())
                    page.nextCursor = QString::number(start + pageSize);
            }
            QTimer::singleShot(0, [done, page] { done(page); });
        };
    }
};

} // namespace

class TestExecutionTableModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testOnlyTheFirstPageLoadsUntilAViewAsks() {
        FakeSource source;
        for (int i = 25; i > 0; --i)
            source.items.append(makeExecution(i));
        ExecutionTableModel model; // no tester here: it calls fetchMore() itself
        model.setFetcher(source.fetcher());
        QTRY_COMPARE(model.rowCount(), 10);
        QTest::qWait(20);
        QCOMPARE(source.requests, 1);
        QVERIFY(model.canFetchMore({}));
        model.fetchMore({});
        QVERIFY(!model.canFetchMore({})); // one page in flight at a time
        QTRY_COMPARE(model.rowCount(), 20);
        QCOMPARE(source.requests, 2);
    }

    void testFetchMoreReachesTheEnd() {
        FakeSource source;
        for (int i = 25; i > 0; --i)
            source.items.append(makeExecution(i));
        ExecutionTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFetcher(source.fetcher());
        QTRY_VERIFY(model.rowCount() >= 10);
        while (model.canFetchMore({}) || model.isLoading()) {
            model.fetchMore({});
            QTest::qWait(1);
        }
        QCOMPARE(model.rowCount(), 25);
        QCOMPARE(source.requests, 3);
        QCOMPARE(model.executionAt(0).id, QStringLiteral("ex_0025"));
        QCOMPARE(model.executionAt(24).id, QStringLiteral("ex_0001"));
    }

    void testRefreshHeadAddsNewOnTopAndUpdatesKnownRows() {
        FakeSource source;
        source.items = {makeExecution(3, QStringLiteral("running")), makeExecution(2),
                        makeExecution(1)};
        ExecutionTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFetcher(source.fetcher());
        QTRY_COMPARE(model.rowCount(), 3);
        QSignalSpy changed(&model, &ExecutionTableModel::dataChanged);
        source.items = {makeExecution(5, QStringLiteral("queued")),
                        makeExecution(4, QStringLiteral("running")), makeExecution(3),
                        makeExecution(2), makeExecution(1)};
        model.refreshHead();
        QTRY_COMPARE(model.rowCount(), 5);
        QCOMPARE(model.executionAt(0).id, QStringLiteral("ex_0005"));
        QCOMPARE(model.executionAt(1).id, QStringLiteral("ex_0004"));
        QCOMPARE(model.executionAt(2).state, QStringLiteral("completed")); // was running
        QVERIFY(changed.count() >= 1);
        QCOMPARE(model.index(0, ExecutionTableModel::StateColumn)
                     .data(ExecutionTableModel::StateRole)
                     .toString(),
                 QStringLiteral("queued"));
    }

    void testAnswersForAnEarlierStateAreIgnored() {
        FakeSource first, second;
        first.items = {makeExecution(1)};
        second.items = {makeExecution(7), makeExecution(6)};
        ExecutionTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFetcher(first.fetcher());
        model.setFetcher(second.fetcher()); // before the first answer arrives
        QTRY_COMPARE(model.rowCount(), 2);
        QTest::qWait(20);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.executionAt(0).id, QStringLiteral("ex_0007"));
    }

    void testMissingRouteStopsPaging() {
        FakeSource source;
        source.routeMissing = true;
        ExecutionTableModel model;
        QSignalSpy failed(&model, &ExecutionTableModel::loadFailed);
        model.setFetcher(source.fetcher());
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(1).toBool());
        QVERIFY(model.routeMissing());
        QVERIFY(!model.canFetchMore({}));
        model.refreshHead();
        QCOMPARE(source.requests, 1);
    }

    void testCellsShowStateDurationExitCodeAndChips() {
        FakeSource source;
        source.items = {makeExecution(1, QStringLiteral("failed"))};
        ExecutionTableModel model;
        model.setFetcher(source.fetcher());
        QTRY_COMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, ExecutionTableModel::StateColumn).data().toString(),
                 ExecutionInfo::stateLabel(QStringLiteral("failed")));
        QCOMPARE(model.index(0, ExecutionTableModel::StateColumn)
                     .data(Qt::ForegroundRole)
                     .value<QColor>(),
                 ExecutionInfo::stateColor(QStringLiteral("failed")));
        QVERIFY(
            !model.index(0, ExecutionTableModel::StateColumn).data(Qt::DecorationRole).isNull());
        QCOMPARE(model.index(0, ExecutionTableModel::ExitCodeColumn).data().toString(),
                 QStringLiteral("0"));
        QCOMPARE(model.index(0, ExecutionTableModel::ChipsColumn).data().toString(),
                 QStringLiteral("2, 5"));
        QVERIFY(!model.index(0, ExecutionTableModel::DurationColumn).data().toString().isEmpty());
        QCOMPARE(model.headerData(ExecutionTableModel::IdColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Execution"));
    }
};

QTEST_MAIN(TestExecutionTableModel)
#include "test_execution_table_model.moc"
