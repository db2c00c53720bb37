// The cgroup v2 bounds path (agent/bounds/, docs/bounds.md): detection of a delegated subtree,
// one execution's cgroup with its limits, usage, kill and start-up sweep, over a fake cgroup
// tree; and, where the host has a delegated v2 subtree with memory and pids, the real path: a
// process touching more than memory.max ends with an OOM kill that usage() reports.
#include "agent/bounds/CgroupDelegation.h"
#include "agent/bounds/CgroupFile.h"
#include "agent/bounds/ExecutionCgroup.h"
#include "FakeCgroupTree.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace runbox::bounds;

namespace {

void writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    f.write(text);
}

QByteArray readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

ExecutionCgroup::DirectoryOps fakeOps() {
    return runbox::testsupport::fakeCgroupOps();
}

} // namespace

class TestExecutionCgroup final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testMountAndPathAreParsed() {
        const QByteArray mountinfo =
            "25 30 0:23 / /sys rw,nosuid - sysfs sysfs rw\n"
            "41 31 0:38 / /sys/fs/cgroup/uni\\040fied rw,relatime - cgroup2 cgroup2 rw\n";
        QCOMPARE(CgroupDelegation::cgroup2MountOf(mountinfo),
                 QStringLiteral("/sys/fs/cgroup/uni fied"));
        QCOMPARE(CgroupDelegation::cgroup2MountOf("25 30 0:23 / /sys rw - sysfs sysfs rw\n"),
                 QString());
        QCOMPARE(CgroupDelegation::unifiedPathOf("4:memory:/x\n0::/system.slice/runbox.service\n"),
                 QStringLiteral("/system.slice/runbox.service"));
        QCOMPARE(CgroupDelegation::unifiedPathOf("4:memory:/x\n"), QString());
    }

    void testHybridHostWithoutMemoryIsNotUsableAndSaysWhy() {
        QTemporaryDir tree;
        writeText(tree.filePath("cgroup"), "4:memory:/a\n0::/\n");
        writeText(tree.filePath("cgroup.controllers"), "hugetlb\n");
        writeText(tree.filePath("cgroup.subtree_control"), "");
        CgroupPaths paths;
        paths.procSelfCgroup = tree.filePath("cgroup");
        paths.mountOverride = tree.path();
        const CgroupDelegation d = CgroupDelegation::detect(paths);
        QVERIFY(!d.usable());
        QVERIFY2(d.reason().contains("[hugetlb]") && d.reason().contains("memory and pids are"),
                 qPrintable(d.reason()));
    }

    void testDelegatedSubtreeIsPreparedWithALeafForTheAgent() {
        QTemporaryDir tree;
        const QString service = tree.filePath("system.slice/runbox.service");
        QVERIFY(QDir().mkpath(service));
        writeText(tree.filePath("cgroup"), "0::/system.slice/runbox.service\n");
        writeText(service + "/cgroup.controllers", "cpuset cpu io memory pids\n");
        writeText(service + "/cgroup.subtree_control", "");
        writeText(service + "/cgroup.procs", QByteArray::number(::getpid()) + "\n");
        CgroupPaths paths;
        paths.procSelfCgroup = tree.filePath("cgroup");
        paths.mountOverride = tree.path();
        CgroupDelegation d = CgroupDelegation::detect(paths);
        QVERIFY2(d.usable(), qPrintable(d.reason()));
        QCOMPARE(d.directory(), service);
        QVERIFY(d.hasCpu());
        // The fake leaf needs its cgroup.procs before prepare() writes into it.
        QVERIFY(QDir().mkpath(service + "/agent"));
        writeText(service + "/agent/cgroup.procs", "");
        QString error;
        QVERIFY2(d.prepare(&error), qPrintable(error));
        QCOMPARE(readText(service + "/agent/cgroup.procs"), QByteArray::number(::getpid()));
        QCOMPARE(readText(service + "/cgroup.subtree_control"), QByteArray("+memory +pids +cpu"));
    }

    void testExecutionCgroupGetsItsLimits() {
        QTemporaryDir tree;
        ResourceLimits limits;
        limits.memoryBytes = 512ll << 20;
        limits.maxProcesses = 256;
        limits.cpuWeight = 50;
        limits.maxCpuCores = 1.5;
        QString error;
        auto cgroup = ExecutionCgroup::create(tree.path(), "ex_ab/../c", limits, &error, fakeOps());
        QVERIFY2(cgroup, qPrintable(error));
        QCOMPARE(cgroup->directory(), tree.filePath("runbox-ex-ex_abc"));
        QCOMPARE(readText(cgroup->directory() + "/memory.max"), QByteArray("536870912"));
        QCOMPARE(readText(cgroup->directory() + "/memory.swap.max"), QByteArray("0"));
        QCOMPARE(readText(cgroup->directory() + "/memory.oom.group"), QByteArray("1"));
        QCOMPARE(readText(cgroup->directory() + "/pids.max"), QByteArray("256"));
        QCOMPARE(readText(cgroup->directory() + "/cpu.weight"), QByteArray("50"));
        QCOMPARE(readText(cgroup->directory() + "/cpu.max"), QByteArray("150000 100000"));
        QVERIFY(cgroup->directoryFd() >= 0);
        // The same execution id again: refused, the first cgroup untouched.
        QVERIFY(!ExecutionCgroup::create(tree.path(), "ex_abc", limits, &error, fakeOps()));
        QVERIFY2(error.contains("runbox-ex-ex_abc"), qPrintable(error));
    }

    void testUnlimitedWritesMaxAndARefusedWriteRemovesTheCgroup() {
        QTemporaryDir tree;
        QString error;
        auto cgroup = ExecutionCgroup::create(tree.path(), "ex_1", {}, &error, fakeOps());
        QVERIFY2(cgroup, qPrintable(error));
        QCOMPARE(readText(cgroup->directory() + "/memory.max"), QByteArray("max"));
        QCOMPARE(readText(cgroup->directory() + "/pids.max"), QByteArray("max"));
        QCOMPARE(readText(cgroup->directory() + "/memory.swap.max"), QByteArray("")); // not written
        // A kernel without the cpu controller has no cpu.weight: the create fails and cleans up.
        auto noCpu = fakeOps();
        const auto make = noCpu.make;
        noCpu.make = [make](const QString& d) {
            return make(d) && QFile::remove(d + QStringLiteral("/cpu.weight"));
        };
        ResourceLimits limits;
        limits.cpuWeight = 10;
        QVERIFY(!ExecutionCgroup::create(tree.path(), "ex_2", limits, &error, noCpu));
        QVERIFY2(error.contains("cpu.weight"), qPrintable(error));
        QVERIFY(!QFile::exists(tree.filePath("runbox-ex-ex_2")));
    }

    void testUsageReadsPeaksCpuAndOomKills() {
        QTemporaryDir tree;
        QString error;
        auto cgroup = ExecutionCgroup::create(tree.path(), "ex_u", {}, &error, fakeOps());
        QVERIFY(cgroup);
        const QString d = cgroup->directory();
        writeText(d + "/memory.current", "1000\n");
        writeText(d + "/pids.current", "3\n");
        cgroup->sample();
        writeText(d + "/memory.current", "10\n");
        writeText(d + "/pids.current", "1\n");
        writeText(d + "/cpu.stat", "usage_usec 9000\nuser_usec 7000\nsystem_usec 2500\n");
        writeText(d + "/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 0\n");
        ResourceUsage u = cgroup->usage();
        QCOMPARE(u.peakMemoryBytes, 1000); // no memory.peak: the largest sample
        QCOMPARE(u.peakProcesses, 3);
        QCOMPARE(u.cpuUserMs, 7);
        QCOMPARE(u.cpuSystemMs, 2);
        QVERIFY(!u.memoryExceeded);
        writeText(d + "/memory.peak", "4096\n");
        writeText(d + "/memory.events", "low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n");
        u = cgroup->usage();
        QCOMPARE(u.peakMemoryBytes, 4096);
        QVERIFY(u.memoryExceeded);
        writeText(d + "/cgroup.events", "populated 1\nfrozen 0\n");
        QVERIFY(cgroup->isPopulated());
        cgroup->killAll();
        QCOMPARE(readText(d + "/cgroup.kill"), QByteArray("1"));
    }

    void testSweepRemovesOnlyRunboxCgroups() {
        QTemporaryDir tree;
        QString error;
        QVERIFY(ExecutionCgroup::create(tree.path(), "ex_left", {}, &error, fakeOps()));
        QVERIFY(QDir().mkdir(tree.filePath("agent")));
        QStringList failed;
        const QStringList removed = ExecutionCgroup::sweep(tree.path(), &failed, fakeOps());
        QCOMPARE(removed, QStringList{"runbox-ex-ex_left"});
        QVERIFY(failed.isEmpty());
        QVERIFY(QFile::exists(tree.filePath("agent")));
    }

    /// The real path, where this host offers it: a delegated cgroup v2 subtree with memory and
    /// pids. A child touching 256 MiB under memory.max = 64 MiB is OOM-killed and usage() says so;
    /// the same child under 1 GiB completes (positive control).
    void testRealDelegatedSubtreeEndsATreeOverItsMemory() {
        CgroupDelegation d = CgroupDelegation::detect();
        if (!d.usable())
            QSKIP(qPrintable(QStringLiteral("real cgroup v2 path not run: ") + d.reason()));
        // prepare() moves every process of this cgroup into a leaf: only where that is this test
        // alone, or where the controllers are enabled already (then it is not needed).
        const QByteArray enabled = cgroupfile::read(d.directory() + "/cgroup.subtree_control");
        const QByteArray procs = cgroupfile::read(d.directory() + "/cgroup.procs").trimmed();
        const bool ready = enabled.contains("memory") && enabled.contains("pids");
        if (!ready && procs != QByteArray::number(::getpid()))
            QSKIP("real cgroup v2 path not run: this cgroup holds other processes too");
        QString error;
        QVERIFY2(ready || d.prepare(&error), qPrintable(error));
        const auto runUnder = [&](qint64 memoryBytes, const QString& id) {
            ResourceLimits limits;
            limits.memoryBytes = memoryBytes;
            limits.maxProcesses = 64;
            auto cgroup = ExecutionCgroup::create(d.directory(), id, limits, &error);
            if (!cgroup)
                return std::make_pair(-1, ResourceUsage{});
            QProcess child;
            child.start("/usr/bin/python3", {"-c", "import time; time.sleep(0.3); "
                                                   "b = bytearray(256 << 20); print('done')"});
            child.waitForStarted();
            cgroup->addProcess(pid_t(child.processId()), &error);
            child.waitForFinished(30000);
            const ResourceUsage u = cgroup->usage();
            const int code = child.exitStatus() == QProcess::NormalExit ? child.exitCode() : -9;
            cgroup->killAll();
            cgroup->remove();
            return std::make_pair(code, u);
        };
        const auto [controlCode, controlUsage] = runUnder(1ll << 30, "ex_control");
        QCOMPARE(controlCode, 0);
        QVERIFY(!controlUsage.memoryExceeded);
        const auto [code, usage] = runUnder(64ll << 20, "ex_over");
        QCOMPARE(code, -9);
        QVERIFY(usage.memoryExceeded);
        QVERIFY(usage.peakMemoryBytes <= (64ll << 20) + (1 << 20));
        qInfo("real cgroup v2 path ran under %s", qPrintable(d.directory()));
    }
};

QTEST_GUILESS_MAIN(TestExecutionCgroup)
#include "test_execution_cgroup.moc"
