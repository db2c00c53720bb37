// The workspace quota held by the kernel (docs/bounds.md "Disk"): a root agent whose state dir is
// on an ext4 (or xfs) image mounted with `prjquota`, in this test's own mount namespace, gives
// each strong workspace a project with a block hard limit, and sandboxed writers that spread
// over many files, allocate with fallocate or stream with dd are refused with EDQUOT at the
// limit (a request's tighter limit for its execution, the setting's again after it), after a
// positive control of the same writers under 64 MiB. And a sandbox cannot move its files out of
// the project (FS_IOC_FSSETXATTR from its user namespace: EINVAL), after the control that the
// same uid outside any user namespace can. Where the kernel refuses prjquota mounts (a kernel
// without CONFIG_QUOTA + CONFIG_QFMT_V2 for ext4 or CONFIG_XFS_QUOTA for xfs), the quota rows
// say so and skip, and the rest runs on a plain xfs image with the agent in watcher mode.
#include "agent/bounds/ProjectQuotaKernel.h"
#include "support/AgentProcess.h"
#include "support/LoopFilesystem.h"
#include "support/ManagedApi.h"

#include <QDirIterator>
#include <QFile>
#include <QTest>

#include <cerrno>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

constexpr qint64 kStandingBytes = 64 << 20;
constexpr qint64 kAttackBytes = 1 << 20;
/// What may be charged past the limit: the directory blocks and one filesystem block.
constexpr qint64 kSlackBytes = 64 << 10;

/// Writes @p files files of 64 KiB (write or posix_fallocate) or one dd of @p files × 64 KiB, and
/// prints `wrote N` or `refused ERRNO after N`.
QString writer(const QString& mode, int files) {
    return QStringLiteral(R"(
import errno, os, subprocess, sys
mode, files, n = "%1", %2, 0
try:
    if mode == "dd":
        r = subprocess.run(["dd", "if=/dev/zero", "of=big", "bs=64K", "count=%d" % files],
                           capture_output=True, text=True)
        if r.returncode != 0:
            why = "SIGXFSZ" if r.returncode == -25 else r.stderr.strip()
            print("refused", "EDQUOT" if "quota" in r.stderr else why, "after 0")
            sys.exit(1)
        n = files
    for i in range(files if mode != "dd" else 0):
        if mode == "fallocate":
            fd = os.open("f%d" % i, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.posix_fallocate(fd, 0, 65536)
            finally:
                os.close(fd)
        else:
            with open("f%d" % i, "wb") as f:
                f.write(b"x" * 65536)
        n += 1
    print("wrote", n)
except OSError as e:
    print("refused", errno.errorcode.get(e.errno, e.errno), "after", n)
    sys.exit(1)
)")
        .arg(mode)
        .arg(files);
}

/// Bytes the workspace's files hold on disk (st_blocks × 512, no link followed).
qint64 bytesOnDisk(const QString& dir) {
    qint64 total = 0;
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        struct stat st {};
        if (::lstat(QFile::encodeName(it.next()).constData(), &st) == 0)
            total += qint64(st.st_blocks) * 512;
    }
    return total;
}

quint32 projectOf(const QString& path) {
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    quint32 id = 0;
    bool inherit = false;
    if (fd >= 0) {
        bounds::ProjectQuotaKernel::system().project(fd, &id, &inherit);
        ::close(fd);
    }
    return id;
}

} // namespace

class TestWorkspaceProjectQuota final : public QObject {
    Q_OBJECT

private:
    LoopFilesystem m_fs;
    QString m_noQuota; ///< why the kernel gives no project quotas here ("" when it does)
    AgentProcess m_agent;

/// QSKIP (from the test function itself) where the kernel gives no project quotas.
#define REQUIRE_PROJECT_QUOTA()                                                                    \
    do {                                                                                           \
        if (!m_noQuota.isEmpty())                                                                  \
            QSKIP(qPrintable(QStringLiteral("no filesystem with project quotas: ") + m_noQuota));  \
    } while (false)

private Q_SLOTS:
    void initTestCase() {
        const QString ext4 =
            m_fs.create({"mkfs.ext4", "-q", "-O", "quota,project", "-E", "quotatype=prjquota"},
                        qint64(256) << 20, "prjquota");
        QString xfs;
        if (!ext4.isEmpty())
            xfs = m_fs.create({"mkfs.xfs", "-q", "-f"}, qint64(320) << 20, "prjquota");
        if (!ext4.isEmpty() && !xfs.isEmpty()) {
            m_noQuota = QStringLiteral("ext4: %1; xfs: %2").arg(ext4, xfs);
            qInfo("%s", qPrintable(m_noQuota));
            // Project ids without quotas still show who may change them.
            if (const QString plain =
                    m_fs.create({"mkfs.xfs", "-q", "-f"}, qint64(320) << 20, "noquota");
                !plain.isEmpty())
                QSKIP(qPrintable(m_noQuota + QStringLiteral("; plain xfs: ") + plain));
        }
        AgentOptions options;
        options.runAsRoot = true;
        options.stateParentDir = m_fs.path();
        // Ranges of its own (sandbox::UidRangeRegistry refuses overlaps with parallel tests).
        options.extraEnv = {{"RUNBOX_STRONG_UID_FIRST", "1879500000"},
                            {"RUNBOX_STRONG_UID_COUNT", "256"},
                            {"RUNBOX_LIGHT_UID_FIRST", "59000"},
                            {"RUNBOX_LIGHT_UID_COUNT", "32"},
                            {"RUNBOX_MAX_WORKSPACE_BYTES", QString::number(kStandingBytes)}};
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
    }

    void testHealthSaysWhichMechanismHoldsTheQuota() {
        const QJsonObject disk =
            m_agent.client()->call("GET", "/v1/health").json().value("disk").toObject();
        qInfo("disk: %s (%s)", qPrintable(disk.value("mode").toString()),
              qPrintable(disk.value("reason").toString()));
        if (m_noQuota.isEmpty()) {
            QCOMPARE(disk.value("mode").toString(), QStringLiteral("project_quota"));
        } else {
            QCOMPARE(disk.value("mode").toString(), QStringLiteral("watcher"));
            QVERIFY(disk.value("reason").toString().contains("project quotas are not used"));
        }
    }

    void testSandboxCannotMoveItsFilesOutOfTheProject() {
        const QString ws = m_agent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        const QString dir = m_agent.workspaceDir(ws);
        QVERIFY(m_agent.shell(ws, "echo a > f && echo b > control").status() == "completed");
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(dir).constData(), &st), 0);
        const uid_t uid = st.st_uid;
        const quint32 project = projectOf(dir + "/f");
        if (m_noQuota.isEmpty())
            QCOMPARE(project, quint32(uid)); // the id rule: the workspace's sandbox uid
        // Positive control: the same uid outside any user namespace may change it.
        const QByteArray control = QFile::encodeName(dir + "/control");
        bounds::ProjectQuotaKernel& kernel = bounds::ProjectQuotaKernel::system();
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 ||
                ::setresuid(uid, uid, uid) != 0)
                ::_exit(100);
            const int fd = ::open(control.constData(), O_RDONLY | O_CLOEXEC);
            ::_exit(fd < 0 ? 101 : kernel.setProject(fd, project + 1, false));
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        QCOMPARE(WEXITSTATUS(status), 0);
        QCOMPARE(projectOf(dir + "/control"), project + 1);
        QVERIFY(::chown(control.constData(), 0, 0) == 0 && ::unlink(control.constData()) == 0);

        // The attack: FS_IOC_FSSETXATTR from inside the sandbox, to another id and to none.
        const ExecOutcome r = m_agent.python(ws, QStringLiteral(R"(
import fcntl, os, struct
GET, SET = 0x801c581f, 0x401c5820  # FS_IOC_FSGETXATTR / FSSETXATTR, struct fsxattr (28 bytes)
fd = os.open("f", os.O_RDONLY)
for to in sorted({%1 + 1, 0} - {%1}):
    attr = bytearray(fcntl.ioctl(fd, GET, bytes(28)))
    struct.pack_into("I", attr, 12, to)
    try:
        fcntl.ioctl(fd, SET, bytes(attr))
        print("changed", to)
    except OSError as e:
        print("refused", e.errno)
)")
                                                     .arg(project));
        QCOMPARE(r.status(), QStringLiteral("completed"));
        QVERIFY2(!r.stdoutText().contains("changed"), qPrintable(r.describe()));
        const int targets = project != 0 ? 2 : 1;
        QVERIFY2(r.stdoutText().count(QStringLiteral("refused %1").arg(EINVAL)) == targets ||
                     r.stdoutText().count(QStringLiteral("refused %1").arg(EPERM)) == targets,
                 qPrintable(r.describe()));
        QCOMPARE(projectOf(dir + "/f"), project);
    }

    void testWritersUnderTheQuotaComplete_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("many files") << "write";
        QTest::newRow("fallocate") << "fallocate";
        QTest::newRow("dd") << "dd";
    }
    void testWritersUnderTheQuotaComplete() { // positive control for the refusals below
        REQUIRE_PROJECT_QUOTA();
        QFETCH(QString, mode);
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome r = m_agent.python(ws, writer(mode, 128));
        if (mode == "fallocate" && r.stdoutText().contains("EOPNOTSUPP"))
            QSKIP("allocating fallocate(2) is refused by the seccomp profile here");
        QVERIFY2(r.status() == "completed" && r.stdoutText().contains("wrote 128"),
                 qPrintable(r.describe()));
        QVERIFY(bytesOnDisk(m_agent.workspaceDir(ws)) >= 128 * 65536);
    }

    void testWritersPastTheQuotaAreRefusedByTheKernel_data() {
        testWritersUnderTheQuotaComplete_data();
    }
    void testWritersPastTheQuotaAreRefusedByTheKernel() {
        REQUIRE_PROJECT_QUOTA();
        QFETCH(QString, mode);
        const QString ws = m_agent.createWorkspace();
        // 1000 × 64 KiB against a request's 1 MiB: only the kernel's refusal keeps it there.
        const ExecOutcome r =
            m_agent.python(ws, writer(mode, 1000), {{"maxWorkspaceBytes", double(kAttackBytes)}});
        const qint64 held = bytesOnDisk(m_agent.workspaceDir(ws));
        qInfo("%s: %s, %lld bytes on disk under %lld", qPrintable(mode), qPrintable(r.describe()),
              held, kAttackBytes);
        // fallocate(2) may be refused by the seccomp profile before the kernel's quota sees it,
        // and dd's one file may reach RLIMIT_FSIZE (the same limit) before the quota refuses.
        QVERIFY2(r.stdoutText().contains("refused EDQUOT") ||
                     (mode == "fallocate" && r.stdoutText().contains("refused EOPNOTSUPP")) ||
                     (mode == "dd" && r.stdoutText().contains("refused SIGXFSZ")),
                 qPrintable(r.describe()));
        QVERIFY2(held <= kAttackBytes + kSlackBytes, qPrintable(QString::number(held)));
        // After the run the workspace is under the setting's 64 MiB again.
        const ExecOutcome next = m_agent.python(ws, writer("write", 32).replace("f%d", "g%d"));
        QVERIFY2(next.status() == "completed" && next.stdoutText().contains("wrote 32"),
                 qPrintable(next.describe()));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceProjectQuota)
#include "test_workspace_project_quota.moc"
