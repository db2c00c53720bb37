// Sandbox uids (docs/contracts.md "Sandbox uids"): the range check against the host's ids, the
// registry that keeps several agents' ranges disjoint, and the credential drop of a launch child.
#include "agent/sandbox/SandboxUser.h"
#include "agent/sandbox/UidRange.h"
#include "agent/sandbox/UidRangeRegistry.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox::sandbox;

namespace {
void writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

/// passwd, group, subuid and subgid files in @p dir with these contents.
HostIdFiles hostIdFiles(const QTemporaryDir& dir, const QByteArray& passwd, const QByteArray& group,
                        const QByteArray& subuid, const QByteArray& subgid) {
    HostIdFiles files{dir.filePath("passwd"), dir.filePath("group"), dir.filePath("subuid"),
                      dir.filePath("subgid")};
    writeFile(files.passwd, passwd);
    writeFile(files.group, group);
    writeFile(files.subuid, subuid);
    writeFile(files.subgid, subgid);
    return files;
}

QString helperPath() {
    return QCoreApplication::applicationFilePath();
}
} // namespace

class TestSandboxUids final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testFreeRangeHasNoConflict() {
        QTemporaryDir dir;
        const HostIdFiles files = hostIdFiles(
            dir, "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/a:/bin/sh\n",
            "root:x:0:\nalice:x:1000:\n", "alice:100000:65536\n", "alice:100000:65536\n");
        QVERIFY(uidRangeConflicts({1879048192, 65536}, {20000, 45000}, files).isEmpty());
    }

    void testEveryKindOfConflictIsNamed() {
        QTemporaryDir dir;
        const HostIdFiles files =
            hostIdFiles(dir, "svc:x:70010:70010::/:/bin/false\n", "grp:x:70020:\n",
                        "bob:70100:100\n", "carol:70200:100\n");
        const QStringList c = uidRangeConflicts({70000, 1000}, {70500, 10}, files);
        const QString all = c.join('\n');
        QVERIFY2(all.contains("user svc (uid 70010)"), qPrintable(all));
        QVERIFY2(all.contains("group grp (gid 70020)"), qPrintable(all));
        QVERIFY2(all.contains("gives bob the range 70100-70199"), qPrintable(all));
        QVERIFY2(all.contains("gives carol the range 70200-70299"), qPrintable(all));
        QVERIFY2(all.contains("light workspaces' uids 70500-70509"), qPrintable(all));
        QVERIFY(!uidRangeConflicts({61000, 500}, {}, files).isEmpty());  // systemd dynamic users
        QVERIFY(!uidRangeConflicts({65000, 1000}, {}, files).isEmpty()); // nobody
        QVERIFY(!uidRangeConflicts({0, 10}, {}, files).isEmpty());       // root
        QVERIFY(!uidRangeConflicts({1, 0}, {}, files).isEmpty());        // empty
    }

    void testRegistryRefusesOverlapOfALiveAgentAndCleansStaleClaims() {
        QTemporaryDir dir;
        const QString registry = dir.filePath("reg");
        // Another "agent": a child process that claims 5000-5999 and waits for stdin to close.
        QProcess other;
        other.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        other.start(helperPath(), {"claim", registry, "5000", "1000"});
        QVERIFY(other.waitForReadyRead(10000));
        QCOMPARE(other.readLine().trimmed(), QByteArray("claimed"));

        UidRangeRegistry mine;
        QString error;
        QVERIFY(!mine.claim(registry, {{"strong", {5500, 10}}}, "/s", &error));
        QVERIFY2(error.contains("overlaps the strong uid range 5000-5999"), qPrintable(error));
        QVERIFY2(error.contains(QString::number(other.processId())), qPrintable(error));
        // Control: a disjoint range is fine while the other agent lives.
        QVERIFY2(mine.claim(registry, {{"strong", {7000, 10}}}, "/s", &error), qPrintable(error));

        // The other agent dies (SIGKILL, no clean-up): its claim is stale and gives way.
        other.kill();
        QVERIFY(other.waitForFinished(10000));
        UidRangeRegistry later;
        QVERIFY2(later.claim(registry, {{"strong", {5500, 10}}}, "/t", &error), qPrintable(error));
        QCOMPARE(QDir(registry).entryList({"*.range"}, QDir::Files).size(), 2); // mine + later
    }

    void testRegistryIsPrivateAndNeverWaitsWithoutBound() {
        QTemporaryDir dir;
        const QString registry = dir.filePath("reg");
        UidRangeRegistry first;
        QString error;
        QVERIFY2(first.claim(registry, {{"strong", {9000, 10}}}, "/s", &error), qPrintable(error));
        QCOMPARE(QFileInfo(registry).permissions() & QFileDevice::ReadOther,
                 QFileDevice::Permissions());
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(registry).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0700));
        // Someone holding the directory lock stalls a claim for at most 5 s, then it fails.
        const int lockFd = ::open(QFile::encodeName(registry + "/.lock").constData(), O_RDONLY);
        QVERIFY(lockFd >= 0);
        QCOMPARE(::flock(lockFd, LOCK_EX), 0);
        UidRangeRegistry second;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!second.claim(registry, {{"strong", {9100, 10}}}, "/t", &error));
        QVERIFY2(error.contains("within 5000 ms"), qPrintable(error));
        QVERIFY(clock.elapsed() < 8000);
        ::close(lockFd);
        QVERIFY2(second.claim(registry, {{"strong", {9100, 10}}}, "/t", &error), qPrintable(error));
        // A directory of another user is refused.
        if (::geteuid() == 0) {
            const QString foreign = dir.filePath("foreign");
            QVERIFY(QDir().mkpath(foreign));
            QCOMPARE(::chown(QFile::encodeName(foreign).constData(), 65534, 65534), 0);
            UidRangeRegistry third;
            QVERIFY(!third.claim(foreign, {{"strong", {9200, 10}}}, "/u", &error));
            QVERIFY2(error.contains("must be a directory of uid 0"), qPrintable(error));
        }
    }

    void testDropInChildLeavesNoUidZeroAndNoCapability() {
        if (::geteuid() != 0)
            QSKIP("dropping to another uid needs root");
        const SandboxUser user{1879099999, QList<gid_t>{1879099998}};
        SandboxUser::Prepared prepared;
        QVERIFY(user.prepare(&prepared));
        int pipeFds[2];
        QCOMPARE(::pipe(pipeFds), 0);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(pipeFds[0]);
            const int e = SandboxUser::dropInChild(prepared);
            QByteArray report = QByteArray::number(e) + ' ' + QByteArray::number(::getuid()) + ' ' +
                                QByteArray::number(::getgid());
            gid_t groups[8];
            const int n = ::getgroups(8, groups);
            report += ' ' + QByteArray::number(n > 0 ? groups[0] : 0);
            QFile status("/proc/self/status");
            status.open(QIODevice::ReadOnly);
            for (const QByteArray& line : status.readAll().split('\n'))
                if (line.startsWith("Cap"))
                    report += ' ' + line.simplified();
            [[maybe_unused]] auto w = ::write(pipeFds[1], report.constData(), report.size());
            ::_exit(0);
        }
        ::close(pipeFds[1]);
        QFile in;
        QVERIFY(in.open(pipeFds[0], QIODevice::ReadOnly, QFileDevice::AutoCloseHandle));
        const QByteArray report = in.readAll();
        ::waitpid(pid, nullptr, 0);
        QVERIFY2(report.startsWith("0 1879099999 1879099999 1879099998 "), report.constData());
        for (const char* set :
             {"CapInh: 0000000000000000", "CapPrm: 0000000000000000", "CapEff: 0000000000000000",
              "CapBnd: 0000000000000000", "CapAmb: 0000000000000000"})
            QVERIFY2(report.contains(set), report.constData());
    }

    void testUidZeroIsNeverASandboxUser() {
        SandboxUser::Prepared prepared;
        const SandboxUser root{0, {}};
        QVERIFY(!root.prepare(&prepared));
        QCOMPARE(SandboxUser::dropInChild(SandboxUser::Prepared{}), EPERM);
    }
};

int main(int argc, char** argv) {
    // Helper mode for the registry test: claim a range, say so, hold it until stdin closes.
    if (argc == 5 && QByteArray(argv[1]) == "claim") {
        QCoreApplication app(argc, argv);
        UidRangeRegistry registry;
        QString error;
        if (!registry.claim(
                QString::fromLocal8Bit(argv[2]),
                {{"strong",
                  {QByteArray(argv[3]).toULongLong(), QByteArray(argv[4]).toULongLong()}}},
                "/other", &error)) {
            fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        printf("claimed\n");
        fflush(stdout);
        char c;
        while (::read(0, &c, 1) > 0) {
        }
        return 0;
    }
    QCoreApplication app(argc, argv);
    TestSandboxUids test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_sandbox_uids.moc"
