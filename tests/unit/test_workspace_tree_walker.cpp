// WorkspaceTreeWalker at depths past its descriptor budget (docs/contracts.md "Workspace file
// API": "Deep trees"), with a budget of 8 descriptors: a window of 2 levels, a checkpoint every
// 16, 80 levels entered. Every level of a 300-level chain (a directory and a file each) down
// to 80 is visited and left once, the deeper directory is reported and not entered, and no
// more descriptors than the budget are open; a closed ancestor swapped mid-walk stops it with
// tree_changed; usage says it is incomplete, and over any quota (it fails closed); removal
// moves what lies too deep up and removes it all, touching nothing a link points to.
#include "agent/workspace/WorkspaceRemoval.h"
#include "agent/workspace/WorkspaceTreeWalker.h"
#include "agent/workspace/WorkspaceUsage.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox::workspace;

namespace {

constexpr int kBudget = 8;

int openDescriptors() {
    return int(QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::NoDotAndDotDot).size());
}

/// A chain of @p levels directories `d` under @p root, each holding a file `f`, made through
/// descriptors (the paths pass PATH_MAX).
bool makeChain(const QString& root, int levels) {
    int fd = ::open(QFile::encodeName(root).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; i < levels && fd >= 0; ++i) {
        const int file = ::openat(fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (file < 0 || ::mkdirat(fd, "d", 0700) != 0)
            return false;
        ::close(file);
        const int next = ::openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ::close(fd);
        fd = next;
    }
    if (fd < 0)
        return false;
    ::close(fd);
    return true;
}

QString levelPath(const QString& root, int depth) {
    QString p = root;
    for (int i = 0; i < depth; ++i)
        p += QStringLiteral("/d");
    return p;
}

} // namespace

class TestWorkspaceTreeWalker final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_root;
    int m_rootFd = -1;

private Q_SLOTS:
    void init() {
        QVERIFY(m_tmp.isValid());
        m_root = m_tmp.path() + QStringLiteral("/ws");
        QVERIFY(QDir().mkpath(m_root));
        QVERIFY(makeChain(m_root, 300));
        m_rootFd = ::open(QFile::encodeName(m_root).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(m_rootFd >= 0);
    }

    void cleanup() {
        if (m_rootFd >= 0)
            QVERIFY(WorkspaceRemoval::removeContents(m_rootFd, "").ok());
        ::close(m_rootFd);
        m_rootFd = -1;
    }

    void testTheBudgetSetsTheDepth() {
        QCOMPARE(WorkspaceTreeWalker::maxDepth(kBudget), 80);
        QCOMPARE(WorkspaceTreeWalker::maxDepth(WorkspaceTreeWalker::kMaxOpenDirectories), 97792);
    }

    void testADeepChainIsWalkedOnceWithinTheBudget() {
        // Positive control: the default budget walks the whole chain.
        int all = 0;
        QVERIFY(WorkspaceTreeWalker::walk(m_rootFd, {}, [&](const WorkspaceTreeWalker::Entry&) {
                    ++all;
                    return WorkspaceTreeWalker::Action::Continue;
                }).ok());
        QCOMPARE(all, 600);

        WorkspaceTreeWalker::Options options;
        options.maxOpenDirectories = kBudget;
        const int before = openDescriptors();
        int files = 0, dirs = 0, beyond = 0, left = 0, mostOpen = 0, deepest = 0;
        const auto onEntry = [&](const WorkspaceTreeWalker::Entry& e) {
            mostOpen = std::max(mostOpen, openDescriptors() - before);
            deepest = std::max(deepest, e.depth);
            S_ISDIR(e.st->st_mode) ? ++dirs : ++files;
            beyond += e.beyondDepthLimit ? 1 : 0;
            if (e.beyondDepthLimit && e.depth != 81)
                qWarning() << "beyond at" << e.depth;
            return WorkspaceTreeWalker::Action::Continue;
        };
        const auto onLeave = [&](const WorkspaceTreeWalker::Entry& e) {
            ++left;
            // The parent descriptor given is the directory's own parent, reopened if it was closed.
            struct stat st {};
            if (::fstatat(e.parentFd, e.name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                st.st_ino != e.st->st_ino)
                return Status(makeError(runbox::ErrorKind::Internal, "wrong_parent", "x"));
            return Status::success();
        };
        const Status walked = WorkspaceTreeWalker::walk(m_rootFd, options, onEntry, onLeave);
        QVERIFY2(walked.ok(), qPrintable(walked.ok() ? QString() : walked.error().message));
        QCOMPARE(deepest, 81);
        QCOMPARE(files, 81);
        QCOMPARE(dirs, 81);
        QCOMPARE(beyond, 1);
        QCOMPARE(left, 80); // every directory entered is left once
        QVERIFY2(mostOpen <= kBudget + 2, qPrintable(QString::number(mostOpen)));
    }

    void testUsageOfATooDeepTreeIsIncompleteAndOverAnyQuota() {
        WorkspaceUsage::Options options;
        options.budgetBytes = 1LL << 40;
        const auto whole = WorkspaceUsage::measure(m_rootFd, options); // positive control
        QVERIFY(whole.ok());
        QVERIFY(whole->complete && !whole->over && !whole->depthLimited);
        options.maxOpenDirectories = kBudget;
        const auto limited = WorkspaceUsage::measure(m_rootFd, options);
        QVERIFY(limited.ok());
        QVERIFY(!limited->complete && limited->depthLimited);
        QVERIFY(limited->over);
        options.budgetBytes = 0; // no quota: nothing to be over
        QVERIFY(!WorkspaceUsage::measure(m_rootFd, options)->over);
    }

    void testASwappedAncestorStopsTheWalk() {
        WorkspaceTreeWalker::Options options;
        options.maxOpenDirectories = kBudget;
        bool swapped = false;
        const Status walked =
            WorkspaceTreeWalker::walk(m_rootFd, options, [&](const WorkspaceTreeWalker::Entry& e) {
                if (e.depth == 60 && !swapped) {
                    // Level 10 is closed by now (neither a checkpoint nor in the window): put
                    // another directory in its place.
                    swapped = true;
                    const QString level = levelPath(m_root, 10);
                    if (::rename(QFile::encodeName(level).constData(),
                                 QFile::encodeName(m_root + "/moved").constData()) != 0 ||
                        !QDir().mkdir(level))
                        qWarning() << "swap failed";
                }
                return WorkspaceTreeWalker::Action::Continue;
            });
        QVERIFY(swapped);
        QVERIFY(!walked.ok());
        QCOMPARE(walked.error().code, QStringLiteral("tree_changed"));
    }

    void testRemovalMovesWhatLiesTooDeepUp() {
        // Sandboxed code's obstacles below the depth the walk enters: a directory without write
        // permission, and a link out of the tree.
        QTemporaryDir outside;
        QFile victim(outside.filePath(QStringLiteral("victim")));
        QVERIFY(victim.open(QIODevice::WriteOnly));
        victim.close();
        const QByteArray deep = QFile::encodeName(levelPath(m_root, 150));
        const int deepFd = ::open(deep.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(deepFd >= 0);
        QCOMPARE(::symlinkat(QFile::encodeName(outside.path()).constData(), deepFd, "out"), 0);
        QCOMPARE(::fchmod(deepFd, 0500), 0);
        ::close(deepFd);
        const Status removed = WorkspaceRemoval::removeContents(m_rootFd, "", kBudget);
        QVERIFY2(removed.ok(), qPrintable(removed.ok() ? QString() : removed.error().message));
        QCOMPARE(QDir(m_root).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList());
        QVERIFY(QFileInfo::exists(victim.fileName()));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceTreeWalker)
#include "test_workspace_tree_walker.moc"
