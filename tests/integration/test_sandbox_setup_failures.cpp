// A sandbox that cannot be built is `setup_failed`, never the user's exit code, and a set-up that
// hangs is killed after the set-up timeout (docs/contracts.md "Fail closed"). Driven by a stub
// bwrap that behaves like the real one for the preflight and the probe, then hangs (or fails) on
// real launches.
#include "support/AgentProcess.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox::testsupport;

namespace {

/// Writes an executable stub bwrap into @p dir. Preflight (`--help`, `--version`) and probe
/// launches (they end with /usr/bin/true) go to the real bwrap; a real launch (it has
/// --json-status-fd) does @p behaviour.
QString writeStub(const QString& dir, const QByteArray& behaviour) {
    const QString path = dir + QStringLiteral("/bwrap");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("#!/bin/sh\n"
            "for a in \"$@\"; do last=\"$a\"; done\n"
            "case \" $* \" in *\" --json-status-fd \"*) ;; *) exec /usr/bin/bwrap \"$@\";; esac\n" +
            behaviour + "\n");
    f.close();
    ::chmod(QFile::encodeName(path).constData(), 0755);
    ::chmod(QFile::encodeName(dir).constData(), 0755);
    return path;
}

} // namespace

class TestSandboxSetupFailures final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testRealSandboxCompletesAsAPositiveControl() {
        AgentProcess agent;
        QVERIFY2(agent.start(), qPrintable(agent.errorString()));
        const QString ws = agent.createWorkspace();
        const ExecOutcome r = agent.exec(ws, {{"argv", QJsonArray{"true"}}}, 30000);
        QCOMPARE(r.status(), QStringLiteral("completed"));
    }

    void testHungSetupIsKilledAfterTheSetupTimeout() {
        QTemporaryDir dir(QStringLiteral("/tmp/runbox-stub-XXXXXX"));
        // A set-up that never finishes: no child-pid, no command, nothing.
        const QString stub = writeStub(dir.path(), "exec sleep 1000");
        AgentProcess agent;
        AgentOptions options;
        options.extraArgs = {QStringLiteral("--bwrap"), stub, QStringLiteral("--setup-timeout-ms"),
                             QStringLiteral("1500")};
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString ws = agent.createWorkspace();
        QElapsedTimer clock;
        clock.start();
        const ExecOutcome r = agent.exec(ws, {{"argv", QJsonArray{"true"}}}, 30000);
        QCOMPARE(r.status(), QStringLiteral("setup_failed"));
        QVERIFY2(r.exitEvent.value("reason").toString().contains(QLatin1String("set-up")),
                 qPrintable(r.describe()));
        QVERIFY2(clock.elapsed() < 10000, "the hung set-up was not cut at the set-up timeout");
        QVERIFY(r.exitEvent.value("exitCode").isNull());
    }

    void testBwrapRefusingTheLaunchIsSetupFailedNotTheUsersExitCode() {
        QTemporaryDir dir(QStringLiteral("/tmp/runbox-stub-XXXXXX"));
        const QString stub =
            writeStub(dir.path(), "echo 'bwrap: Can'\"'\"'t mount proc on /newroot/proc: "
                                  "Operation not permitted' >&2; exit 1");
        AgentProcess agent;
        AgentOptions options;
        options.extraArgs = {QStringLiteral("--bwrap"), stub};
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString ws = agent.createWorkspace();
        const ExecOutcome r = agent.exec(ws, {{"argv", QJsonArray{"true"}}}, 30000);
        QCOMPARE(r.status(), QStringLiteral("setup_failed"));
        QVERIFY2(r.exitEvent.value("reason").toString().contains(QLatin1String("mount proc")),
                 qPrintable(r.describe()));
    }
};

QTEST_GUILESS_MAIN(TestSandboxSetupFailures)
#include "test_sandbox_setup_failures.moc"
