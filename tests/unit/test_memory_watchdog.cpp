// The memory watchdog (agent/bounds/MemoryWatchdog, docs/bounds.md "Watchdog"): real processes
// under uids of their own and in a PID namespace of their own touch memory; the watchdog's sums
// see private, shared and tmpfs pages, a watch under its limit stays quiet (positive control)
// and one over it is told once. Needs root (setpriv to other uids, unshare --pid).
#include "ScriptHolder.h"
#include "agent/bounds/MemoryWatchdog.h"
#include "agent/bounds/SharedMemoryScan.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryFile>
#include <QtTest>

#include <csignal>
#include <memory>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace runbox::bounds;
using namespace runbox::testsupport;

namespace {

constexpr qint64 kMiB = 1 << 20;

/// Touches @p mib MiB ("anon": a private buffer; "shared": MAP_SHARED anonymous, i.e. shmem),
/// prints "ready", then sleeps until killed.
const char* kHolder = "import mmap, sys, time\n"
                      "n = int(sys.argv[1]) << 20\n"
                      "b = mmap.mmap(-1, n) if sys.argv[2] == 'shared' else "
                      "mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE)\n"
                      "for i in range(0, n, 4096): b[i] = 1\n"
                      "print('ready', flush=True)\n"
                      "time.sleep(120)\n";

/// Touches @p mib MiB of private memory, starts a sleeping thread, prints "ready" and ends its
/// main thread (pthread_exit(3) through ctypes, which lets go of the GIL first).
const char* kLeaderExits = "import ctypes, sys, threading, time\n"
                           "b = bytearray(int(sys.argv[1]) << 20)\n"
                           "for i in range(0, len(b), 4096): b[i] = 1\n"
                           "threading.Thread(target=time.sleep, args=(120,)).start()\n"
                           "print('ready', flush=True)\n"
                           "ctypes.CDLL(None).pthread_exit(None)\n";

/// Holds @p mib MiB in a shared memory object (docs/bounds.md "Shared memory objects"), by mode:
/// "unmapped": written into a memfd never mapped; "mapped": the same, then mapped whole and
/// every page read; "onepage": written, one page mapped, the descriptor closed; "sharedanon":
/// MAP_SHARED anonymous, every page touched, all but its last page unmapped; "leader": an
/// unmapped memfd, then the main thread exits (pthread_exit(3): the leader is a zombie whose fd
/// shows nothing) while another thread, sharing the descriptor table, lives on; "later": prints
/// "ready" first, writes the memfd on a line from stdin and prints "written", closes it on the
/// next line and prints "closed".
const char* kObjectHolder =
    "import ctypes, mmap, os, sys, threading, time\n"
    "n = int(sys.argv[1]) << 20\n"
    "mode = sys.argv[2]\n"
    "def memfd():\n"
    "    fd = os.memfd_create('runbox-test')\n"
    "    for _ in range(n >> 20): os.write(fd, b'x' * (1 << 20))\n"
    "    return fd\n"
    "keep = []\n"
    "if mode == 'later':\n"
    "    print('ready', flush=True); sys.stdin.readline(); keep.append(memfd())\n"
    "    print('written', flush=True); sys.stdin.readline(); os.close(keep.pop())\n"
    "    print('closed', flush=True)\n"
    "elif mode == 'unmapped': keep.append(memfd())\n"
    "elif mode == 'mapped':\n"
    "    fd = memfd(); m = mmap.mmap(fd, n); keep += [fd, m, sum(m[i] for i in range(0, n, "
    "4096))]\n"
    "elif mode == 'onepage':\n"
    "    fd = memfd(); keep.append(mmap.mmap(fd, 4096)); os.close(fd)\n"
    "elif mode == 'sharedanon':\n"
    "    m = mmap.mmap(-1, n)\n"
    "    for i in range(0, n, 4096): m[i] = 1\n"
    "    libc = ctypes.CDLL(None)\n"
    "    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]\n"
    "    assert libc.munmap(ctypes.addressof(ctypes.c_char.from_buffer(m)), n - 4096) == 0\n"
    "    keep.append(m)\n"
    "elif mode == 'leader':\n"
    "    keep.append(memfd())\n"
    "    threading.Thread(target=time.sleep, args=(120,)).start()\n"
    "    print('ready', flush=True)\n"
    "    ctypes.CDLL(None).pthread_exit(None)\n"
    "if mode != 'later': print('ready', flush=True)\n"
    "time.sleep(120)\n";

/// A field of /proc/PID/status, bytes (kB lines); -1 when absent.
qint64 statusBytes(qint64 pid, const char* field) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    return ProcessTable::kbFieldOf(status.readAll(), field);
}

} // namespace

class TestMemoryWatchdog final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("needs root: processes under uids of their own");
    }

    void testProcFieldsAreParsed() {
        QCOMPARE(ProcessTable::namespaceInodeOf("pid:[4026531836]"), 4026531836ull);
        QCOMPARE(ProcessTable::namespaceInodeOf("net:[4026531836]"), 0ull);
        QCOMPARE(ProcessTable::namespaceInodeOf("pid:[]"), 0ull);
        const QByteArray status = "Name:\tpython3\nUmask:\t0022\nUid:\t61001\t61001\t61001\t61001\n"
                                  "RssAnon:\t  1000 kB\nRssShmem:\t    12 kB\n";
        QCOMPARE(ProcessTable::realUidOf(status), uid_t(61001));
        QCOMPARE(ProcessTable::rssShmemOf(status), 12 * 1024);
        QCOMPARE(ProcessTable::realUidOf("Name:\tx\n"), uid_t(-1));
        QCOMPARE(MemoryWatchdog::intervalForFraction(0.1), 100);
        QCOMPARE(MemoryWatchdog::intervalForFraction(0.6), 50);
        QCOMPARE(MemoryWatchdog::intervalForFraction(0.8), 20);
        QCOMPARE(MemoryWatchdog::intervalForFraction(1.5), 10);
        // /proc/PID/stat: a command name with spaces and ')' inside its parentheses.
        qint64 ticks[4] = {};
        QVERIFY(ProcessTable::cpuTicksOf("42 (a) b c) R 1 42 42 0 -1 4194560 100 0 0 0 "
                                         "371 29 5 7 20 0 1 0 100 1000 10",
                                         ticks));
        QCOMPARE(ticks[0], 371);
        QCOMPARE(ticks[1], 29);
        QCOMPARE(ticks[2], 5);
        QCOMPARE(ticks[3], 7);
        QVERIFY(!ProcessTable::cpuTicksOf("42 (x) R 1 2", ticks));
        QVERIFY(!ProcessTable::cpuTicksOf("no parenthesis", ticks));
        // maps lines of the internal shmem mount (here 00:01), unpadded or padded addresses.
        const QList<SharedMemoryScan::Mapping> mappings = SharedMemoryScan::mappingsOn(
            "00400000-00452000 r-xp 00000000 fe:00 173521   /usr/bin/python3\n"
            "7f2d0aa49000-7f2d0aa4a000 rw-s 0c7ff000 00:01 1027   /dev/zero (deleted)\n"
            "7f2d0ac3b000-7f2d0ac3c000 r--s 00000000 00:01 1026   /memfd:x (deleted)\n"
            "7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0      [stack]",
            makedev(0, 1));
        QCOMPARE(mappings.size(), 2);
        QCOMPARE(mappings[0].start, 0x7f2d0aa49000ull);
        QCOMPARE(mappings[0].end, 0x7f2d0aa4a000ull);
        QCOMPARE(mappings[0].inode, 1027ull);
        QCOMPARE(mappings[1].inode, 1026ull);
        QVERIFY(SharedMemoryScan::internalDevice() != 0);
        // The agent's own namespace is never summed.
        QCOMPARE(
            ProcessTable::cpuOfPidNamespace(ProcessTable::pidNamespaceOf(::getpid())).processes, 0);
    }

    /// Positive control and attack on one uid: 96 MiB private under a 1 GiB limit is seen and
    /// quiet; the same under a 64 MiB limit is told once, from the event loop.
    void testUidWatchSeesPrivatePagesAndTellsOnceOverTheLimit() {
        ScriptHolder holder;
        QVERIFY(holder.start(asUid(61001), kHolder, {"96", "anon"}));
        MemoryWatchdog dog;
        int calls = 0;
        const int quiet =
            dog.watch({{Membership::By::Uid, 61001}, 1024 * kMiB, {}, [&](auto&) { ++calls; }});
        MemoryWatchdog::Usage u = settledUsage(dog, quiet);
        QVERIFY2(u.currentBytes >= 96 * kMiB, qPrintable(QString::number(u.currentBytes)));
        QCOMPARE(u.processes, 1);
        QVERIFY(!u.exceeded);
        dog.unwatch(quiet);
        QCOMPARE(calls, 0);

        MemoryWatchdog::Usage told;
        const int over = dog.watch({{Membership::By::Uid, 61001}, 64 * kMiB, {}, [&](auto& usage) {
                                        ++calls;
                                        told = usage;
                                    }});
        QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 5000);
        QVERIFY(told.exceeded && told.currentBytes > 64 * kMiB);
        QTest::qWait(300); // more scans: still told once
        QCOMPARE(calls, 1);
        dog.unwatch(over);
    }

    /// A watch far below a loose limit is read less often (its headroom takes long to fault
    /// in), one near a tight limit at every 100 ms scan or faster: 16 x 50 sleepers under the
    /// default limit (half the RAM) cost 0.66 % of a core instead of 3.55 % (bench).
    void testWatchesFarBelowLooseLimitsAreReadLessOften() {
        constexpr qint64 kGiB = qint64(1) << 30;
        QCOMPARE(MemoryWatchdog::intervalFor(0, 0, 2), 100);                  // sample only
        QCOMPARE(MemoryWatchdog::intervalFor(10 * kMiB, 512 * kMiB, 2), 100); // tight: as before
        QCOMPARE(MemoryWatchdog::intervalFor(0, 12 * kGiB, 2), 700);  // 12 GiB at 8 GiB/s, halved
        QCOMPARE(MemoryWatchdog::intervalFor(0, 12 * kGiB, 16), 100); // more CPUs fault faster
        QCOMPARE(MemoryWatchdog::intervalFor(0, qint64(1) << 40, 2),
                 MemoryWatchdog::kMaxIntervalMs);
        QCOMPARE(MemoryWatchdog::intervalFor(300 * kMiB, 512 * kMiB, 2), 50); // past half: fraction
        QCOMPARE(MemoryWatchdog::intervalFor(7 * kGiB, 12 * kGiB, 2), 50);

        ScriptHolder holder;
        QVERIFY(holder.start(asUid(61010), kHolder, {"16", "anon"}));
        MemoryWatchdog dog;
        const int handle = dog.watch({{Membership::By::Uid, 61010}, qint64(1) << 40, {}, {}});
        QVERIFY(dog.scanDue() > 0); // a new watch is due at once
        QCOMPARE(dog.scanDue(), 0); // then not for a while: /proc is not even read
        QVERIFY(dog.usage(handle).currentBytes >= 16 * kMiB); // its usage is kept meanwhile
        QVERIFY(dog.scanNow() > 0); // scanNow measures every watch regardless
        dog.unwatch(handle);
    }

    /// The sum over a tree: four processes of 40 MiB under one uid are 160 MiB, though each is
    /// under a 128 MiB limit alone; another uid's processes do not count.
    void testUidWatchSumsEveryProcessAndNoOther() {
        ScriptHolder a, b, c, d, other;
        for (ScriptHolder* h : {&a, &b, &c, &d})
            QVERIFY(h->start(asUid(61002), kHolder, {"40", "anon"}));
        QVERIFY(other.start(asUid(61003), kHolder, {"200", "anon"}));
        MemoryWatchdog dog;
        bool exceeded = false;
        const int handle = dog.watch(
            {{Membership::By::Uid, 61002}, 128 * kMiB, {}, [&](auto&) { exceeded = true; }});
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QCOMPARE(u.processes, 4);
        QVERIFY2(u.currentBytes >= 160 * kMiB && u.currentBytes < 200 * kMiB,
                 qPrintable(QString::number(u.currentBytes)));
        QTRY_VERIFY_WITH_TIMEOUT(exceeded, 5000);
    }

    /// Shared memory (MAP_SHARED anonymous) is not in statm's private count; it is counted.
    void testSharedMemoryPagesCount() {
        ScriptHolder holder;
        QVERIFY(holder.start(asUid(61004), kHolder, {"96", "shared"}));
        MemoryWatchdog dog;
        const int handle = dog.watch({{Membership::By::Uid, 61004}, 0, {}, {}});
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QVERIFY2(u.currentBytes >= 96 * kMiB, qPrintable(QString::number(u.currentBytes)));
    }

    /// A PID namespace watch: the process in the namespace counts; the test itself does not.
    void testPidNamespaceWatchSeesTheNamespaceOnly() {
        ScriptHolder holder;
        QVERIFY(holder.start({"/usr/bin/unshare", "--pid", "--fork"}, kHolder, {"64", "anon"}));
        QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(holder.process.processId()));
        QVERIFY(children.open(QIODevice::ReadOnly));
        const QByteArray inner = children.readAll().trimmed();
        QVERIFY2(!inner.isEmpty(), "no child of unshare");
        char link[64] = {};
        QVERIFY(::readlink(("/proc/" + inner + "/ns/pid").constData(), link, sizeof link - 1) > 0);
        const quint64 ns = ProcessTable::namespaceInodeOf(link);
        QVERIFY2(ns != 0, link);
        MemoryWatchdog dog;
        const int handle = dog.watch({{Membership::By::PidNamespace, ns}, 0, {}, {}});
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QCOMPARE(u.processes, 1);
        QVERIFY2(u.currentBytes >= 64 * kMiB && u.currentBytes < 128 * kMiB,
                 qPrintable(QString::number(u.currentBytes)));
    }

    /// A tmpfs mount's used bytes count (no process maps a file written there).
    void testTmpfsBytesCount() {
        QTemporaryFile file(QStringLiteral("/dev/shm/runbox-watchdog-XXXXXX"));
        QVERIFY(file.open());
        MemoryWatchdog dog;
        const int handle = dog.watch({{Membership::By::Uid, 61005}, 0, {{"/dev/shm", ""}}, {}});
        const qint64 before = settledUsage(dog, handle).currentBytes;
        file.write(QByteArray(48 * kMiB, 'x'));
        file.flush();
        const qint64 after = settledUsage(dog, handle).currentBytes;
        QVERIFY2(after - before >= 47 * kMiB,
                 qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
    }

    /// Before a sandbox has mounted its own /tmp, its /proc/PID/root/tmp shows the host's: that
    /// one, and anything that is no tmpfs (a disk), never counts. This failed first: the host's
    /// disk usage (28 GiB) was counted against a 512 MiB limit.
    /// A forked pool shares its parent's pages copy-on-write: statm counts them once per process
    /// (an attack's 200 MiB parent with 3 idle children was ended at a recorded 811 MiB under
    /// 512). Near the limit the watchdog sums proportional shares instead.
    void testCopyOnWritePagesAfterForkCountOnce() {
        QProcess pool;
        pool.start("/usr/bin/setpriv",
                   asUid(61007).mid(1) + QStringList{"/usr/bin/python3", "-c",
                                                     "import os, sys, time\n"
                                                     "b = bytearray(200 << 20)\n"
                                                     "for i in range(0, len(b), 4096): b[i] = 1\n"
                                                     "for _ in range(3):\n"
                                                     "    if os.fork() == 0:\n"
                                                     "        time.sleep(120)\n"
                                                     "print('ready', flush=True)\n"
                                                     "time.sleep(120)\n"});
        QVERIFY(pool.waitForStarted(5000));
        QDeadlineTimer deadline(30000);
        while (!pool.readAllStandardOutput().contains("ready") && !deadline.hasExpired())
            pool.waitForReadyRead(200);
        QVERIFY(!deadline.hasExpired());
        MemoryWatchdog dog;
        bool exceeded = false;
        // Positive control: with no limit the sum is statm's, about 4 × 200 MiB.
        const int sampled = dog.watch({{Membership::By::Uid, 61007}, 0, {}, {}});
        const MemoryWatchdog::Usage raw = settledUsage(dog, sampled);
        QCOMPARE(raw.processes, 4);
        QVERIFY2(raw.currentBytes > 700 * kMiB, qPrintable(QString::number(raw.currentBytes)));
        dog.unwatch(sampled);
        const int limited = dog.watch(
            {{Membership::By::Uid, 61007}, 512 * kMiB, {}, [&](const MemoryWatchdog::Usage&) {
                 exceeded = true;
             }});
        const MemoryWatchdog::Usage shared = settledUsage(dog, limited);
        QVERIFY2(!exceeded && shared.currentBytes < 300 * kMiB,
                 qPrintable(QString::number(shared.currentBytes)));
        ::kill(-pid_t(pool.processId()), SIGKILL);
        QProcess::execute("/usr/bin/pkill", {"-KILL", "-u", "61007"});
        pool.waitForFinished(5000);
    }

    /// Shared memory objects count whole, mapped or not (docs/bounds.md "Shared memory
    /// objects"): 96 MiB in a memfd no process maps was no page of statm's or RssShmem's, and
    /// went unseen (2 GiB under a 512 MiB limit ended `completed`). Each mode hides the pages
    /// from the process's own counters (the positive control: what the sum used to be), and
    /// the watch sees them.
    void testSharedMemoryObjectsCountMappedOrNot_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<uint>("uid");
        QTest::newRow("memfd never mapped") << "unmapped" << 61011u;
        QTest::newRow("memfd, one page mapped, its descriptor closed") << "onepage" << 61012u;
        QTest::newRow("shared anonymous, all but one page unmapped") << "sharedanon" << 61013u;
        QTest::newRow("memfd of a process whose main thread exited") << "leader" << 61017u;
    }

    void testSharedMemoryObjectsCountMappedOrNot() {
        QFETCH(QString, mode);
        QFETCH(uint, uid);
        ScriptHolder holder;
        QVERIFY(holder.start(asUid(uid), kObjectHolder, {"96", mode}));
        const qint64 pid = holder.process.processId();
        QVERIFY2(statusBytes(pid, "RssShmem:") < 8 * kMiB && statusBytes(pid, "VmRSS:") < 64 * kMiB,
                 "the object's pages show in the process's own counters: no attack");
        MemoryWatchdog dog;
        int calls = 0;
        const int handle = dog.watch({{Membership::By::Uid, uid}, 0, {}, [&](auto&) { ++calls; }});
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QVERIFY2(
            u.currentBytes >= 96 * kMiB && u.sharedObjectBytes >= 96 * kMiB,
            qPrintable(QStringLiteral("%1 / %2").arg(u.currentBytes).arg(u.sharedObjectBytes)));
        dog.unwatch(handle);
        MemoryWatchdog::Usage told;
        dog.watch({{Membership::By::Uid, uid}, 64 * kMiB, {}, [&](auto& usage) {
                       ++calls;
                       told = usage;
                   }});
        QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 5000);
        QVERIFY(told.exceeded && told.currentBytes > 64 * kMiB);
    }

    /// A memfd written, mapped whole and read is in RssShmem and in its st_blocks: counted once.
    void testMappedMemfdCountsOnce() {
        ScriptHolder holder;
        QVERIFY(holder.start(asUid(61014), kObjectHolder, {"96", "mapped"}));
        QVERIFY(statusBytes(holder.process.processId(), "RssShmem:") >= 90 * kMiB); // mapped
        MemoryWatchdog dog;
        const int handle = dog.watch({{Membership::By::Uid, 61014}, 0, {}, {}});
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QVERIFY2(u.sharedObjectBytes >= 96 * kMiB,
                 qPrintable(QString::number(u.sharedObjectBytes)));
        QVERIFY2(u.currentBytes >= 96 * kMiB && u.currentBytes < 160 * kMiB,
                 qPrintable(QString::number(u.currentBytes)));
    }

    /// A memfd written after the watch began is found through the host's shared memory growing
    /// (sysinfo sharedram); before that, scans read no descriptor at all. Closed, it stops
    /// counting (a stale size would end a later allocation as memory_exceeded).
    void testObjectMadeLaterIsFoundThroughHostSharedMemory() {
        QProcess holder;
        holder.start("/usr/bin/setpriv",
                     asUid(61015).mid(1) +
                         QStringList{"/usr/bin/python3", "-c", kObjectHolder, "96", "later"});
        QVERIFY(holder.waitForStarted(5000));
        QDeadlineTimer deadline(30000);
        while (!holder.readAllStandardOutput().contains("ready") && !deadline.hasExpired())
            holder.waitForReadyRead(200);
        MemoryWatchdog dog;
        const int handle = dog.watch({{Membership::By::Uid, 61015}, 0, {}, {}});
        QVERIFY(settledUsage(dog, handle).currentBytes < 64 * kMiB);
        const quint64 looks = dog.sharedMemoryScans();
        QVERIFY(settledUsage(dog, handle).currentBytes < 64 * kMiB);
        QCOMPARE(dog.sharedMemoryScans(), looks); // nothing grew: no descriptor was read
        holder.write("go\n");
        while (!holder.readAllStandardOutput().contains("written") && !deadline.hasExpired())
            holder.waitForReadyRead(200);
        QVERIFY(!deadline.hasExpired());
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QVERIFY(dog.sharedMemoryScans() > looks);
        QVERIFY2(u.currentBytes >= 96 * kMiB, qPrintable(QString::number(u.currentBytes)));
        // Closed, it is freed: it no longer counts (the next look drops it).
        holder.write("go\n");
        while (!holder.readAllStandardOutput().contains("closed") && !deadline.hasExpired())
            holder.waitForReadyRead(200);
        QVERIFY(!deadline.hasExpired());
        QVERIFY(settledUsage(dog, handle).currentBytes < 64 * kMiB);
        holder.kill();
        holder.waitForFinished(5000);
    }

    /// A process whose main thread exited (pthread_exit(3)): its leader is a zombie whose statm
    /// reads zeros, while another thread holds 96 MiB of private memory. That memory was no
    /// page of any sum; it counts, read through the live thread.
    void testProcessWhoseMainThreadExitedStillCounts() {
        ScriptHolder holder;
        QVERIFY(holder.start(asUid(61016), kLeaderExits, {"96"}));
        const auto leaderStatm = [&] {
            QFile statm(QStringLiteral("/proc/%1/statm").arg(holder.process.processId()));
            return statm.open(QIODevice::ReadOnly) ? statm.readAll() : QByteArray();
        };
        // Positive control: the leader's own statm shows nothing (what the sum used to read).
        QTRY_VERIFY_WITH_TIMEOUT(leaderStatm().startsWith("0 "), 5000);
        MemoryWatchdog dog;
        bool exceeded = false;
        const int handle = dog.watch(
            {{Membership::By::Uid, 61016}, 64 * kMiB, {}, [&](auto&) { exceeded = true; }});
        const MemoryWatchdog::Usage u = settledUsage(dog, handle);
        QCOMPARE(u.processes, 1);
        QVERIFY2(u.currentBytes >= 96 * kMiB, qPrintable(QString::number(u.currentBytes)));
        QTRY_VERIFY_WITH_TIMEOUT(exceeded, 5000);
    }

    void testHostMountsAndDisksDoNotCount() {
        QTemporaryFile file(QStringLiteral("/dev/shm/runbox-watchdog-XXXXXX"));
        QVERIFY(file.open());
        file.write(QByteArray(16 * kMiB, 'x'));
        file.flush();
        MemoryWatchdog dog;
        const int counted = dog.watch({{Membership::By::Uid, 61006}, 0, {{"/dev/shm", ""}}, {}});
        QVERIFY(settledUsage(dog, counted).currentBytes >= 15 * kMiB); // positive control
        const int host = dog.watch({{Membership::By::Uid, 61006},
                                    0,
                                    {{"/proc/self/root/dev/shm", "/dev/shm"}, {"/", ""}},
                                    {}});
        QCOMPARE(settledUsage(dog, host).currentBytes, qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestMemoryWatchdog)
#include "test_memory_watchdog.moc"
