#include "agent/workspace/WorkspaceSnapshot.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox::workspace;

namespace {

bool writeFile(const QString& path, const QByteArray& content) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(content) == content.size();
}

} // namespace

class TestWorkspaceSnapshot final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_root;
    int m_fd = -1;

    WorkspaceSnapshot snap() {
        auto s = WorkspaceSnapshot::capture(m_fd);
        if (!s)
            qFatal("snapshot failed");
        return s.value();
    }

private Q_SLOTS:
    void init() {
        QVERIFY(m_tmp.isValid());
        m_root = m_tmp.path() + "/ws";
        QDir(m_root).removeRecursively();
        QVERIFY(QDir().mkpath(m_root + "/keep"));
        m_fd = ::open(QFile::encodeName(m_root).constData(), O_PATH | O_DIRECTORY);
        QVERIFY(m_fd >= 0);
    }
    void cleanup() { ::close(m_fd); }

    void testSnapshotLeavesAccessTimesAlone() {
        // Access times older than the modification times: a plain readdir would update them
        // (relatime), the snapshot's O_NOATIME walk must not.
        const timespec old[2] = {{1000, 0}, {UTIME_OMIT, 0}};
        for (const QString& dir : {m_root, m_root + QStringLiteral("/keep")})
            QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(dir).constData(), old, 0), 0);
        snap();
        for (const QString& dir : {m_root, m_root + QStringLiteral("/keep")}) {
            struct stat st {};
            QCOMPARE(::stat(QFile::encodeName(dir).constData(), &st), 0);
            QCOMPARE(qint64(st.st_atim.tv_sec), qint64(1000));
        }
    }

    void testUnchangedTreeHasEmptyDiff() {
        QVERIFY(writeFile(m_root + "/a", "1"));
        const auto before = snap();
        const auto d = WorkspaceSnapshot::diff(before, snap());
        QVERIFY(d.createdFiles.isEmpty() && d.modifiedFiles.isEmpty() && d.deletedFiles.isEmpty());
        QVERIFY(!d.truncated);
    }

    void testDiffReportsCreatedModifiedDeleted() {
        QVERIFY(writeFile(m_root + "/a", "1"));
        QVERIFY(writeFile(m_root + "/b", "2"));
        QVERIFY(writeFile(m_root + "/c", "3"));
        QVERIFY(writeFile(m_root + "/keep/same", "4"));
        QVERIFY(writeFile(m_root + "/gone-dir-file", "5"));
        const auto before = snap();

        QVERIFY(writeFile(m_root + "/a", "11"));               // size changed
        QVERIFY(QFile::remove(m_root + "/b"));                 // deleted
        QVERIFY(writeFile(m_root + "/c.new", "3"));            // same size, replaced by
        QVERIFY(::rename(QFile::encodeName(m_root + "/c.new"), // rename: new inode
                         QFile::encodeName(m_root + "/c")) == 0);
        QVERIFY(QDir().mkpath(m_root + "/new/deeper"));        // dirs are not listed
        QVERIFY(writeFile(m_root + "/new/deeper/f", "x"));     // created
        QVERIFY(QFile::link("/etc/passwd", m_root + "/link")); // created (a link)
        QVERIFY(QFile::remove(m_root + "/gone-dir-file"));     // file → directory
        QVERIFY(QDir().mkpath(m_root + "/gone-dir-file"));

        const auto d = WorkspaceSnapshot::diff(before, snap());
        QCOMPARE(d.createdFiles, (QList<QByteArray>{"link", "new/deeper/f"}));
        QCOMPARE(d.modifiedFiles, (QList<QByteArray>{"a", "c"}));
        QCOMPARE(d.deletedFiles, (QList<QByteArray>{"b", "gone-dir-file"}));
        QCOMPARE(d.createdCount, 2);
        QVERIFY(!d.truncated);
        const QJsonObject json = d.toJson();
        QCOMPARE(json.value("modifiedFiles").toArray().size(), 2);
        QCOMPARE(json.value("truncated").toBool(), false);
    }

    void testListsAreCappedWithTruncatedFlag() {
        const auto before = snap();
        for (int i = 0; i < 30; ++i)
            QVERIFY(
                writeFile(m_root + QStringLiteral("/f%1").arg(i, 2, 10, QLatin1Char('0')), "x"));
        const auto d = WorkspaceSnapshot::diff(before, snap(), 10);
        QCOMPARE(d.createdFiles.size(), 10);
        QCOMPARE(d.createdCount, 30);
        QCOMPARE(d.createdFiles.first(), QByteArray("f00"));
        QVERIFY(d.truncated);
    }

    void testIncompleteSnapshotMarksDiffTruncated() {
        for (int i = 0; i < 5; ++i)
            QVERIFY(writeFile(m_root + QStringLiteral("/f%1").arg(i), "x"));
        auto partial = WorkspaceSnapshot::capture(m_fd, 2);
        QVERIFY(partial.ok());
        QVERIFY(!partial->complete());
        QCOMPARE(qsizetype(partial->entries().size()), 2);
        QVERIFY(WorkspaceSnapshot::diff(partial.value(), snap()).truncated);
    }

    /// A chain of nested directories keeps paths of quadratic total length: the capture stops
    /// at maxPathBytes (the agent was taken out of memory by a 200,000-level chain).
    void testADeepChainStopsAtThePathBudget() {
        const int depth = 2000; // paths of 2, 4, … 4000 bytes: about 4 MB in all
        const int made = ::openat(m_fd, ".", O_RDONLY | O_DIRECTORY);
        QVERIFY(made >= 0);
        int dir = made;
        for (int i = 0; i < depth; ++i) {
            QVERIFY(::mkdirat(dir, "a", 0755) == 0);
            const int next = ::openat(dir, "a", O_RDONLY | O_DIRECTORY);
            QVERIFY(next >= 0);
            ::close(dir);
            dir = next;
        }
        ::close(dir);
        // Positive control: the default budget takes the whole chain.
        auto whole = WorkspaceSnapshot::capture(m_fd);
        QVERIFY(whole.ok());
        QVERIFY(whole->complete());
        QCOMPARE(qsizetype(whole->entries().size()), qsizetype(depth + 1)); // + keep
        auto bounded =
            WorkspaceSnapshot::capture(m_fd, WorkspaceSnapshot::kDefaultMaxEntries, 1 << 20);
        QVERIFY(bounded.ok());
        QVERIFY(!bounded->complete());
        qint64 kept = 0;
        for (const auto& e : bounded->entries())
            kept += e.path.size();
        QVERIFY2(kept <= 1 << 20, qPrintable(QString::number(kept)));
        QVERIFY(WorkspaceSnapshot::diff(bounded.value(), whole.value()).truncated);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceSnapshot)
#include "test_workspace_snapshot.moc"
