// Shared memory objects count against maxMemoryBytes on the watchdog path (docs/bounds.md "Shared
// memory objects"): real code in real sandboxes writes 2 GiB into memfds (memfd_create(2)) that
// no process maps, under a 512 MiB limit, and ends memory_exceeded with a peak below what it
// wrote (before, the run ended `completed`). Strong sandboxes of an unprivileged agent (members by
// PID namespace) and of a root agent (by workspace uid), and a light workspace (by uid). The same
// code writing 128 MiB completes (positive control). A variant keeps each memfd only through a
// one-page mapping, its descriptor closed: a root agent sizes it through /proc/PID/map_files; an
// unprivileged agent cannot, and says so in /v1/health. memfd_secret(2), whose pages no counter
// shows, is refused (ENOSYS) on both tiers.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/ExecStream.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <cerrno>
#include <sys/syscall.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr qint64 kMiB = qint64(1) << 20;
constexpr qint64 kLimit = 512 * kMiB;
constexpr qint64 kAttempt = 2048 * kMiB;

/// Python: %1 memfds of %2 MiB each, written in steps of up to 64 MiB; with mode "onepage" each is
/// then mapped one page and its descriptor closed. Prints "written", then sleeps %3 s (so only the
/// bound ends it). Several memfds rather than one for light workspaces, whose RLIMIT_FSIZE
/// (maxFileSizeMb) also bounds a memfd's size (write(2) to any regular file).
const char kWriter[] = R"(
import mmap, os, sys, time
count, mib, mode, wait = %1, %2, '%4', %3
keep, step = [], min(mib, 64)
for i in range(count):
    fd = os.memfd_create('runbox-attack')
    for _ in range(mib // step): os.write(fd, b'x' * (step << 20))
    if mode == 'onepage':
        keep.append(mmap.mmap(fd, 4096)); os.close(fd)
    else:
        keep.append(fd)
print('written', count * mib, flush=True)
time.sleep(wait)
)";

QString writer(int count, int mib, int waitS, const QString& mode) {
    return QString::fromLatin1(kWriter).arg(count).arg(mib).arg(waitS).arg(mode);
}
} // namespace

class TestSharedMemoryBounds final : public QObject {
    Q_OBJECT

    AgentProcess m_unprivileged, m_root;
    QString m_light; ///< a light workspace of the root agent; empty when light is unavailable

    AgentProcess& agent(bool root) { return root ? m_root : m_unprivileged; }

    /// Runs Python @p code in @p ws under @p limit; the exit event with stdout/stderr tails.
    QJsonObject run(AgentProcess& a, const QString& ws, const QString& code, qint64 limit) {
        return runToExitEvent(
            a.client(), ws, {{"kind", "python"}, {"code", code}, {"maxMemoryBytes", double(limit)}},
            180000);
    }

    static QString blindSpots(AgentProcess& a) {
        const QJsonObject memory =
            a.client()->call("GET", "/v1/health").json().value("memory").toObject();
        return QString::fromUtf8(QJsonDocument(memory.value("blindSpots").toArray()).toJson());
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_unprivileged.start(), qPrintable(m_unprivileged.errorString()));
        if (::geteuid() == 0) {
            AgentOptions root;
            root.runAsRoot = true;
            // Ranges of its own: other root agents' tests may run at the same time.
            root.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"),
                                 QStringLiteral("1880400000"));
            root.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096"));
            root.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("57000"));
            root.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("64"));
            QVERIFY2(m_root.start(root), qPrintable(m_root.errorString()));
            const QJsonObject health = m_root.client()->call("GET", "/v1/health").json();
            if (health.value("light").toObject().value("available").toBool()) {
                const ApiResponse created = m_root.client()->call("POST", "/v1/workspaces",
                                                                  {{"isolation", "light"}}, 60000);
                QCOMPARE(created.status, 201);
                m_light = created.json()
                              .value("workspaces")
                              .toArray()
                              .first()
                              .toObject()
                              .value("id")
                              .toString();
            }
        }
        for (AgentProcess* a : {&m_unprivileged, &m_root}) {
            if (!a->client())
                continue;
            const QJsonObject memory =
                a->client()->call("GET", "/v1/health").json().value("memory").toObject();
            qInfo("memory bounds: %s", qPrintable(memory.value("mode").toString()));
            QCOMPARE(memory.value("mode").toString(), QStringLiteral("watchdog"));
        }
    }

    /// An agent that may not follow map_files says what it cannot see; a root agent can.
    void testHealthSaysWhetherMappedObjectsAreSized() {
        QVERIFY(blindSpots(m_unprivileged).contains("/proc/PID/map_files"));
        if (!m_root.client())
            QSKIP("needs root for a root agent");
        QVERIFY(!blindSpots(m_root).contains("/proc/PID/map_files"));
        QVERIFY(blindSpots(m_root).contains("in flight in a unix socket"));
    }

    void testMemfdWritersEndMemoryExceeded_data() {
        QTest::addColumn<QString>("tier");
        QTest::addColumn<bool>("root");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("count");
        QTest::newRow("strong, unprivileged agent: one memfd")
            << "strong" << false << "unmapped" << 1;
        QTest::newRow("strong, root agent: one memfd") << "strong" << true << "unmapped" << 1;
        QTest::newRow("strong, root agent: memfds held by one-page mappings")
            << "strong" << true << "onepage" << 32;
        QTest::newRow("light: eight memfds") << "light" << true << "unmapped" << 8;
        QTest::newRow("light: memfds held by one-page mappings")
            << "light" << true << "onepage" << 32;
    }

    void testMemfdWritersEndMemoryExceeded() {
        QFETCH(QString, tier);
        QFETCH(bool, root);
        QFETCH(QString, mode);
        QFETCH(int, count);
        if (root && !m_root.client())
            QSKIP("needs root for a root agent");
        if (tier == QLatin1String("light") && m_light.isEmpty())
            QSKIP("the light tier is unavailable here");
        AgentProcess& a = agent(root);
        const QString ws = tier == QLatin1String("light") ? m_light : a.createWorkspace();
        const int mib = int(kAttempt / kMiB) / count;
        // Positive control: 128 MiB the same way fits and completes.
        const QJsonObject control = run(a, ws, writer(count, 128 / count, 0, mode), kLimit);
        QVERIFY2(control.value("status").toString() == QLatin1String("completed") &&
                     control.value("stdout").toString().contains("written"),
                 qPrintable(QJsonDocument(control).toJson()));

        const QJsonObject r = run(a, ws, writer(count, mib, 60, mode), kLimit);
        QVERIFY2(r.value("status").toString() == QLatin1String("memory_exceeded"),
                 qPrintable(QJsonDocument(r).toJson()));
        const qint64 peak = r.value("usage").toObject().value("peakMemoryBytes").toInteger(-1);
        qInfo("%s: peak %lld MiB under a %lld MiB limit (tried %lld MiB)", QTest::currentDataTag(),
              peak / kMiB, kLimit / kMiB, kAttempt / kMiB);
        QVERIFY2(peak > kLimit && peak < kAttempt,
                 "the peak was not recorded, or the bound was late");
        QCOMPARE(run(a, ws, "print('fine')", kLimit).value("status").toString(),
                 QStringLiteral("completed"));
    }

    /// memfd_secret(2) pages are in no counter the watchdog reads: both tiers refuse the call.
    void testSecretMemoryIsRefused() {
        // Positive control: the kernel makes one for this (unfiltered) process.
        const long fd = ::syscall(SYS_memfd_secret, 0);
        if (fd < 0)
            QSKIP("this kernel has no memfd_secret (secretmem disabled): nothing to refuse");
        ::close(int(fd));
        // 447 is memfd_secret on x86_64 and aarch64 (asm-generic).
        const QString code =
            QStringLiteral("import ctypes\n"
                           "libc = ctypes.CDLL(None, use_errno=True)\n"
                           "print('secret', libc.syscall(447, 0), ctypes.get_errno())\n");
        QList<QPair<AgentProcess*, QString>> places{{&m_unprivileged, {}}};
        if (!m_light.isEmpty())
            places.append({&m_root, m_light});
        for (auto& [a, ws] : places) {
            const QJsonObject r = run(*a, ws.isEmpty() ? a->createWorkspace() : ws, code, kLimit);
            QVERIFY2(
                r.value("stdout").toString().contains(QStringLiteral("secret -1 %1").arg(ENOSYS)),
                qPrintable(QJsonDocument(r).toJson()));
        }
    }

    /// A SysV segment no process has attached holds its pages in the strong sandbox's own IPC
    /// namespace, where no counter the watchdog reads shows them: eight of 128 MiB, each touched
    /// then detached, held 1 GiB under a 256 MiB limit and ran to `completed`. Segments past 64 KiB
    /// are refused (EINVAL), so detached ones hold at most shmmni x 64 KiB; message queues are
    /// refused (ENOSYS).
    void testDetachedSysvMemoryIsBounded() {
        const QString code = QStringLiteral(R"(
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
def segment(size):
    i = libc.shmget(0, size, 0o1600)
    if i < 0: return -ctypes.get_errno()
    p = libc.shmat(i, None, 0)
    ctypes.memset(p, 1, size)
    libc.shmdt(p)
    return i
print('small', segment(65536) >= 0)
big = [segment(128 << 20) for _ in range(8)]
print('big', sum(1 for i in big if i >= 0), big[0])
n = 1
while n < 20000 and segment(65536) >= 0: n += 1
print('detached KiB', n * 64, 'shmmni', open('/proc/sys/kernel/shmmni').read().strip())
print('msgget', libc.msgget(0, 0o1600), ctypes.get_errno())
print('semget', libc.semget(0, 32000, 0o1600), ctypes.get_errno())
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
print('mq_open', libc.mq_open(b'/q', 0o102, 0o600, None), ctypes.get_errno())
)");
        const qint64 limit = 256 * kMiB;
        QList<AgentProcess*> agents{&m_unprivileged};
        if (m_root.client())
            agents.append(&m_root);
        for (AgentProcess* a : agents) {
            const QJsonObject r = run(*a, a->createWorkspace(), code, limit);
            const QString out = r.value("stdout").toString();
            qInfo("%s", qPrintable(out.simplified()));
            QVERIFY2(out.contains("small True"), qPrintable(QJsonDocument(r).toJson())); // control
            QVERIFY2(out.contains(QStringLiteral("big 0 -%1").arg(EINVAL)), qPrintable(out));
            QVERIFY2(out.contains(QStringLiteral("msgget -1 %1").arg(ENOSYS)), qPrintable(out));
            // Semaphore sets: 2,500 of 32,000 held 4.9 GiB of kernel memory under 256 MiB.
            QVERIFY2(out.contains(QStringLiteral("semget -1 %1").arg(ENOSYS)), qPrintable(out));
            QVERIFY2(out.contains(QStringLiteral("mq_open -1 %1").arg(ENOSYS)), qPrintable(out));
            const qint64 detachedKiB =
                out.section(QStringLiteral("detached KiB "), 1).section(' ', 0, 0).toLongLong();
            QVERIFY2(detachedKiB > 0 && detachedKiB * 1024 <= 256 * kMiB, qPrintable(out));
        }
    }

    void cleanupTestCase() {
        if (!m_light.isEmpty())
            m_root.client()->call("DELETE", "/v1/workspaces/" + m_light.toUtf8());
    }
};

QTEST_GUILESS_MAIN(TestSharedMemoryBounds)
#include "test_shared_memory_bounds.moc"
