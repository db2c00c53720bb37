// Two light workspaces A and B attack each other and the host (issue #7). Every refusal is
// preceded by a positive control showing the same probe works where it is allowed, so a broken
// setup cannot pass. Runs as root (setuid, Landlock, PID namespaces are real). Two hosts: one
// with a PID namespace + private /proc per workspace (the default when root), one without, where
// other workspaces' pids are visible, so uid + Landlock alone must refuse.
#include "LightTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

using namespace runbox::light;
using namespace lighttest;

namespace {

/// A TCP listener on 127.0.0.1 (the stand-in for the agent's port or an allowed service).
struct Listener {
    int fd = -1;
    quint16 port = 0;
    bool open() {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof(address);
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            ::listen(fd, 64) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            return false;
        port = ntohs(address.sin_port);
        return true;
    }
    ~Listener() {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

class TestLightIsolation final : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<LightWorkspaceHost> makeHost(const QString& name, uid_t firstUid,
                                                 bool pidNamespace, std::uint32_t uidCount = 100,
                                                 bool prestart = true) {
        LightHostConfig config;
        config.workspaceRoot = m_dir.path() + QLatin1Char('/') + name;
        config.supervisorPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-light-supervisor");
        config.uids.first = firstUid;
        config.uids.count = uidCount;
        config.pidNamespace = pidNamespace;
        config.controlPlanePorts = {m_agentPort.port};
        config.sweepPasses = 20;
        config.prestartSupervisors = prestart;
        return std::make_unique<LightWorkspaceHost>(config);
    }

    QString make(LightWorkspaceHost& host, const LightWorkspaceOptions& options = {}) {
        LightCreateResult result;
        const auto error = host.create(options, 1, &result);
        if (error || result.workspaces.size() != 1) {
            qWarning("create failed: %s (rejected %d)", error ? qPrintable(error->message) : "",
                     result.rejected);
            return {};
        }
        return result.workspaces.first().id;
    }

    uid_t uidOf(LightWorkspaceHost& host, const QString& id) { return host.info(id)->uid; }
    QString homeOf(LightWorkspaceHost& host, const QString& id) { return host.info(id)->home; }

    /// Starts `sleep 300` in the background of @p id with env SECRET=@p secret; its host pid.
    pid_t startBackgroundSleep(LightWorkspaceHost& host, const QString& id, const QString& secret) {
        const RunResult started = sh(host, id, QStringLiteral("sleep 300 >/dev/null 2>&1 &"), 0,
                                     {{QStringLiteral("SECRET"), secret}});
        if (!started.finished)
            return -1;
        QList<pid_t> pids;
        waitUntil([&] {
            pids = processesOf(uidOf(host, id), "sleep 300");
            return !pids.isEmpty();
        });
        return pids.isEmpty() ? -1 : pids.first();
    }

    QTemporaryDir m_dir;
    Listener m_agentPort; // never reachable from a workspace
    Listener m_otherPort; // reachable only where a workspace's policy allows it
    std::unique_ptr<LightWorkspaceHost> m_pid;  // PID namespace + private /proc per workspace
    std::unique_ptr<LightWorkspaceHost> m_flat; // no PID namespace: pids visible across

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root (setuid, Landlock, PID namespaces)");
        QVERIFY(m_dir.isValid());
        QCOMPARE(::chmod(QFile::encodeName(m_dir.path()).constData(), 0711), 0);
        QVERIFY(m_agentPort.open());
        QVERIFY(m_otherPort.open());
        m_pid = makeHost(QStringLiteral("pid"), 30000, true);
        m_flat = makeHost(QStringLiteral("flat"), 30200, false);
        QVERIFY2(m_pid->start(), qPrintable(m_pid->availability().reason));
        QVERIFY2(m_flat->start(), qPrintable(m_flat->availability().reason));
    }

    void cleanup() {
        if (m_pid)
            QVERIFY(m_pid->removeAll().isEmpty());
        if (m_flat)
            QVERIFY(m_flat->removeAll().isEmpty());
    }

    void testConfinementIsReportedInFull() {
        const QString a = make(*m_pid);
        QVERIFY(!a.isEmpty());
        QVERIFY(run(*m_pid, a, {QStringLiteral("true")}).finished);
        const LightConfinement confinement = m_pid->info(a)->confinement;
        QVERIFY(confinement.landlockAbi >= 6);
        QVERIFY(confinement.filesystem && confinement.network);
        QVERIFY(confinement.scopeAbstractUnix && confinement.scopeSignal);
        QVERIFY(confinement.pidNamespace && confinement.privateProc);
        QVERIFY(m_pid->availability().available);
    }

    void testExecRunsAsWorkspaceUidWithCleanEnvAndLimits() {
        LightWorkspaceOptions options;
        options.env = {{QStringLiteral("LAYER"), QStringLiteral("workspace")},
                       {QStringLiteral("KEEP"), QStringLiteral("workspace")}};
        const QString a = make(*m_pid, options);
        const uid_t uid = uidOf(*m_pid, a);
        const QString home = homeOf(*m_pid, a);
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(home).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, 0700u);
        QCOMPARE(st.st_uid, uid);
        QCOMPARE(st.st_gid, uid);
        const RunResult r =
            run(*m_pid, a,
                {QStringLiteral("/bin/bash"), QStringLiteral("-c"),
                 QStringLiteral("id -u; id -g; id -G; pwd; env | sort; "
                                "grep -E '^(NoNewPrivs|CapEff)' /proc/self/status; "
                                "ulimit -u; ulimit -v; ulimit -n; ulimit -c; ulimit -t")},
                0, {{QStringLiteral("LAYER"), QStringLiteral("request")}});
        QVERIFY(r.finished);
        QCOMPARE(r.status.kind, LightExitStatus::Kind::Exited);
        const QString text = QString::fromUtf8(r.out);
        const QString u = QString::number(uid);
        QVERIFY2(text.startsWith(u + QLatin1Char('\n') + u + QLatin1Char('\n') + u +
                                 QLatin1Char('\n') + home + QLatin1Char('\n')),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("HOME=") + home + QLatin1Char('\n')));
        QVERIFY(text.contains(QStringLiteral("TMPDIR=") + home + QStringLiteral("/.tmp\n")));
        QVERIFY(text.contains(QStringLiteral("PATH=") + home + QStringLiteral("/.local/bin:")));
        QVERIFY(text.contains(QStringLiteral("RUNBOX_WORKSPACE_ID=") + a + QLatin1Char('\n')));
        QVERIFY(text.contains(QStringLiteral("USER=runbox-") + a + QLatin1Char('\n')));
        QVERIFY(text.contains(QStringLiteral("LAYER=request\n")));  // request env on top
        QVERIFY(text.contains(QStringLiteral("KEEP=workspace\n"))); // workspace env under it
        QVERIFY(!text.contains(QStringLiteral("QT_")));             // nothing of the agent's env
        QVERIFY(text.contains(QStringLiteral("NoNewPrivs:\t1")));
        QVERIFY(text.contains(QStringLiteral("CapEff:\t0000000000000000")));
        QVERIFY2(text.endsWith(QStringLiteral("256\n2097152\n4096\n0\n86400\n")), qPrintable(text));
    }

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
        // Attack: by path, and by listing the root.
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("read"), secret}).out,
                 QByteArray("errno=EACCES\n"));
        const RunResult listing = sh(*m_pid, a, QStringLiteral("ls ..; ls ") + homeOf(*m_pid, b));
        QVERIFY(!listing.out.contains(b.toLatin1()));
        QVERIFY(listing.err.contains("Permission denied"));
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

    void testCannotWriteTmpOrDevShm_data() {
        QTest::addColumn<bool>("pidNamespace");
        QTest::newRow("landlock alone (no mount namespace)") << false;
        QTest::newRow("landlock + masked runtime dirs") << true;
    }

    void testCannotWriteTmpOrDevShm() {
        QFETCH(bool, pidNamespace);
        LightWorkspaceHost& host = pidNamespace ? *m_pid : *m_flat;
        const QString a = make(host);
        const QString attack = installAttack(host, a);
        const QString name = QStringLiteral("runbox-light-probe-") + a;
        // Positive control: writing into its own home and TMPDIR works.
        QCOMPARE(run(host, a, {attack, QStringLiteral("write"), QStringLiteral(".tmp/f")}).out,
                 QByteArray("ok\n"));
        for (const QString& dir :
             {QStringLiteral("/tmp"), QStringLiteral("/dev/shm"), QStringLiteral("/var/tmp")}) {
            const QString target = dir + QLatin1Char('/') + name;
            const QByteArray out = run(host, a, {attack, QStringLiteral("write"), target}).out;
            // Landlock says EACCES; where the directory is also masked, the read-only tmpfs
            // answers first (EROFS).
            QVERIFY2(out == "errno=EACCES\n" || (pidNamespace && out == "errno=EROFS\n"),
                     out.constData());
            QVERIFY(!QFileInfo::exists(target));
        }
        QCOMPARE(run(host, a, {attack, QStringLiteral("write"), QStringLiteral("/usr/x")}).out,
                 QByteArray("errno=EACCES\n"));
    }

    void testCannotBindTcp() {
        const QString a = make(*m_pid);
        const QString attack = installAttack(*m_pid, a);
        // Positive control: the probe's socket code works (UDP bind is not restricted).
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("bind-udp"), QStringLiteral("0")}).out,
                 QByteArray("ok\n"));
        Listener outside;
        QVERIFY(outside.open()); // and TCP bind works outside the sandbox
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("bind-tcp"), QStringLiteral("0")}).out,
                 QByteArray("errno=EACCES\n"));
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

    void testCannotConnectToAgentPort() {
        // The agent's port can never be allowed.
        LightWorkspaceOptions forbidden;
        forbidden.allowedConnectPorts = {m_agentPort.port};
        LightCreateResult refused;
        const auto error = m_pid->create(forbidden, 1, &refused);
        QVERIFY(error);
        QCOMPARE(error->httpStatus, 403);
        // Positive control: a workspace whose policy allows the other port reaches it.
        LightWorkspaceOptions allowed;
        allowed.allowedConnectPorts = {m_otherPort.port};
        const QString c = make(*m_pid, allowed);
        const QString attackC = installAttack(*m_pid, c);
        const QString other = QString::number(m_otherPort.port);
        const QString agent = QString::number(m_agentPort.port);
        QCOMPARE(run(*m_pid, c, {attackC, QStringLiteral("connect-tcp"), other}).out,
                 QByteArray("ok\n"));
        QCOMPARE(run(*m_pid, c, {attackC, QStringLiteral("connect-tcp"), agent}).out,
                 QByteArray("errno=EACCES\n"));
        // A workspace with the default (no ports) reaches neither.
        const QString a = make(*m_pid);
        const QString attackA = installAttack(*m_pid, a);
        QCOMPARE(run(*m_pid, a, {attackA, QStringLiteral("connect-tcp"), agent}).out,
                 QByteArray("errno=EACCES\n"));
        QCOMPARE(run(*m_pid, a, {attackA, QStringLiteral("connect-tcp"), other}).out,
                 QByteArray("errno=EACCES\n"));
        // A per-exec policy may narrow, never widen.
        LightExecRequest narrowed;
        narrowed.argv = {attackC, QStringLiteral("connect-tcp"), other};
        narrowed.allowedConnectPorts = QList<quint16>{};
        int out[2];
        QCOMPARE(::pipe2(out, O_CLOEXEC), 0);
        narrowed.stdoutFd = out[1];
        runbox::ApiError execError;
        auto execution = m_pid->exec(c, narrowed, &execError);
        ::close(out[1]);
        QVERIFY(execution);
        char buffer[64] = {};
        QVERIFY(::read(out[0], buffer, sizeof(buffer) - 1) > 0);
        ::close(out[0]);
        QCOMPARE(QByteArray(buffer), QByteArray("errno=EACCES\n"));
        QVERIFY(execution->waitForFinished(10000));
        LightExecRequest widened;
        widened.argv = {QStringLiteral("true")};
        widened.allowedConnectPorts = QList<quint16>{m_agentPort.port};
        QVERIFY(!m_pid->exec(a, widened, &execError));
        QCOMPARE(execError.httpStatus, 409);
    }

    void testHostUnixSocketUnderRunIsHidden() {
        const QByteArray path =
            QByteArray("/run/runbox-light-test-") + QByteArray::number(::getpid());
        ::unlink(path.constData());
        const int server = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.constData(), sizeof(address.sun_path) - 1);
        QCOMPARE(::bind(server, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
        QCOMPARE(::listen(server, 8), 0);
        QCOMPARE(::chmod(path.constData(), 0777), 0); // world-writable, as D-Bus's is
        // Positive control: without a mount namespace the socket is reachable by path — the hole
        // Landlock leaves open.
        const QString flat = make(*m_flat);
        const QString flatAttack = installAttack(*m_flat, flat);
        const QByteArray reached =
            run(*m_flat, flat,
                {flatAttack, QStringLiteral("connect-unix"), QString::fromLatin1(path)})
                .out;
        const QString a = make(*m_pid);
        const QString attack = installAttack(*m_pid, a);
        const QByteArray hidden =
            run(*m_pid, a, {attack, QStringLiteral("connect-unix"), QString::fromLatin1(path)}).out;
        ::close(server);
        ::unlink(path.constData());
        QCOMPARE(reached, QByteArray("ok\n"));
        QCOMPARE(hidden, QByteArray("errno=ENOENT\n"));
        QVERIFY(m_pid->info(a)->confinement.privateProc);
    }

    void testSetsidDescendantDoesNotSurviveTimeout_data() {
        QTest::addColumn<bool>("pidNamespace");
        QTest::newRow("pid namespace") << true;
        QTest::newRow("no pid namespace") << false;
    }

    void testSetsidDescendantDoesNotSurviveTimeout() {
        QFETCH(bool, pidNamespace);
        LightWorkspaceHost& host = pidNamespace ? *m_pid : *m_flat;
        const QString a = make(host);
        const uid_t uid = uidOf(host, a);
        // An earlier background process of the workspace, which the timeout must not touch.
        QVERIFY(sh(host, a, QStringLiteral("sleep 301 >/dev/null 2>&1 &")).finished);
        QVERIFY(waitUntil([&] { return !processesOf(uid, "sleep 301").isEmpty(); }));
        bool sawEscapees = false;
        std::thread watcher([&] {
            sawEscapees = waitUntil([&] {
                return !processesOf(uid, "sleep 1000").isEmpty() &&
                       !processesOf(uid, "sleep 1001").isEmpty();
            });
        });
        const RunResult r = sh(host, a,
                               QStringLiteral("setsid sleep 1000 >/dev/null 2>&1 & "
                                              "(setsid sleep 1001 >/dev/null 2>&1 &); sleep 100"),
                               3000);
        watcher.join();
        QVERIFY(sawEscapees); // positive control: both escapees existed while it ran
        QVERIFY(r.finished);
        QVERIFY(r.status.timedOut);
        QCOMPARE(r.status.stateName(), QStringLiteral("timed_out"));
        QVERIFY(waitUntil([&] {
            return processesOf(uid, "sleep 1000").isEmpty() &&
                   processesOf(uid, "sleep 1001").isEmpty() &&
                   processesOf(uid, "sleep 100").isEmpty();
        }));
        QVERIFY(!processesOf(uid, "sleep 301").isEmpty()); // the workspace's own background lives
        QCOMPARE(sh(host, a, QStringLiteral("echo alive")).out, QByteArray("alive\n"));
    }

    void testSetsidDescendantDoesNotSurviveDelete_data() {
        testSetsidDescendantDoesNotSurviveTimeout_data();
    }

    void testSetsidDescendantDoesNotSurviveDelete() {
        QFETCH(bool, pidNamespace);
        LightWorkspaceHost& host = pidNamespace ? *m_pid : *m_flat;
        const QString a = make(host);
        const uid_t uid = uidOf(host, a);
        const QString home = homeOf(host, a);
        const RunResult r = sh(host, a,
                               QStringLiteral("setsid sleep 1000 >/dev/null 2>&1 & "
                                              "(setsid nohup sleep 1001 >/dev/null 2>&1 &)"));
        QVERIFY(r.finished);
        QCOMPARE(r.status.exitCode, 0);
        // Positive control: both outlived the exec that started them.
        QVERIFY(waitUntil([&] {
            return !processesOf(uid, "sleep 1000").isEmpty() &&
                   !processesOf(uid, "sleep 1001").isEmpty();
        }));
        QVERIFY(!host.remove(a));
        QVERIFY(processesOf(uid).isEmpty()); // nothing of the uid, right when remove() returns
        QVERIFY(!QFileInfo::exists(home));
        runbox::ApiError error;
        LightExecRequest request;
        request.argv = {QStringLiteral("true")};
        QVERIFY(!host.exec(a, request, &error));
        QCOMPARE(error.httpStatus, 404);
    }

    void testUidIsNotReusedWhileAnythingOfItLives() {
        // Supervisors start at the first exec here, so "no process of the uid" is exact.
        auto host = makeHost(QStringLiteral("single"), 30400, false, 1, false);
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
        QCOMPARE(failed->httpStatus, 500);
        QCOMPARE(failed->code, QStringLiteral("cleanup_failed"));
        QVERIFY(host->uidPool()->isQuarantined(uid));
        LightCreateResult after;
        QVERIFY(!host->create({}, 1, &after));
        QCOMPARE(after.rejected, 1);
        QVERIFY(QDir(homeB).removeRecursively());
    }

    void testShortExecsNeverLoseTrailingOutput() {
        const QString a = make(*m_pid);
        QByteArray numbers;
        for (int i = 1; i <= 20000; ++i)
            numbers += QByteArray::number(i) + '\n';
        int lost = 0;
        for (int i = 0; i < 200; ++i) {
            const RunResult hi = run(*m_pid, a, {QStringLiteral("echo"), QStringLiteral("hi")});
            const RunResult xyz = run(*m_pid, a, {QStringLiteral("printf"), QStringLiteral("xyz")});
            const RunResult seq = run(
                *m_pid, a, {QStringLiteral("seq"), QStringLiteral("1"), QStringLiteral("20000")});
            lost += (hi.out != "hi\n") + (xyz.out != "xyz") + (seq.out != numbers);
            QVERIFY2(hi.finished && xyz.finished && seq.finished,
                     qPrintable(hi.error + hi.status.message + seq.status.message));
            QCOMPARE(seq.status.exitCode, 0);
        }
        QCOMPARE(lost, 0);
    }

    void testCancelKillsTheExecTree() {
        const QString a = make(*m_pid);
        const uid_t uid = uidOf(*m_pid, a);
        LightExecRequest request;
        request.argv = {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                        QStringLiteral("setsid sleep 1002 & sleep 1003")};
        runbox::ApiError error;
        const auto execution = m_pid->exec(a, request, &error);
        QVERIFY(execution);
        QVERIFY(waitUntil([&] { return !processesOf(uid, "sleep 1002").isEmpty(); }));
        execution->cancel();
        QVERIFY(execution->waitForFinished(10000));
        QCOMPARE(execution->status().stateName(), QStringLiteral("cancelled"));
        QVERIFY(waitUntil([&] {
            return processesOf(uid, "sleep 1002").isEmpty() &&
                   processesOf(uid, "sleep 1003").isEmpty();
        }));
    }

    void testKillTreeOnExitLeavesNothingBehind() {
        const QString a = make(*m_pid);
        const uid_t uid = uidOf(*m_pid, a);
        LightExecRequest request;
        request.argv = {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                        QStringLiteral("setsid sleep 1004 >/dev/null 2>&1 & "
                                       "(setsid sleep 1005 >/dev/null 2>&1 &); echo started")};
        request.killTreeOnExit = true;
        runbox::ApiError error;
        const auto execution = m_pid->exec(a, request, &error);
        QVERIFY(execution);
        QVERIFY(execution->waitForFinished(10000));
        QCOMPARE(execution->status().exitCode, 0);
        QVERIFY(processesOf(uid, "sleep 1004").isEmpty());
        QVERIFY(processesOf(uid, "sleep 1005").isEmpty());
        // Positive control: without the flag the same script leaves both running.
        QVERIFY(sh(*m_pid, a,
                   QStringLiteral("setsid sleep 1004 >/dev/null 2>&1 & "
                                  "(setsid sleep 1005 >/dev/null 2>&1 &)"))
                    .finished);
        QVERIFY(waitUntil([&] {
            return !processesOf(uid, "sleep 1004").isEmpty() &&
                   !processesOf(uid, "sleep 1005").isEmpty();
        }));
    }

    void testTimeoutRightAtStartStillKills() {
        // A timeout that fires while the command is still being started must not be lost.
        const QString a = make(*m_pid);
        const uid_t uid = uidOf(*m_pid, a);
        for (int i = 0; i < 20; ++i) {
            const RunResult r =
                run(*m_pid, a, {QStringLiteral("sleep"), QStringLiteral("1006")}, 1);
            QVERIFY(r.finished);
            QVERIFY(r.status.timedOut);
        }
        QVERIFY(waitUntil([&] { return processesOf(uid, "sleep 1006").isEmpty(); }));
    }

    void testMissingProgramIsSpawnFailure() {
        const QString a = make(*m_pid);
        const RunResult r = run(*m_pid, a, {QStringLiteral("no-such-program-runbox")});
        QVERIFY(r.finished);
        QCOMPARE(r.status.kind, LightExitStatus::Kind::SpawnFailed);
        QCOMPARE(r.status.errorNumber, ENOENT);
        // Positive control: the same PATH search finds a real program.
        QCOMPARE(run(*m_pid, a, {QStringLiteral("echo"), QStringLiteral("found")}).out,
                 QByteArray("found\n"));
    }

    void testBelowMinimumAbiFailsClosed() {
        LightHostConfig config;
        config.workspaceRoot = m_dir.path() + QStringLiteral("/closed");
        config.supervisorPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-light-supervisor");
        config.uids.first = 30500;
        config.minLandlockAbi = 99;
        LightWorkspaceHost host(config);
        QVERIFY(!host.start());
        QVERIFY(host.availability().reason.contains(QStringLiteral("Landlock ABI")));
        LightCreateResult result;
        const auto error = host.create({}, 1, &result);
        QVERIFY(error);
        QCOMPARE(error->httpStatus, 503);
    }
};

QTEST_GUILESS_MAIN(TestLightIsolation)
#include "test_light_isolation.moc"
