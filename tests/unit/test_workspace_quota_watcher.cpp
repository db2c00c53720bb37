// WorkspaceQuotaWatcher over a real directory: the live watch sees growth past the limit through
// the write watch (with its timer set to an hour, so the timer cannot be what saw it), and
// through the timer alone when a write reaches the tree where no watch sees it (a hard link from
// outside); growth under the limit is never reported (positive control). The one-shot checks
// (overLimit, full) count a tree at the limit as full but not over.
#include "agent/execution/WorkspaceQuotaWatcher.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using runbox::execution::WorkspaceQuotaWatcher;
using runbox::workspace::WorkspaceFs;

namespace {

constexpr qint64 kLimit = 1 << 20;

std::shared_ptr<const WorkspaceFs> openFs(const QString& path) {
    auto fs = WorkspaceFs::open(path);
    return fs.ok() ? std::make_shared<const WorkspaceFs>(std::move(fs.value())) : nullptr;
}

void writeBytes(const QString& path, qint64 bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const QByteArray chunk(64 * 1024, 'x');
    for (qint64 written = 0; written < bytes; written += chunk.size())
        QCOMPARE(file.write(chunk), chunk.size());
    QVERIFY(file.flush());
}

} // namespace

class TestWorkspaceQuotaWatcher final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testWritesPastTheLimitAreSeenWithoutTheTimer() {
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("deep/er")));
        WorkspaceQuotaWatcher watcher(openFs(root.path()), kLimit);
        watcher.setIntervalMs(3600 * 1000);
        QSignalSpy spy(&watcher, &WorkspaceQuotaWatcher::exceeded);
        watcher.start();
        QVERIFY(watcher.writeWatchComplete());
        QCOMPARE(watcher.writeWatchCount(), 3);

        writeBytes(root.filePath(QStringLiteral("deep/er/small")), 256 * 1024);
        QVERIFY(!spy.wait(300)); // positive control: under the limit, nothing

        // A directory made while it runs, and many files in it past the limit.
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("new")));
        QTest::qWait(20);
        for (int i = 0; i < 8; ++i)
            writeBytes(root.filePath(QStringLiteral("new/f%1").arg(i)), 256 * 1024);
        QVERIFY(spy.wait(5000));
        QCOMPARE(spy.size(), 1);
        QVERIFY(spy.first().at(0).toLongLong() > kLimit);
        QCOMPARE(spy.first().at(1).toLongLong(), kLimit);
        QVERIFY(!spy.wait(200)); // once only
    }

    void testTheTimerStillSeesWhatNoWatchReaches() {
        // A file of the tree written through a hard link outside it: inotify reports the write
        // to the directory of the name used (inotify(7)), outside, so only the timer sees it.
        QTemporaryDir base;
        QVERIFY(QDir(base.path()).mkpath(QStringLiteral("ws")));
        QVERIFY(QDir(base.path()).mkpath(QStringLiteral("out")));
        writeBytes(base.filePath(QStringLiteral("ws/f")), 4096);
        QCOMPARE(::link(QFile::encodeName(base.filePath(QStringLiteral("ws/f"))).constData(),
                        QFile::encodeName(base.filePath(QStringLiteral("out/f"))).constData()),
                 0);
        WorkspaceQuotaWatcher watcher(openFs(base.filePath(QStringLiteral("ws"))), kLimit);
        watcher.setIntervalMs(100);
        QSignalSpy spy(&watcher, &WorkspaceQuotaWatcher::exceeded);
        watcher.start();
        QVERIFY(!spy.wait(300)); // positive control: under the limit, nothing
        writeBytes(base.filePath(QStringLiteral("out/f")), 2 * kLimit);
        QVERIFY(spy.wait(5000));
    }

    void testOneShotChecks() {
        QTemporaryDir root;
        WorkspaceQuotaWatcher watcher(openFs(root.path()), 4 * kLimit);
        qint64 used = 0;
        QVERIFY(!watcher.overLimit(&used));
        QVERIFY(!watcher.full());
        writeBytes(root.filePath(QStringLiteral("f")), 5 * kLimit);
        QVERIFY(watcher.overLimit(&used));
        QVERIFY(used > 4 * kLimit);
        QVERIFY(watcher.full());
        // Unlimited: never over, never full, and start() watches nothing.
        WorkspaceQuotaWatcher unlimited(openFs(root.path()), 0);
        QVERIFY(!unlimited.overLimit());
        QVERIFY(!unlimited.full());
        unlimited.start();
        QCOMPARE(unlimited.writeWatchCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceQuotaWatcher)
#include "test_workspace_quota_watcher.moc"
