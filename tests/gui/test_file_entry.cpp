// FileEntry and DirectoryPage: the file API's listing and stat shapes (docs/contracts.md
// "Workspace file API") read tolerantly: types, octal modes, mtimes, links kept as text (never
// followed), names that are not UTF-8 kept as their bytes, paging, surprising bodies.
#include "console/api/FileEntry.h"

#include <QJsonArray>
#include <QTest>

using namespace runbox::console;

class TestFileEntry final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testListingPage() {
        const DirectoryPage page = DirectoryPage::fromJson(
            {{"path", "data"},
             {"entries",
              QJsonArray{
                  QJsonObject{{"name", "in"},
                              {"type", "directory"},
                              {"size", 4096},
                              {"allocatedBytes", 4096},
                              {"mode", "0755"},
                              {"mtime", "2026-12-07T05:00:00.000Z"},
                              {"mtimeMs", 1796619600000.0}},
                  QJsonObject{{"name", "x.csv"},
                              {"type", "file"},
                              {"size", 12},
                              {"mode", "0644"},
                              {"mtime", "2026-12-07T05:00:01.500Z"}},
                  QJsonObject{{"name", "up"}, {"type", "symlink"}, {"target", "../.."}},
                  QJsonObject{{"name", "\xef\xbf\xbd"}, {"nameBase64", "/w=="}, {"type", "file"}},
                  "junk", QJsonObject{{"type", "file"}}}},
             {"total", 7},
             {"offset", 0},
             {"limit", 4},
             {"nextOffset", 4}});
        QCOMPARE(page.path, QStringLiteral("data"));
        QCOMPARE(page.entries.size(), 4);
        QCOMPARE(page.total, 7);
        QCOMPARE(page.limit, 4);
        QVERIFY(page.hasMore());
        const FileEntry& dir = page.entries.at(0);
        QVERIFY(dir.isDirectory());
        QCOMPARE(dir.mode, 0755);
        QCOMPARE(dir.permissionsText(), QStringLiteral("rwxr-xr-x"));
        QCOMPARE(dir.mtime.toMSecsSinceEpoch(), 1796619600000);
        const FileEntry& file = page.entries.at(1);
        QCOMPARE(file.size, 12);
        QCOMPARE(file.allocatedBytes, -1);
        QCOMPARE(file.mtime, QDateTime(QDate(2026, 12, 7), QTime(5, 0, 1, 500), Qt::UTC));
        const FileEntry& link = page.entries.at(2);
        QVERIFY(link.isLink());
        QCOMPARE(link.linkTarget, QStringLiteral("../.."));
        QCOMPARE(page.entries.at(3).nameBytes, QByteArray("\xff"));
        QCOMPARE(FileEntry::typeLabel(FileEntry::Type::Directory), QStringLiteral("Folder"));

        const DirectoryPage last = DirectoryPage::fromJson(
            {{"path", ""}, {"entries", QJsonArray{}}, {"offset", 4}, {"nextOffset", QJsonValue()}});
        QVERIFY(!last.hasMore());
        QCOMPARE(last.offset, 4);
    }

    void testStatAnswerAndSurprises() {
        const FileEntry link = FileEntry::fromJson({{"path", "a/l"},
                                                    {"name", "l"},
                                                    {"type", "symlink"},
                                                    {"linkTarget", "/etc/passwd"},
                                                    {"target", "/etc/passwd"}});
        QCOMPARE(link.path, QStringLiteral("a/l"));
        QCOMPARE(link.linkTarget, QStringLiteral("/etc/passwd"));
        // Wrong types and values: unknown, never a crash.
        const FileEntry odd = FileEntry::fromJson({{"name", 3},
                                                   {"type", "pipe"},
                                                   {"size", -1},
                                                   {"mode", "rwx"},
                                                   {"mtime", 5},
                                                   {"nameBase64", "%%%"}});
        QVERIFY(odd.name.isEmpty());
        QVERIFY(odd.nameBytes.isEmpty());
        QCOMPARE(odd.type, FileEntry::Type::Unknown);
        QCOMPARE(odd.size, -1);
        QCOMPARE(odd.mode, -1);
        QVERIFY(odd.permissionsText().isEmpty());
        QVERIFY(!odd.mtime.isValid());
        QVERIFY(odd.linkTarget.isEmpty());
        const DirectoryPage none = DirectoryPage::fromJson({{"entries", "all"}, {"total", "x"}});
        QVERIFY(none.entries.isEmpty());
        QCOMPARE(none.total, -1);
        QVERIFY(!none.hasMore());
    }
};

QTEST_MAIN(TestFileEntry)
#include "test_file_entry.moc"
