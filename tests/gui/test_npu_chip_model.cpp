// NpuChipModel over an issue-5 inventory (8 × 910B3 with one occupied chip, plus a 310P):
// only usable chips are checkable, the others carry their reason; checks survive refreshes only
// while the chip stays usable.
#include "console/models/NpuChipModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using runbox::console::NpuChipModel;
using runbox::console::NpuInventory;

namespace {
QJsonObject chip(int id, const QString& name, bool supported, bool usable,
                 const QString& reason = {}) {
    return {
        {"logicId", id},
        {"npuId", id / 2},
        {"chipId", id % 2},
        {"name", name},
        {"supported", supported},
        {"health", "OK"},
        {"temperatureC", 40 + id},
        {"aiCorePercent", 12.5},
        {"hbmUsedMb", 3000},
        {"hbmTotalMb", 65536},
        {"powerW", 90.0},
        {"probe",
         QJsonObject{{"usable", usable}, {"reason", reason}, {"at", "2026-11-30T00:00:00.000Z"}}}};
}

QJsonObject inventory(bool chip3Usable) {
    QJsonArray chips;
    for (int i = 7; i >= 0; --i) // out of order on purpose: the model sorts by logic id
        chips.append(chip(i, QStringLiteral("910B3"), true, i != 3 || chip3Usable,
                          i == 3 && !chip3Usable ? QStringLiteral("NPU 3 cannot be opened inside "
                                                                  "the sandbox: ret is -8020")
                                                 : QString()));
    chips.append(chip(8, QStringLiteral("310P3"), false, false));
    return {{"capturedAt", "2026-11-30T00:00:00.000Z"}, {"source", "npu-smi"}, {"chips", chips}};
}
} // namespace

class TestNpuChipModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testOnlyUsableChipsAreCheckable() {
        NpuChipModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setInventory(NpuInventory::fromJson(inventory(false)));
        QCOMPARE(model.rowCount(), 9);
        QCOMPARE(model.index(0).data(NpuChipModel::LogicIdRole).toInt(), 0);
        QVERIFY(model.flags(model.index(0)) & Qt::ItemIsUserCheckable);
        QVERIFY(!(model.flags(model.index(3)) & Qt::ItemIsUserCheckable));
        QVERIFY(!(model.flags(model.index(8)) & Qt::ItemIsUserCheckable));
        QVERIFY(model.index(3)
                    .data(NpuChipModel::ReasonRole)
                    .toString()
                    .contains(QStringLiteral("-8020")));
        QVERIFY(model.index(8)
                    .data(NpuChipModel::ReasonRole)
                    .toString()
                    .contains(QStringLiteral("310P3")));
        QVERIFY(model.index(3).data(Qt::ToolTipRole).toString().contains(QStringLiteral("-8020")));
        QVERIFY(!model.setData(model.index(3), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(model.setData(model.index(5), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(model.setData(model.index(2), Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(model.checkedChips(), (QList<int>{2, 5}));
        QCOMPARE(NpuInventory::fromJson(inventory(false)).usableCount(), 7);
    }

    void testChecksSurviveRefreshOnlyWhileUsable() {
        NpuChipModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setInventory(NpuInventory::fromJson(inventory(true)));
        model.setCheckedChips({1, 3, 8});
        QCOMPARE(model.checkedChips(), (QList<int>{1, 3})); // 8 is a 310P: never
        QSignalSpy changed(&model, &NpuChipModel::checkedChipsChanged);
        model.setInventory(NpuInventory::fromJson(inventory(false))); // chip 3 now occupied
        QCOMPARE(model.checkedChips(), QList<int>{1});
        QCOMPARE(changed.count(), 1);
    }

    void testReadingsAreExposed() {
        NpuChipModel model;
        model.setInventory(NpuInventory::fromJson(inventory(true)));
        const QModelIndex i = model.index(4);
        QCOMPARE(i.data(NpuChipModel::TemperatureRole).toDouble(), 44.0);
        QCOMPARE(i.data(NpuChipModel::AiCoreRole).toDouble(), 12.5);
        QCOMPARE(i.data(NpuChipModel::HbmTotalRole).toLongLong(), 65536);
        QCOMPARE(i.data(NpuChipModel::NameRole).toString(), QStringLiteral("910B3"));
        QVERIFY(i.data(NpuChipModel::HealthColorRole).value<QColor>().isValid());
    }

    void testHeldChipsAreMarked() {
        QJsonObject answer = inventory(true);
        answer.insert("held", QJsonArray{5, 2, 5, 42}); // unsorted, repeated, one not listed
        const NpuInventory inv = NpuInventory::fromJson(answer);
        QCOMPARE(inv.held, (QList<int>{2, 5, 42}));
        QCOMPARE(inv.heldCount(), 2);
        NpuChipModel model;
        model.setInventory(inv);
        QVERIFY(model.index(2).data(NpuChipModel::HeldRole).toBool());
        QVERIFY(model.index(5).data(NpuChipModel::HeldRole).toBool());
        QVERIFY(!model.index(4).data(NpuChipModel::HeldRole).toBool());
        QVERIFY(model.index(5).data(Qt::ToolTipRole).toString().contains(QStringLiteral("In use")));
        QVERIFY(
            !model.index(4).data(Qt::ToolTipRole).toString().contains(QStringLiteral("In use")));
        QCOMPARE(NpuInventory::fromJson(inventory(true)).heldCount(), 0);
    }
};

QTEST_MAIN(TestNpuChipModel)
#include "test_npu_chip_model.moc"
