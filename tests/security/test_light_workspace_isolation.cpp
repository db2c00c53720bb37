// Two light workspaces A and B attack each other (docs/light-workspaces.md): homes,
// /proc/<pid>/environ and mem, signals and ptrace, abstract unix sockets, and a uid handed to a new
// workspace while something of its previous owner still lives. Every refusal is preceded by a
// positive control. Runs as root against a host with a PID namespace + private /proc per workspace
// and one without, where other workspaces' pids are visible, so uid + Landlock alone must refuse.
// Attacks on the host: test_light_host_isolation.
#include "LightIsolationFixture.h"
#include "agent/http/ErrorStatus.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <sys/mount.h>
#include <sys/stat.h>

using namespace runbox::light;
using namespace lighttest;

class TestLightWorkspaceIsolation final : public LightIsolationFixture {
    Q_OBJECT

    /// A spare home in @p root: a 16-hex-digit directory still owned by the agent ("" if none).
    static QString spareIn(const QString& root) {
        for (const QString& name : runbox::testsupport::directoriesOwnedBy(root, ::geteuid())) {
            if (name.size() == 16)
                return root + QLatin1Char('/') + name;
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = startHosts(31000, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanup() { QVERIFY(removeAllWorkspaces()); }

    void testCannotReadOtherWorkspaceHome() {
        const QString a = make(*m_pid), b = make(*m_pid);
        const QString attack = installAttack(*m_pid, a);
        QVERIFY(!attack.isEmpty());
        const QString secret = homeOf(*m_pid, b) + QStringLiteral("/secret.txt");
        QVERIFY(sh(*m_pid, b, QStringLiteral("echo b-secret > secret.txt")).finished);
        // Positive controls: B reads its file, and the same probe reads A's own file.
        QCOMPARE(sh(*m_pid, b, QStringLiteral("cat secret.txt")).out, QByteArray("b-secret\n"));
        QVERIFY(sh(*m_pid, a, QStringLiteral("echo mine > mine.txt")).finished);
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("read"), QStringLiteral("mine.txt")}).out,
                 QByteArray("ok mine\n\n"));
        // Attack: by path, and by listing the root. Refused (EACCES), or, with a mount namespace
        // per workspace, not even there (ENOENT: the root is an empty tmpfs but for A's home).
        const QByteArray read = run(*m_pid, a, {attack, QStringLiteral("read"), secret}).out;
        QVERIFY2(read == "errno=EACCES\n" || read == "errno=ENOENT\n", read.constData());
        const RunResult listing = sh(*m_pid, a, QStringLiteral("ls ..; ls ") + homeOf(*m_pid, b));
        QVERIFY(!listing.out.contains(b.toLatin1()));
        QVERIFY(!listing.out.contains(QFileInfo(homeOf(*m_pid, b)).fileName().toLatin1()));
        QVERIFY(listing.err.contains("Permission denied"));
    }

    void testCannotUseASpareHome() {
        // Spares sit in the same root as the homes, named like them, until a create hands one
        // over. Found from the host side here; a workspace would have to guess 64 random bits.
        const QString a = make(*m_pid);
        const QString root = QFileInfo(homeOf(*m_pid, a)).path();
        QString spare;
        QTRY_VERIFY_WITH_TIMEOUT(!(spare = spareIn(root)).isEmpty(), 10000);
        const QString attack = installAttack(*m_pid, a);
        QVERIFY(!attack.isEmpty());
        // Positive control: the probe writes and reads in A's own home.
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("write"), QStringLiteral("own.txt")}).out,
                 QByteArray("ok\n"));
        // Attack: plant a file in the spare (it would greet the next workspace) or in its .tmp,
        // and list it.
        for (const QString& target : {spare + QStringLiteral("/planted.txt"),
                                      spare + QStringLiteral("/.tmp/planted.txt")}) {
            const QByteArray out = run(*m_pid, a, {attack, QStringLiteral("write"), target}).out;
            QVERIFY2(out == "errno=EACCES\n" || out == "errno=ENOENT\n", out.constData());
        }
        const RunResult listing = sh(*m_pid, a, QStringLiteral("ls -a ") + spare);
        QVERIFY(!listing.out.contains(".tmp"));
        QVERIFY2(listing.err.contains("Permission denied") || listing.err.contains("No such file"),
                 listing.err.constData());
        QVERIFY(!QFileInfo::exists(spare + QStringLiteral("/planted.txt")));
        QVERIFY(!QFileInfo::exists(spare + QStringLiteral("/.tmp/planted.txt")));
    }

    void testCannotReadOtherWorkspaceEnviron() {
        // Without a PID namespace B's pid is visible to A: uid + Landlock must refuse.
        const QString a = make(*m_flat), b = make(*m_flat);
        const QString attack = installAttack(*m_flat, a);
        const pid_t victim = startBackgroundSleep(*m_flat, b, QStringLiteral("b-environ-secret"));
        QVERIFY(victim > 0);
        const QString environ = QStringLiteral("/proc/%1/environ").arg(victim);
        // Positive controls: root and B itself read it.
        QFile file(environ);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("SECRET=b-environ-secret"));
        QVERIFY(sh(*m_flat, b, QStringLiteral("cat ") + environ).out.contains("b-environ-secret"));
        const RunResult attacked = run(*m_flat, a, {attack, QStringLiteral("read"), environ});
        QCOMPARE(attacked.out, QByteArray("errno=EACCES\n"));
        const RunResult memory =
            run(*m_flat, a,
                {attack, QStringLiteral("read"), QStringLiteral("/proc/%1/mem").arg(victim)});
        QCOMPARE(memory.out, QByteArray("errno=EACCES\n"));

        // With a PID namespace and private /proc, B's processes are not even visible to A.
        const QString pa = make(*m_pid), pb = make(*m_pid);
        const QString pidAttack = installAttack(*m_pid, pa);
        const pid_t hidden = startBackgroundSleep(*m_pid, pb, QStringLiteral("pid-secret"));
        QVERIFY(hidden > 0);
        QVERIFY(QFile(QStringLiteral("/proc/%1/environ").arg(hidden)).exists()); // host sees it
        QCOMPARE(
            run(*m_pid, pa,
                {pidAttack, QStringLiteral("read"), QStringLiteral("/proc/%1/environ").arg(hidden)})
                .out,
            QByteArray("errno=ENOENT\n"));
        QVERIFY(!sh(*m_pid, pa, QStringLiteral("ps -e -o args 2>/dev/null || cat /proc/*/cmdline"))
                     .out.contains("sleep 300"));
    }

    void testCannotSignalOrPtraceOtherWorkspace() {
        const QString a = make(*m_flat), b = make(*m_flat);
        const QString attackA = installAttack(*m_flat, a);
        const QString attackB = installAttack(*m_flat, b);
        const pid_t victim = startBackgroundSleep(*m_flat, b, QStringLiteral("x"));
        QVERIFY(victim > 0);
        const QString pid = QString::number(victim);
        // Positive controls: B (a later exec, same domain) can signal and ptrace its own process.
        QCOMPARE(run(*m_flat, b, {attackB, QStringLiteral("kill"), pid, QStringLiteral("0")}).out,
                 QByteArray("ok\n"));
        QCOMPARE(run(*m_flat, b, {attackB, QStringLiteral("ptrace"), pid}).out, QByteArray("ok\n"));
        // Attacks from A.
        QCOMPARE(run(*m_flat, a, {attackA, QStringLiteral("kill"), pid, QStringLiteral("9")}).out,
                 QByteArray("errno=EPERM\n"));
        QCOMPARE(run(*m_flat, a, {attackA, QStringLiteral("ptrace"), pid}).out,
                 QByteArray("errno=EPERM\n"));
        QVERIFY(!processesOf(uidOf(*m_flat, b), "sleep 300").isEmpty()); // still alive
    }

    void testOwnBackgroundProcessStaysReachableFromLaterExecs() {
        const QString b = make(*m_pid);
        const QString attack = installAttack(*m_pid, b);
        const QString name = QStringLiteral("runbox-light-") + b;
        const RunResult first =
            sh(*m_pid, b,
               QStringLiteral("%1 abstract-serve %2 >/dev/null 2>&1 & echo $!").arg(attack, name));
        QVERIFY(first.finished);
        const QString serverPid = QString::fromLatin1(first.out.trimmed());
        QVERIFY(serverPid.toInt() > 0);
        // A later exec (a new process tree, same workspace domain) reaches it over the abstract
        // socket and can signal it.
        QVERIFY(waitUntil([&] {
            return run(*m_pid, b, {attack, QStringLiteral("abstract-connect"), name}).out ==
                   "ok pong\n";
        }));
        QCOMPARE(
            run(*m_pid, b, {attack, QStringLiteral("kill"), serverPid, QStringLiteral("0")}).out,
            QByteArray("ok\n"));
        QCOMPARE(sh(*m_pid, b, QStringLiteral("kill -TERM %1 && echo sent").arg(serverPid)).out,
                 QByteArray("sent\n"));
        QVERIFY(
            waitUntil([&] { return processesOf(uidOf(*m_pid, b), "abstract-serve").isEmpty(); }));
    }

    void testCannotConnectToOtherWorkspaceAbstractSocket() {
        const QString a = make(*m_pid), b = make(*m_pid);
        const QString attackA = installAttack(*m_pid, a);
        const QString attackB = installAttack(*m_pid, b);
        const QString name = QStringLiteral("runbox-light-") + b;
        QVERIFY(sh(*m_pid, b,
                   QStringLiteral("%1 abstract-serve %2 >/dev/null 2>&1 &").arg(attackB, name))
                    .finished);
        // Positive control: B's own later exec connects.
        QVERIFY(waitUntil([&] {
            return run(*m_pid, b, {attackB, QStringLiteral("abstract-connect"), name}).out ==
                   "ok pong\n";
        }));
        QCOMPARE(run(*m_pid, a, {attackA, QStringLiteral("abstract-connect"), name}).out,
                 QByteArray("errno=EPERM\n"));
        // Same in the host without PID namespaces: the scope is Landlock's, not the namespace's.
        const QString fa = make(*m_flat), fb = make(*m_flat);
        const QString flatA = installAttack(*m_flat, fa), flatB = installAttack(*m_flat, fb);
        const QString flatName = QStringLiteral("runbox-light-") + fb;
        QVERIFY(sh(*m_flat, fb,
                   QStringLiteral("%1 abstract-serve %2 >/dev/null 2>&1 &").arg(flatB, flatName))
                    .finished);
        QVERIFY(waitUntil([&] {
            return run(*m_flat, fb, {flatB, QStringLiteral("abstract-connect"), flatName}).out ==
                   "ok pong\n";
        }));
        QCOMPARE(run(*m_flat, fa, {flatA, QStringLiteral("abstract-connect"), flatName}).out,
                 QByteArray("errno=EPERM\n"));
    }

    void testUidIsNotReusedWhileAnythingOfItLives() {
        // Supervisors start at the first exec here, so "no process of the uid" is exact.
        auto host = makeHost(QStringLiteral("single"), 31400, false, 1, false);
        QVERIFY2(host->start(), qPrintable(host->availability().reason));
        const QString a = make(*host);
        QVERIFY(!a.isEmpty());
        const uid_t uid = uidOf(*host, a);
        QVERIFY(sh(*host, a, QStringLiteral("setsid sleep 1000 >/dev/null 2>&1 &")).finished);
        QVERIFY(waitUntil([&] { return !processesOf(uid, "sleep 1000").isEmpty(); }));
        LightCreateResult full;
        QVERIFY(!host->create({}, 1, &full));
        QCOMPARE(full.rejected, 1); // positive control: the pool holds exactly this uid
        QVERIFY(!host->remove(a));
        host->flushReclaims();
        LightCreateResult again;
        QVERIFY(!host->create({}, 1, &again));
        QCOMPARE(again.workspaces.size(), 1);
        QCOMPARE(again.workspaces.first().uid, uid); // reused only now…
        QVERIFY(processesOf(uid).isEmpty());         // …with nothing of it alive

        // A cleanup that cannot complete quarantines the uid for good (a mount inside the home
        // stops the fd walk, which never crosses filesystems).
        const QString b = again.workspaces.first().id;
        const QString homeB = homeOf(*host, b);
        const QByteArray mountPoint = QFile::encodeName(homeB + QStringLiteral("/mnt"));
        QCOMPARE(::mkdir(mountPoint.constData(), 0755), 0);
        const QByteArray source = QFile::encodeName(m_dir.path());
        QCOMPARE(::mount(source.constData(), mountPoint.constData(), nullptr, MS_BIND, nullptr), 0);
        const auto failed = host->remove(b);
        QCOMPARE(::umount2(mountPoint.constData(), MNT_DETACH), 0);
        QVERIFY(failed);
        QCOMPARE(runbox::http::httpStatus(failed->kind), 500);
        QCOMPARE(failed->code, QStringLiteral("cleanup_failed"));
        QVERIFY(host->uidPool()->isQuarantined(uid));
        LightCreateResult after;
        QVERIFY(!host->create({}, 1, &after));
        QCOMPARE(after.rejected, 1);
        QVERIFY(QDir(homeB).removeRecursively());
    }
};

QTEST_GUILESS_MAIN(TestLightWorkspaceIsolation)
#include "test_light_workspace_isolation.moc"
