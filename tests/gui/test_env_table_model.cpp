// EnvTableModel: rows added and removed, bad and duplicate names marked, empty rows ignored.
#include "console/models/EnvTableModel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using runbox::console::EnvTableModel;

class TestEnvTableModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testVariablesAreEditedAndValidated() {
        EnvTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.insertRows(0, 3));
        QVERIFY(model.setData(model.index(0, EnvTableModel::NameColumn), QStringLiteral("SEED")));
        QVERIFY(model.setData(model.index(0, EnvTableModel::ValueColumn), QStringLiteral("42")));
        QVERIFY(model.setData(model.index(1, EnvTableModel::NameColumn), QStringLiteral("1BAD")));
        QVERIFY(model.nameProblem(0).isEmpty());
        QVERIFY(!model.nameProblem(1).isEmpty());
        QVERIFY(model.nameProblem(2).isEmpty()); // empty row: ignored, not an error
        QVERIFY(!model.index(1, 0).data(Qt::ForegroundRole).isNull());
        QVERIFY(model.setData(model.index(2, EnvTableModel::NameColumn), QStringLiteral("SEED")));
        QVERIFY(model.nameProblem(2).contains(QStringLiteral("SEED")));
        QCOMPARE(model.variables().size(), 3);
        QVERIFY(model.removeRows(1, 2));
        QCOMPARE(model.variables(), (QList<QPair<QString, QString>>{{"SEED", "42"}}));
        QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Variable"));
    }

    void testSetVariablesResets() {
        EnvTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setVariables({{"A", "1"}, {"B", "2"}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("2"));
        QVERIFY(!model.removeRows(1, 5));
    }
};

QTEST_MAIN(TestEnvTableModel)
#include "test_env_table_model.moc"
