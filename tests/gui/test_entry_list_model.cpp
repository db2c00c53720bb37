// EntryListModel with the shared grammar as validator: refused entries are marked with the
// reason, pasting many lines, edits re-validate, the agent's refusals are marked too.
#include "console/models/EntryListModel.h"
#include "shared/NetworkPolicyGrammar.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using runbox::NetworkPolicyGrammar;
using runbox::console::EntryListModel;

namespace {
QString domainProblem(const QString& entry) {
    QString error;
    return NetworkPolicyGrammar::parseDomain(entry, &error) ? QString() : error;
}
} // namespace

class TestEntryListModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testGoodEntriesAreNotMarkedBadOnesAre() {
        EntryListModel model(domainProblem);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries({QStringLiteral("pypi.org"), QStringLiteral("127.0.0.1"),
                          QStringLiteral("*.pythonhosted.org:443")});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.invalidRows(), QList<int>{1});
        QVERIFY(model.index(0).data(EntryListModel::ErrorRole).toString().isEmpty());
        const QString why = model.index(1).data(EntryListModel::ErrorRole).toString();
        QVERIFY2(why.contains(QStringLiteral("IP")), qPrintable(why));
        QVERIFY(model.index(1).data(Qt::DisplayRole).toString().contains(why));
        QCOMPARE(model.index(1).data(Qt::EditRole).toString(), QStringLiteral("127.0.0.1"));
        QVERIFY(!model.index(1).data(Qt::DecorationRole).isNull());
        QVERIFY(model.index(0).data(Qt::DecorationRole).isNull());
        QVERIFY(!model.isModified());
    }

    void testEditingRevalidates() {
        EntryListModel model(domainProblem);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries({QStringLiteral("localhost")});
        QCOMPARE(model.invalidRows(), QList<int>{0});
        QVERIFY(model.setData(model.index(0), QStringLiteral("  mirror.example.org ")));
        QVERIFY(model.invalidRows().isEmpty());
        QCOMPARE(model.entries(), QStringList{QStringLiteral("mirror.example.org")});
        QVERIFY(model.isModified());
        QVERIFY(model.flags(model.index(0)) & Qt::ItemIsEditable);
    }

    void testPastingManyLines() {
        EntryListModel model(domainProblem);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &EntryListModel::entriesChanged);
        const int added = model.addLines(QStringLiteral(
            "# package index\npypi.org\n\n  files.pythonhosted.org , conda.anaconda.org\n"
            "bad host name\n"));
        QCOMPARE(added, 6);
        QCOMPARE(model.entries(), (QStringList{"pypi.org", "files.pythonhosted.org",
                                               "conda.anaconda.org", "bad", "host", "name"}));
        QCOMPARE(model.invalidRows(), (QList<int>{3, 4, 5})); // single labels
        QCOMPARE(changed.count(), 1);
    }

    void testAgentRefusalIsMarkedUntilEdited() {
        EntryListModel model(domainProblem);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries({QStringLiteral("pypi.org"), QStringLiteral("example.org")});
        QVERIFY(model.invalidRows().isEmpty());
        QVERIFY(model.markRefused(QStringLiteral("example.org"), QStringLiteral("refused")));
        QCOMPARE(model.invalidRows(), QList<int>{1});
        QVERIFY(!model.markRefused(QStringLiteral("absent.org"), QStringLiteral("x")));
        QVERIFY(model.setData(model.index(1), QStringLiteral("example.net")));
        QVERIFY(model.invalidRows().isEmpty());
    }

    void testRemovingRows() {
        EntryListModel model(domainProblem);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(
            {QStringLiteral("a.org"), QStringLiteral("b.org"), QStringLiteral("c.org")});
        QVERIFY(model.removeRows(0, 2));
        QCOMPARE(model.entries(), QStringList{QStringLiteral("c.org")});
        QVERIFY(!model.removeRows(0, 5));
        QCOMPARE(model.addEntry(QStringLiteral("d.org")), 1);
    }
};

QTEST_MAIN(TestEntryListModel)
#include "test_entry_list_model.moc"
