// ExecutionRunner with a wrapping helper that reports on a setup status fd, read by the egress
// bridge's reader (EgressStage::readBridgeStatus, for its --status-fd): a helper that says
// "error: …" ends the execution setup_failed, never with the user's exit code; after "ready"
// every exit code (125 included) is the command's; a channel nobody reads fails closed.
// The launch runs /bin/sh in place of bwrap, writing what bwrap (fd 4) and the helper (fd 5)
// would write.
#include "agent/egress/EgressStage.h"
#include "agent/execution/strong/ExecutionRunner.h"
#include "agent/execution/ExecutionStream.h"

#include <QDeadlineTimer>
#include <QTest>

#include <optional>

using namespace runbox::execution;
using runbox::sandbox::SandboxLaunch;

class TestExecutionRunnerSetupStatus final : public QObject {
    Q_OBJECT

    /// Runs @p script as the "sandbox" with a setup status fd 5 (or none) and returns the result.
    static ExecutionResult run(const QString& script, bool withStatusFd = true,
                               bool withReader = true) {
        SandboxLaunch launch;
        launch.program = QStringLiteral("/bin/sh");
        launch.arguments = {QStringLiteral("-c"), script};
        launch.environment = {{QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin")}};
        launch.jsonStatusFd = 4;
        launch.setupStatusFd = withStatusFd ? 5 : -1;
        if (withReader)
            launch.readSetupStatus = &runbox::egress::EgressStage::readBridgeStatus;
        ExecutionRunner::Options options;
        options.executionId = QStringLiteral("x1");
        options.setupTimeoutMs = 20000;
        bool released = false;
        options.beforeExitEvent = [&released] { released = true; };
        ExecutionRunner runner(launch, options);
        ExecutionStream stream(&runner, {options.executionId, {}, 0, {}});
        connect(&stream, &ExecutionStream::finished, &runner, [&](const ExecutionResult&) {
            if (!released)
                qWarning("exit event before beforeExitEvent");
        });
        std::optional<ExecutionResult> result;
        connect(&runner, &ExecutionRunner::finished, &runner,
                [&result](const ExecutionResult& r) { result = r; });
        stream.start();
        QDeadlineTimer deadline(20000);
        while (!result && !deadline.hasExpired())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        return result.value_or(ExecutionResult{});
    }

private Q_SLOTS:
    void testReadyThenExitCodeIsTheCommands() {
        const ExecutionResult r =
            run(QStringLiteral("echo '{\"child-pid\": 1}' >&4; echo ready >&5; exec 5>&-;"
                               "echo '{\"exit-code\": 125}' >&4; exit 125"));
        QCOMPARE(r.status, QStringLiteral("failed"));
        QCOMPARE(r.exitCode, 125);
    }

    void testReadyThenZeroCompletes() {
        const ExecutionResult r =
            run(QStringLiteral("echo ready >&5; echo '{\"exit-code\": 0}' >&4; exit 0"));
        QCOMPARE(r.status, QStringLiteral("completed"));
    }

    void testHelperErrorIsSetupFailed() {
        const ExecutionResult r =
            run(QStringLiteral("echo 'error: cannot listen on 127.0.0.1:18118: Address in use' "
                               ">&5; echo '{\"exit-code\": 125}' >&4; exit 125"));
        QCOMPARE(r.status, QStringLiteral("setup_failed"));
        QCOMPARE(r.exitCode, -1);
        QVERIFY2(r.reason.contains("cannot listen on 127.0.0.1:18118"), qPrintable(r.reason));
    }

    void testNoReadyLineIsSetupFailed() {
        const ExecutionResult r = run(QStringLiteral("echo '{\"exit-code\": 3}' >&4; exit 3"));
        QCOMPARE(r.status, QStringLiteral("setup_failed"));
        QVERIFY2(r.reason.contains("did not report ready"), qPrintable(r.reason));
    }

    void testCommandThatCannotBeExecutedIsTheCommandsFailure() {
        const ExecutionResult r =
            run(QStringLiteral("echo 'error: cannot execute /nope: No such file or directory' >&5;"
                               "echo '{\"exit-code\": 127}' >&4; exit 127"));
        QCOMPARE(r.status, QStringLiteral("failed"));
        QCOMPARE(r.exitCode, 127);
        QVERIFY(r.reason.contains("/nope"));
    }

    void testAChannelWithoutAReaderIsSetupFailed() {
        const ExecutionResult r = run(
            QStringLiteral("echo ready >&5; echo '{\"exit-code\": 0}' >&4; exit 0"), true, false);
        QCOMPARE(r.status, QStringLiteral("setup_failed"));
    }

    void testWithoutAStatusFdNothingChanges() {
        const ExecutionResult r =
            run(QStringLiteral("echo '{\"exit-code\": 125}' >&4; exit 125"), false);
        QCOMPARE(r.status, QStringLiteral("failed"));
        QCOMPARE(r.exitCode, 125);
    }
};

QTEST_GUILESS_MAIN(TestExecutionRunnerSetupStatus)
#include "test_execution_runner_setup_status.moc"
