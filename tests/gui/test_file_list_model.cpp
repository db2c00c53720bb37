// FileListModel: a directory read page by page (fetchMore asks through pageWanted, appendPage
// adds the next page only), late pages after a change of directory ignored, links shown with
// their target as text; checked by QAbstractItemModelTester.
#include "console/models/FileListModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace runbox::console;

namespace {
DirectoryPage page(const char* path, qint64 offset, int count, qint64 total) {
    QJsonArray entries;
    for (int i = 0; i < count; ++i)
        entries.append(QJsonObject{{"name", QStringLiteral("f%1").arg(offset + i)},
                                   {"type", "file"},
                                   {"size", 2048},
                                   {"mode", "0644"}});
    const qint64 next = offset + count;
    return DirectoryPage::fromJson(
        {{"path", path},
         {"entries", entries},
         {"total", total},
         {"offset", offset},
         {"limit", count},
         {"nextOffset", next < total ? QJsonValue(next) : QJsonValue()}});
}
} // namespace

class TestFileListModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testPagesArriveInOrder() {
        FileListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy wanted(&model, &FileListModel::pageWanted);
        model.setDirectory(QStringLiteral("data"));
        QVERIFY(!model.canFetchMore({})); // the first page is the caller's to ask for
        QVERIFY(model.appendPage(page("data", 0, 3, 7)));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.total(), 7);
        // The next page is asked for once (the tester, like a view, may already have asked).
        if (model.canFetchMore({}))
            model.fetchMore({});
        model.fetchMore({});
        QCOMPARE(wanted.count(), 1);
        QCOMPARE(wanted.at(0).at(0).toString(), QStringLiteral("data"));
        QCOMPARE(wanted.at(0).at(1).toLongLong(), 3);
        QVERIFY(!model.canFetchMore({}));                   // one request at a time
        QVERIFY(!model.appendPage(page("data", 0, 3, 7)));  // not the next page
        QVERIFY(!model.appendPage(page("other", 3, 3, 7))); // another directory
        QVERIFY(model.appendPage(page("data", 3, 3, 7)));
        if (model.canFetchMore({}))
            model.fetchMore({});
        QCOMPARE(wanted.count(), 2);
        QCOMPARE(wanted.at(1).at(1).toLongLong(), 6);
        QVERIFY(model.appendPage(page("data", 6, 1, 7)));
        QCOMPARE(model.rowCount(), 7);
        QVERIFY(!model.canFetchMore({}));
        QCOMPARE(model.entryAt(6).name, QStringLiteral("f6"));
        QCOMPARE(model.index(0, FileListModel::PermissionsColumn).data().toString(),
                 QStringLiteral("rw-r--r--"));
        QVERIFY(!model.index(0, FileListModel::SizeColumn).data().toString().isEmpty());
        QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Name"));

        // Another directory: a late page of the old one is ignored.
        model.setDirectory(QString());
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.appendPage(page("data", 7, 1, 8)));
        QVERIFY(model.appendPage(page("", 0, 2, 2)));
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.entryAt(5).name.isEmpty());
    }

    void testLinksAreShownNotFollowed() {
        FileListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDirectory(QString());
        QVERIFY(model.appendPage(DirectoryPage::fromJson(
            {{"path", ""},
             {"entries",
              QJsonArray{QJsonObject{{"name", "etc"}, {"type", "symlink"}, {"target", "/etc"}},
                         QJsonObject{{"name", "d"}, {"type", "directory"}}}},
             {"offset", 0},
             {"nextOffset", QJsonValue()}})));
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("etc → /etc"));
        QVERIFY(model.entryAt(0).isLink());
        QVERIFY(model.index(1, FileListModel::SizeColumn).data().toString().isEmpty());
    }
};

QTEST_MAIN(TestFileListModel)
#include "test_file_list_model.moc"
