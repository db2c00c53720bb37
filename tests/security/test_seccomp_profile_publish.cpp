// The published seccomp programs (SeccompProfile::publish): three different programs, none
// returning KILL_THREAD; each file private, named by kind and arch, cached until it changes,
// replaced by a new inode that leaves an open descriptor a whole program, no temporary file left,
// and an unusable state directory reported. What the programs refuse: test_seccomp_profile.

#include "SeccompProfileFixture.h"

#include "agent/sandbox/SeccompFilter.h"

#include <QDir>
#include <QtTest>

#include <sys/socket.h>

using namespace runbox::sandbox;
using namespace seccomptest;

class TestSeccompProfilePublish final : public SeccompProfileFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(publishAll()); }

    // The Npu profile allows the whole socket family (CANN imports open netlink and other
    // sockets; the netns stays private), the Network profile filters socket() arguments (no raw,
    // packet, netlink or MPTCP sockets), and the Baseline denies sockets: three programs.
    void testNpuProfileAllowsMoreSocketsThanTheNetworkProfile() {
        QVERIFY(m_npu != m_network);
        QVERIFY(m_npu != m_baseline);
        QVERIFY(m_network != m_baseline);
        QVERIFY(!SeccompFilter::deniedSyscalls(SeccompProfileKind::Npu).contains("socket"));
        QVERIFY(SeccompFilter::deniedSyscalls(SeccompProfileKind::Network).contains("socket"));
    }

    // Bad arch kills the process; no return is KILL_THREAD (0), which would leave a
    // multi-threaded process half alive.
    void testProgramKillsProcessNeverThread() {
        bool killsProcess = false;
        for (qsizetype offset = 0; offset < m_baseline.size(); offset += 8) {
            sock_filter insn{};
            std::memcpy(&insn, m_baseline.constData() + offset, sizeof insn);
            QVERIFY2(insn.code != (BPF_RET | BPF_A), "return of a computed action");
            if (insn.code != (BPF_RET | BPF_K))
                continue;
            QVERIFY2((insn.k & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_KILL_THREAD,
                     "KILL_THREAD action in the program");
            killsProcess |= (insn.k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS;
        }
        QVERIFY(killsProcess);
    }

    void testPublishedFileIsPrivateAndNamedByKindAndArch() {
        const QString path = publishOrFail(SeccompProfileKind::Baseline);
        QCOMPARE(path,
                 m_stateDir.filePath(
                     QStringLiteral("seccomp/baseline-%1.bpf").arg(SeccompProfile::nativeArch())));
        const struct stat file = statOf(path);
        QVERIFY(S_ISREG(file.st_mode));
        QCOMPARE(file.st_mode & 07777, mode_t(0600));
        const struct stat dir = statOf(m_stateDir.filePath(QStringLiteral("seccomp")));
        QCOMPARE(dir.st_mode & 07777, mode_t(0700));
    }

    void testPublishIsCachedUntilTheFileChanges() {
        const QString path = publishOrFail(SeccompProfileKind::Baseline);
        const ino_t inode = statOf(path).st_ino;
        QCOMPARE(publishOrFail(SeccompProfileKind::Baseline), path);
        QCOMPARE(statOf(path).st_ino, inode);

        QVERIFY(QFile::remove(path));
        QCOMPARE(publishOrFail(SeccompProfileKind::Baseline), path);
        QCOMPARE(readFile(path), m_baseline);
    }

    // A launch that already opened the file keeps a whole program while another publishes.
    void testRepublishReplacesInodeWhileOpenFdKeepsWholeProgram() {
        const QString path = publishOrFail(SeccompProfileKind::Baseline);
        const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        struct stat before {};
        QVERIFY(::fstat(fd, &before) == 0);

        SeccompProfile::resetCacheForTests();
        QCOMPARE(publishOrFail(SeccompProfileKind::Baseline), path);
        const struct stat after = statOf(path);
        QVERIFY(after.st_ino != before.st_ino);
        QCOMPARE(after.st_mode & 07777, mode_t(0600));

        QByteArray held(int(before.st_size) + 64, '\0');
        const ssize_t n = ::pread(fd, held.data(), size_t(held.size()), 0);
        ::close(fd);
        QCOMPARE(qint64(n), qint64(before.st_size));
        held.truncate(n);
        QCOMPARE(held, m_baseline);
        const Call socketCall = [] { return long(::socket(AF_UNIX, SOCK_STREAM, 0)); };
        QCOMPARE(runInChild(held, socketCall), QStringLiteral("EPERM"));
    }

    void testNoTemporaryFilesAreLeftBehind() {
        publishOrFail(SeccompProfileKind::Baseline);
        SeccompProfile::resetCacheForTests();
        publishOrFail(SeccompProfileKind::Baseline);
        const QStringList entries =
            QDir(m_stateDir.filePath(QStringLiteral("seccomp"))).entryList(QDir::Files);
        for (const QString& entry : entries)
            QVERIFY2(entry.endsWith(QStringLiteral(".bpf")), qPrintable(entry));
    }

    void testUnwritableStateDirIsAnError() {
        QString error;
        QVERIFY(SeccompProfile::publish(SeccompProfileKind::Baseline,
                                        QStringLiteral("/proc/runbox-no-such-dir"), &error)
                    .isEmpty());
        QVERIFY(!error.isEmpty());
        QVERIFY(SeccompProfile::publish(SeccompProfileKind::Baseline, QString(), &error).isEmpty());
        QVERIFY(error.contains(QStringLiteral("state directory")));
    }
};

QTEST_GUILESS_MAIN(TestSeccompProfilePublish)
#include "test_seccomp_profile_publish.moc"
