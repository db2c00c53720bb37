// bounds::ProjectQuota (docs/bounds.md "Disk"): what detection requires, how a workspace's tree
// becomes its project (a real descriptor walk: no link followed), the id rule (an id charged to
// other files is refused, a restart or an interrupted walk is not), and which limit the kernel
// holds when (standing, an execution's own, none after delete). The quota system calls go to a
// fake; the attribute calls also run for real on an xfs image where the test can mount one:
// there the kernel's PROJINHERIT and its refusal of a project change from a user namespace
// (the reason a strong sandbox cannot leave its project) are checked too.
#include "agent/bounds/ProjectQuota.h"
#include "support/LoopFilesystem.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>

#include <cerrno>
#include <fcntl.h>
#include <grp.h>
#include <linux/dqblk_xfs.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::bounds;

namespace {

constexpr quint32 kProbeId = 1879300000;
constexpr quint32 kWorkspaceId = 1879300001;

/// The quota calls recorded in memory; the attribute calls by inode in memory too, or the real
/// ones (realAttributes).
class FakeKernel final : public ProjectQuotaKernel {
public:
    bool cap = true;
    int flagsError = 0;
    quint32 flags = FS_QUOTA_PDQ_ACCT | FS_QUOTA_PDQ_ENFD;
    int setProjectError = 0;
    int limitError = 0;
    bool realAttributes = false;
    std::map<quint32, Usage> usages;
    std::map<quint32, quint64> limits; ///< last hard limit set, KiB
    int setProjectCalls = 0;
    std::map<std::pair<dev_t, ino_t>, std::pair<quint32, bool>> attributes;

    bool hasCapSysAdmin() override { return cap; }
    int quotaFlags(int, quint32* out) override {
        *out = flags;
        return flagsError;
    }
    int usage(int, quint32 id, Usage* out) override {
        const auto it = usages.find(id);
        *out = it == usages.end() ? Usage{} : it->second;
        return 0;
    }
    int setBlockLimit(int, quint32 id, quint64 kib) override {
        if (limitError)
            return limitError;
        limits[id] = kib;
        return 0;
    }
    int project(int fd, quint32* id, bool* inherit) override {
        if (realAttributes)
            return system().project(fd, id, inherit);
        const auto it = attributes.find(key(fd));
        *id = it == attributes.end() ? 0 : it->second.first;
        *inherit = it != attributes.end() && it->second.second;
        return 0;
    }
    int setProject(int fd, quint32 id, bool inherit) override {
        ++setProjectCalls;
        if (setProjectError)
            return setProjectError;
        if (realAttributes)
            return system().setProject(fd, id, inherit);
        attributes[key(fd)] = {id, inherit};
        return 0;
    }
    /// The attributes of @p path (no link followed).
    std::pair<quint32, bool> of(const QString& path) {
        const int fd = ::open(QFile::encodeName(path).constData(),
                              O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        std::pair<quint32, bool> out{0, false};
        if (fd >= 0) {
            project(fd, &out.first, &out.second);
            ::close(fd);
        }
        return out;
    }

private:
    static std::pair<dev_t, ino_t> key(int fd) {
        struct stat st {};
        ::fstat(fd, &st);
        return {st.st_dev, st.st_ino};
    }
};

bool writeFile(const QString& path, const QByteArray& data) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

/// A tree with a file, a nested directory, a symbolic link to a file outside and a FIFO.
void makeTree(const QString& root, const QString& outsideFile) {
    QVERIFY(QDir(root).mkpath(QStringLiteral("a/b")));
    QVERIFY(writeFile(root + QStringLiteral("/a/b/f"), "data"));
    QVERIFY(writeFile(root + QStringLiteral("/top"), "x"));
    QVERIFY(QFile::link(outsideFile, root + QStringLiteral("/a/link")));
    QCOMPARE(::mkfifo(QFile::encodeName(root + QStringLiteral("/fifo")).constData(), 0600), 0);
}

} // namespace

class TestProjectQuota final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    FakeKernel m_kernel;
    std::unique_ptr<ProjectQuota> m_quota;

    std::unique_ptr<ProjectQuota> detect(FakeKernel* kernel, QString* why, const QString& root) {
        return ProjectQuota::detect(root, kProbeId, why, kernel);
    }

private Q_SLOTS:
    void init() {
        m_kernel = FakeKernel{};
        QString why;
        m_quota = detect(&m_kernel, &why, m_dir.path());
        QVERIFY2(m_quota, qPrintable(why));
        // The probe directory is gone; its inode number may come back for another one, which
        // the kernel would give fresh attributes.
        m_kernel.attributes.clear();
    }

    void testDetectionProbesAndCleansUp() {
        // Positive control for the refusals below: the probe id got its limit call (none) and
        // its attributes, on a probe directory that is gone again.
        QCOMPARE(m_kernel.limits.at(kProbeId), quint64(0));
        QCOMPARE(m_kernel.setProjectCalls, 1);
        QCOMPARE(
            QDir(m_dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
            QStringList());
        QCOMPARE(m_quota->toJson().value("mode").toString(), QStringLiteral("project_quota"));
    }

    void testDetectionRefuses_data() {
        QTest::addColumn<int>("failure");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no CAP_SYS_ADMIN") << 0 << "CAP_SYS_ADMIN";
        QTest::newRow("kernel without quota support") << 1 << "no quota support";
        QTest::newRow("accounting off") << 2 << "accounting is off";
        QTest::newRow("enforcement off") << 3 << "enforcement is off";
        QTest::newRow("project ids not settable") << 4 << "FS_IOC_FSSETXATTR";
        QTest::newRow("no Q_SETQUOTA") << 5 << "Q_SETQUOTA";
    }
    void testDetectionRefuses() {
        QFETCH(int, failure);
        QFETCH(QString, reason);
        FakeKernel kernel;
        switch (failure) {
        case 0:
            kernel.cap = false;
            break;
        case 1:
            kernel.flagsError = ENOSYS;
            break;
        case 2:
            kernel.flags = FS_QUOTA_PDQ_ENFD;
            break;
        case 3:
            kernel.flags = FS_QUOTA_PDQ_ACCT;
            break;
        case 4:
            kernel.setProjectError = EOPNOTSUPP;
            break;
        case 5:
            kernel.limitError = EPERM;
            break;
        }
        QString why;
        QVERIFY(!detect(&kernel, &why, m_dir.path()));
        QVERIFY2(why.contains(reason), qPrintable(why));
    }

    void testHardLimitIsRoundedDownToKiBButNeverNone() {
        QCOMPARE(ProjectQuota::hardLimitKiB(0), quint64(0));
        QCOMPARE(ProjectQuota::hardLimitKiB(1), quint64(1));
        QCOMPARE(ProjectQuota::hardLimitKiB(2047), quint64(1));
        QCOMPARE(ProjectQuota::hardLimitKiB(1 << 20), quint64(1024));
        QCOMPARE(ProjectQuota::hardLimitKiB((64 << 20) + 1023), quint64(65536));
    }

    void testAttachMarksTheTreeWithoutFollowingLinks() {
        QTemporaryDir ws;
        const QString outside = m_dir.filePath(QStringLiteral("outside"));
        QVERIFY(writeFile(outside, "secret"));
        makeTree(ws.path(), outside);
        m_quota->setStandingLimit(64 << 20);
        QVERIFY(!m_quota->attach(ws.path(), kWorkspaceId));
        QVERIFY(m_quota->attached(kWorkspaceId));
        const std::pair<quint32, bool> dir{kWorkspaceId, true}, file{kWorkspaceId, false};
        QCOMPARE(m_kernel.of(ws.path()), dir);
        QCOMPARE(m_kernel.of(ws.filePath("a")), dir);
        QCOMPARE(m_kernel.of(ws.filePath("a/b")), dir);
        QCOMPARE(m_kernel.of(ws.filePath("a/b/f")), file);
        QCOMPARE(m_kernel.of(ws.filePath("top")), file);
        QCOMPARE(m_kernel.of(outside), (std::pair<quint32, bool>{0, false}));
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(65536));
    }

    void testAttachRefusesAnIdChargedToOtherFiles() {
        QTemporaryDir ws;
        m_kernel.usages[kWorkspaceId] = {4096, 1, 0, 0};
        const std::optional<Error> err = m_quota->attach(ws.path(), kWorkspaceId);
        QVERIFY(err);
        QCOMPARE(err->code, QStringLiteral("limit_unenforceable"));
        QVERIFY2(err->message.contains("in use"), qPrintable(err->message));
        QVERIFY(!m_quota->attached(kWorkspaceId));
        QCOMPARE(m_kernel.of(ws.path()).first, quint32(0));
    }

    void testRestartDoesNotWalkAgain() {
        QTemporaryDir ws;
        makeTree(ws.path(), m_dir.filePath("none"));
        QVERIFY(!m_quota->attach(ws.path(), kWorkspaceId));
        // The next agent: the id is charged (to this workspace) and the directory carries it.
        m_kernel.usages[kWorkspaceId] = {8192, 6, 0, 0};
        QString why;
        std::unique_ptr<ProjectQuota> next = detect(&m_kernel, &why, m_dir.path());
        QVERIFY2(next, qPrintable(why));
        const int calls = m_kernel.setProjectCalls;
        QVERIFY(!next->attach(ws.path(), kWorkspaceId));
        QCOMPARE(m_kernel.setProjectCalls, calls);
    }

    void testInterruptedWalkIsResumed() {
        QTemporaryDir ws;
        makeTree(ws.path(), m_dir.filePath("none"));
        // An agent died mid-walk: the directory has the id but not PROJINHERIT yet, and the
        // entries it marked are charged to the id.
        const int fd = ::open(QFile::encodeName(ws.path()).constData(), O_RDONLY | O_DIRECTORY);
        QCOMPARE(m_kernel.setProject(fd, kWorkspaceId, false), 0);
        ::close(fd);
        m_kernel.usages[kWorkspaceId] = {4096, 2, 0, 0};
        QVERIFY(!m_quota->attach(ws.path(), kWorkspaceId));
        QCOMPARE(m_kernel.of(ws.filePath("a/b/f")),
                 (std::pair<quint32, bool>{kWorkspaceId, false}));
        QCOMPARE(m_kernel.of(ws.path()), (std::pair<quint32, bool>{kWorkspaceId, true}));
    }

    void testAnExecutionHoldsItsOwnLimitUntilItEnds() {
        QTemporaryDir ws;
        m_quota->setStandingLimit(64 << 20);
        QVERIFY(!m_quota->attach(ws.path(), kWorkspaceId));
        QVERIFY(!m_quota->beginRun(kWorkspaceId, 1 << 20));
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(1024));
        // A quota change while it runs waits for its end.
        m_quota->setStandingLimit(128 << 20);
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(1024));
        m_quota->endRun(kWorkspaceId);
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(131072));
        m_quota->setStandingLimit(0);
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(0));
    }

    void testUnattachedWorkspaceIsRefused() {
        const std::optional<Error> err = m_quota->beginRun(kWorkspaceId, 1 << 20);
        QVERIFY(err);
        QCOMPARE(err->code, QStringLiteral("limit_unenforceable"));
        QVERIFY(!m_kernel.limits.count(kWorkspaceId));
    }

    void testDeleteRemovesTheLimit() {
        QTemporaryDir ws;
        m_quota->setStandingLimit(64 << 20);
        QVERIFY(!m_quota->attach(ws.path(), kWorkspaceId));
        QVERIFY(!m_quota->beginRun(kWorkspaceId, 1 << 20));
        m_quota->detach(kWorkspaceId);
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(0));
        m_quota->endRun(kWorkspaceId); // the run ends after the delete: nothing comes back
        QCOMPARE(m_kernel.limits.at(kWorkspaceId), quint64(0));
        QVERIFY(!m_quota->attached(kWorkspaceId));
    }

    void testRealAttributesInheritAndStayOutOfAUserNamespacesReach() {
        testsupport::LoopFilesystem fs;
        if (const QString why = fs.create({"mkfs.xfs", "-q"}, qint64(320) << 20, "noquota");
            !why.isEmpty())
            QSKIP(qPrintable(QStringLiteral("no xfs image to set project ids on: ") + why));
        FakeKernel kernel;
        kernel.realAttributes = true;
        QString why;
        std::unique_ptr<ProjectQuota> quota = detect(&kernel, &why, fs.path());
        QVERIFY2(quota, qPrintable(why));
        const QString ws = fs.path() + QStringLiteral("/w");
        QVERIFY(QDir().mkpath(ws + QStringLiteral("/old/sub")));
        QVERIFY(writeFile(ws + QStringLiteral("/old/sub/f"), "data"));
        QVERIFY(!quota->attach(ws, kWorkspaceId));
        QCOMPARE(kernel.of(ws + "/old/sub/f"), (std::pair<quint32, bool>{kWorkspaceId, false}));
        // What is created later inherits the id from the kernel (FS_XFLAG_PROJINHERIT).
        QVERIFY(QDir().mkpath(ws + QStringLiteral("/new/deeper")));
        QVERIFY(writeFile(ws + QStringLiteral("/new/deeper/g"), "data"));
        QCOMPARE(kernel.of(ws + "/new/deeper/g").first, kWorkspaceId);
        QCOMPARE(kernel.of(ws + "/new/deeper"), (std::pair<quint32, bool>{kWorkspaceId, true}));

        // Who may move a file out of its project: its owner in the initial user namespace can
        // (why light workspaces keep the watcher); the same owner in a user namespace of its
        // own, as every strong sandbox is, cannot (EINVAL).
        const QByteArray file = QFile::encodeName(ws + QStringLiteral("/new/deeper/g"));
        constexpr uid_t kOwner = 1879300002;
        QCOMPARE(::chown(file.constData(), kOwner, kOwner), 0);
        const auto changeAs = [&](bool ownUserNamespace, quint32 to) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                if (::setgroups(0, nullptr) != 0 || ::setresgid(kOwner, kOwner, kOwner) != 0 ||
                    ::setresuid(kOwner, kOwner, kOwner) != 0)
                    ::_exit(100);
                if (ownUserNamespace && ::unshare(CLONE_NEWUSER) != 0)
                    ::_exit(101);
                const int fd = ::open(file.constData(), O_RDONLY | O_CLOEXEC);
                const int err =
                    fd < 0 ? 102 : ProjectQuotaKernel::system().setProject(fd, to, false);
                ::_exit(err);
            }
            int status = 0;
            ::waitpid(pid, &status, 0);
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        };
        QCOMPARE(changeAs(true, 0), EINVAL);
        QCOMPARE(kernel.of(ws + "/new/deeper/g").first, kWorkspaceId);
        QCOMPARE(changeAs(false, 7), 0); // the positive control of the refusal above
        QCOMPARE(kernel.of(ws + "/new/deeper/g").first, quint32(7));
    }
};

QTEST_GUILESS_MAIN(TestProjectQuota)
#include "test_project_quota.moc"
