// A light workspace attacks the host (docs/light-workspaces.md): files outside its home, /tmp and
// /dev/shm, TCP binds, the agent's port, host unix sockets, descendants that try to outlive their
// execution, and fail-closed start-up. Every refusal is preceded by a positive control showing the
// same probe works where it is allowed, so a broken setup cannot pass. Runs as root (setuid,
// Landlock, PID namespaces are real), against a host with a PID namespace + private /proc per
// workspace and one without. Workspaces attacking each other: test_light_workspace_isolation.
#include "LightIsolationFixture.h"
#include "agent/http/ErrorStatus.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTest>

#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>

using namespace runbox::light;
using namespace lighttest;

class TestLightHostIsolation final : public LightIsolationFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = startHosts(30000, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanup() { QVERIFY(removeAllWorkspaces()); }

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
        LightWorkspaceOptions options;
        options.allowUdp = true;
        options.allowedConnectPorts = {m_otherPort.port}; // TCP sockets may be created
        const QString a = make(*m_pid, options);
        const QString attack = installAttack(*m_pid, a);
        // Positive control: the probe's socket code works (UDP, granted here, is not restricted
        // by Landlock).
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("bind-udp"), QStringLiteral("0")}).out,
                 QByteArray("ok\n"));
        Listener outside;
        QVERIFY(outside.open()); // and TCP bind works outside the sandbox
        QCOMPARE(run(*m_pid, a, {attack, QStringLiteral("bind-tcp"), QStringLiteral("0")}).out,
                 QByteArray("errno=EACCES\n"));
    }

    /// An attack on the memory bound found that light code could make user namespaces, and
    /// network namespaces inside them with sockets of their own. Nothing may be created, by
    /// unshare(2) or clone(2); threads, fork and subprocess keep working (clone3 falls back).
    void testCannotCreateNamespaces() {
        const QString a = make(*m_pid);
        const QString python = QStringLiteral("/usr/bin/python3");
        QCOMPARE(run(*m_pid, a,
                     {python, QStringLiteral("-c"),
                      QStringLiteral("import threading, subprocess\n"
                                     "t = threading.Thread(target=lambda: print('thread'))\n"
                                     "t.start(); t.join()\n"
                                     "print(subprocess.run(['/usr/bin/true']).returncode)")})
                     .out,
                 QByteArray("thread\n0\n"));
        const QString probe = QStringLiteral(
            "import ctypes, os\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            // clone(CLONE_NEWUSER | SIGCHLD) first: after unshare(CLONE_NEWUSER) the caller's
            // uid is unmapped and a nested one is refused whatever the filter says.
            "rc = libc.syscall(56 if os.uname().machine == 'x86_64' else 220, "
            "0x10000000 | 17, 0, 0, 0, 0)\n"
            "if rc == 0: os._exit(0)\n"
            "print('clone user', 'ok' if rc > 0 else os.strerror(ctypes.get_errno()))\n"
            "for name, flag in (('user', 0x10000000), ('net', 0x40000000), ('mnt', 0x20000), "
            "('pid', 0x20000000), ('ipc', 0x8000000), ('uts', 0x4000000)):\n"
            "    rc = libc.unshare(flag)\n"
            "    print('unshare', name, 'ok' if rc == 0 else os.strerror(ctypes.get_errno()))\n");
        // Positive control: the same probe as root outside any sandbox creates them all.
        QProcess outside;
        outside.start(python, {QStringLiteral("-c"), probe});
        QVERIFY(outside.waitForFinished(30000));
        const QByteArray host = outside.readAllStandardOutput();
        QVERIFY2(host.count("ok") == 7, host.constData());
        const QByteArray inside = run(*m_pid, a, {python, QStringLiteral("-c"), probe}).out;
        QVERIFY2(!inside.contains("ok") && inside.count("Operation not permitted") == 7,
                 inside.constData());
    }

    void testCannotConnectToAgentPort() {
        // The agent's port can never be allowed.
        LightWorkspaceOptions forbidden;
        forbidden.allowedConnectPorts = {m_agentPort.port};
        LightCreateResult refused;
        const auto error = m_pid->create(forbidden, 1, &refused);
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 403);
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
        runbox::Error execError;
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
        QCOMPARE(runbox::http::httpStatus(execError.kind), 409);
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
        runbox::Error error;
        LightExecRequest request;
        request.argv = {QStringLiteral("true")};
        QVERIFY(!host.exec(a, request, &error));
        QCOMPARE(runbox::http::httpStatus(error.kind), 404);
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
        runbox::Error error;
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
        runbox::Error error;
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
        QCOMPARE(runbox::http::httpStatus(error->kind), 503);
    }
};

QTEST_GUILESS_MAIN(TestLightHostIsolation)
#include "test_light_host_isolation.moc"
