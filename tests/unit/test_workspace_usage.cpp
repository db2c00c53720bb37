#include "agent/workspace/WorkspaceUsage.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox::workspace;

namespace {

constexpr qint64 kMiB = 1024 * 1024;

bool run(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

bool writeFile(const QString& path, const QByteArray& content) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(content) == content.size();
}

} // namespace

class TestWorkspaceUsage final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_root;

    qint64 allocated() {
        auto r = WorkspaceUsage::measure(m_root, {});
        if (!r) {
            qWarning() << r.error().message;
            return -1;
        }
        return r->allocatedBytes;
    }

private Q_SLOTS:
    void init() {
        QVERIFY(m_tmp.isValid());
        m_root = m_tmp.path() + "/ws";
        QDir(m_root).removeRecursively();
        QVERIFY(QDir().mkpath(m_root));
    }

    void testSparseFileCountsAlmostNothing() {
        const qint64 empty = allocated();
        QVERIFY(empty >= 0);
        QVERIFY(run("truncate", {"-s", "100G", m_root + "/sparse"}));
        QCOMPARE(QFileInfo(m_root + "/sparse").size(), 100LL * 1024 * kMiB); // apparent 100 GiB
        auto r = WorkspaceUsage::measure(m_root, {});
        QVERIFY(r.ok());
        QVERIFY2(r->allocatedBytes - empty < kMiB, qPrintable(QString::number(r->allocatedBytes)));
        QCOMPARE(r->apparentBytes, 100LL * 1024 * kMiB);
    }

    void testFallocatedFileCountsItsBlocks() {
        const qint64 empty = allocated();
        QVERIFY(run("fallocate", {"-l", "10M", m_root + "/alloc"}));
        const qint64 grown = allocated() - empty;
        QVERIFY2(grown >= 10 * kMiB && grown < 11 * kMiB, qPrintable(QString::number(grown)));
    }

    void testHardLinksCountOnce() {
        QVERIFY(run("fallocate", {"-l", "4M", m_root + "/a"}));
        const qint64 one = allocated();
        QVERIFY(QDir().mkpath(m_root + "/sub"));
        const qint64 withDir = allocated();
        QVERIFY(::link(QFile::encodeName(m_root + "/a").constData(),
                       QFile::encodeName(m_root + "/sub/b").constData()) == 0);
        QCOMPARE(allocated(), withDir); // same inode, not counted again
        QVERIFY(withDir - one < kMiB);
    }

    void testSymlinksAreNotFollowed() {
        const QString outside = m_tmp.path() + "/outside";
        QVERIFY(QDir().mkpath(outside));
        QVERIFY(run("fallocate", {"-l", "8M", outside + "/big"}));
        const qint64 before = allocated();
        QVERIFY(QFile::link(outside, m_root + "/dirlink"));
        QVERIFY(QFile::link(outside + "/big", m_root + "/filelink"));
        QVERIFY(QFile::link("/", m_root + "/rootlink"));
        const qint64 after = allocated();
        QVERIFY2(after - before < kMiB, qPrintable(QString::number(after - before)));
        // Positive control: the same bytes inside the workspace do count.
        QVERIFY(run("fallocate", {"-l", "8M", m_root + "/big"}));
        QVERIFY(allocated() - after >= 8 * kMiB);
    }

    void testBudgetStopsEarly() {
        QVERIFY(QDir().mkpath(m_root + "/d"));
        for (int i = 0; i < 20; ++i)
            QVERIFY(run("fallocate", {"-l", "1M", m_root + QStringLiteral("/d/f%1").arg(i)}));
        WorkspaceUsage::Options o;
        o.budgetBytes = 5 * kMiB;
        auto r = WorkspaceUsage::measure(m_root, o);
        QVERIFY(r.ok());
        QVERIFY(r->over);
        QVERIFY(!r->complete);
        QVERIFY(r->entries < 21);
        o.budgetBytes = 100 * kMiB;
        auto full = WorkspaceUsage::measure(m_root, o);
        QVERIFY(full.ok());
        QVERIFY(!full->over);
        QVERIFY(full->complete);
        QCOMPARE(full->entries, 21);
        QVERIFY(full->allocatedBytes >= 20 * kMiB);
    }

    void testEntryCapMarksIncomplete() {
        for (int i = 0; i < 10; ++i)
            QVERIFY(writeFile(m_root + QStringLiteral("/f%1").arg(i), "x"));
        WorkspaceUsage::Options o;
        o.maxEntries = 3;
        auto r = WorkspaceUsage::measure(m_root, o);
        QVERIFY(r.ok());
        QCOMPARE(r->entries, 3);
        QVERIFY(!r->complete);
        QVERIFY(!r->over);
    }

    void testDeepTreeIsCountedFully() {
        // Deeper than the walker keeps open: every level's file must still be counted.
        int fd = ::open(QFile::encodeName(m_root).constData(), O_PATH | O_DIRECTORY);
        QVERIFY(fd >= 0);
        const int depth = 200;
        for (int i = 0; i < depth; ++i) {
            QVERIFY(::mkdirat(fd, "d", 0755) == 0);
            const int f = ::openat(fd, "data", O_CREAT | O_WRONLY, 0644);
            QVERIFY(f >= 0);
            QVERIFY(::fallocate(f, 0, 0, 64 * 1024) == 0);
            ::close(f);
            const int next = ::openat(fd, "d", O_PATH | O_DIRECTORY);
            ::close(fd);
            fd = next;
        }
        ::close(fd);
        auto r = WorkspaceUsage::measure(m_root, {});
        QVERIFY2(r.ok(), r.ok() ? "" : qPrintable(r.error().message));
        QVERIFY(r->complete);
        QCOMPARE(r->entries, 2 * depth);
        QVERIFY(r->allocatedBytes >= depth * 64 * 1024);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceUsage)
#include "test_workspace_usage.moc"
