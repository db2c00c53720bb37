// WorkspaceWriteWatch over a real directory tree: writes anywhere in it (new directories
// included) are reported, writes outside it (through a symlink in it) are not, and the watch
// says when it could not cover every directory. Each "not reported" has its positive control in
// the same test: a write inside, reported by the same watch.
#include "agent/workspace/WorkspaceWriteWatch.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <unistd.h>

using runbox::workspace::WorkspaceWriteWatch;

namespace {

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Append));
    QCOMPARE(file.write(bytes), bytes.size());
}

/// Runs the event loop until @p spy has a signal or @p ms pass; true when it has one.
bool reported(QSignalSpy& spy, int ms = 2000) {
    return !spy.isEmpty() || spy.wait(ms);
}

} // namespace

class TestWorkspaceWriteWatch final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testWritesInTheTreeAreReported() {
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("a/b/c")));
        const int fd = ::open(QFile::encodeName(root.path()).constData(), O_PATH | O_DIRECTORY);
        WorkspaceWriteWatch watch(fd);
        ::close(fd);
        QSignalSpy spy(&watch, &WorkspaceWriteWatch::written);
        QVERIFY(watch.start());
        QCOMPARE(watch.watchCount(), 4);
        QVERIFY(watch.complete());
        QVERIFY(!spy.wait(100)); // nothing written yet

        writeFile(root.filePath(QStringLiteral("a/b/c/deep")), "x");
        QVERIFY(reported(spy));
        spy.clear();

        // A directory made after the start, and one made inside it before its watch could be
        // added (both in one batch): writes into the inner one are reported too.
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("new/inner")));
        QVERIFY(reported(spy));
        QTest::qWait(50);
        spy.clear();
        QCOMPARE(watch.watchCount(), 6);
        writeFile(root.filePath(QStringLiteral("new/inner/file")), "y");
        QVERIFY(reported(spy));
    }

    void testWritesOutsideThroughASymlinkAreNotWatched() {
        QTemporaryDir root;
        QTemporaryDir outside;
        QVERIFY(QFile::link(outside.path(), root.filePath(QStringLiteral("link"))));
        const int fd = ::open(QFile::encodeName(root.path()).constData(), O_PATH | O_DIRECTORY);
        WorkspaceWriteWatch watch(fd);
        ::close(fd);
        QSignalSpy spy(&watch, &WorkspaceWriteWatch::written);
        QVERIFY(watch.start());
        QCOMPARE(watch.watchCount(), 1); // the root only: the link is not a directory
        writeFile(outside.filePath(QStringLiteral("f")), "outside");
        QVERIFY(!spy.wait(200));
        writeFile(root.filePath(QStringLiteral("f")), "inside"); // positive control
        QVERIFY(reported(spy));
    }

    void testPastMaxWatchesItSaysIncomplete() {
        QTemporaryDir root;
        for (const char* dir : {"a", "b", "c"})
            QVERIFY(QDir(root.path()).mkpath(QString::fromLatin1(dir)));
        const int fd = ::open(QFile::encodeName(root.path()).constData(), O_PATH | O_DIRECTORY);
        WorkspaceWriteWatch::Options options;
        options.maxWatches = 2;
        WorkspaceWriteWatch watch(fd, options);
        ::close(fd);
        QVERIFY(watch.start());
        QCOMPARE(watch.watchCount(), 2);
        QVERIFY(!watch.complete());
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceWriteWatch)
#include "test_workspace_write_watch.moc"
