// The `runbox` CLI's managed-execution and quota commands against the real agent (docs/managed.md
// "CLI"): run, run --follow, logs (exact bytes, --offset), ps, cancel, quotas [set].
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/ManagedApi.h"

#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <csignal>

using namespace runbox;
using namespace runbox::testsupport;

class TestCliManaged final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;
    QString m_ws;
    ApiClient& client() { return *m_agent.client(); }

    CliResult cli(const QStringList& args, int timeoutMs = 60000) {
        return runCli(m_agent.cliConnectionArgs() + args, timeoutMs);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY(!m_ws.isEmpty());
    }

    void testRunPrintsTheIdAndLogsWritesTheExactBytes() {
        const QString code =
            QStringLiteral("import os\n"
                           "os.write(1, b'plain text\\n')\n"
                           "os.write(2, b'\\xff\\xfe not utf-8 \\x80\\n')\n"
                           "os.write(1, '\\u00e9t\\u00e9 \\u2713\\n'.encode() + b'\\x00\\x01')\n");
        const CliResult run =
            cli({"run", "--workspace", m_ws, "--", "/usr/bin/python3", "-c", code});
        QCOMPARE(run.exitCode, 0);
        const QString id = QString::fromUtf8(run.out).trimmed();
        QVERIFY2(QRegularExpression(QStringLiteral("^[A-Za-z0-9_.:-]+$")).match(id).hasMatch(),
                 run.out.constData());
        QCOMPARE(waitUntilFinal(client(), id).value("state").toString(),
                 QStringLiteral("completed"));

        const QByteArray expectedOut = QByteArray("plain text\n") +
                                       QStringLiteral("\u00e9t\u00e9 \u2713\n").toUtf8() +
                                       QByteArray("\x00\x01", 2);
        const QByteArray expectedErr("\xff\xfe not utf-8 \x80\n");
        const CliResult logs = cli({"logs", id});
        QCOMPARE(logs.exitCode, 0);
        QCOMPARE(logs.out, expectedOut);
        QCOMPARE(logs.err, expectedErr);

        // --offset N resumes exactly: what the API's full log has after N, per stream.
        const LogCapture full = readLog(client(), id, 0, false);
        for (const int n : {1, 5, 11, 12, 20, int(full.bytes.size())}) {
            const LogCapture rest = readLog(client(), id, n, false);
            const CliResult part = cli({"logs", "--offset", QString::number(n), id});
            QCOMPARE(part.exitCode, 0);
            QCOMPARE(part.out, rest.stdoutBytes);
            QCOMPARE(part.err, rest.stderrBytes);
            QCOMPARE(qint64(part.out.size() + part.err.size()), full.bytes.size() - n);
        }
        QCOMPARE(cli({"logs", "--offset", "-3", id}).exitCode, 2);
        QCOMPARE(cli({"logs", "no-such-execution"}).exitCode, 1);
    }

    void testRunFollowStreamsTheOutputAndReturnsTheExitCode() {
        const CliResult r = cli({"run", "--follow", "--workspace", m_ws, "--kind", "shell",
                                 "--code", "echo a; sleep 0.2; echo b >&2; exit 7"});
        QCOMPARE(r.exitCode, 7);
        QCOMPARE(r.out, QByteArray("a\n"));
        QVERIFY2(r.err.contains("b\n"), r.err.constData());
        QVERIFY(r.err.contains("execution "));
    }

    void testKillingAFollowingClientDoesNotStopTheExecution() {
        QProcess follower;
        follower.start(AgentProcess::cliPath(),
                       m_agent.cliConnectionArgs()
                           << "run"
                           << "--follow"
                           << "--workspace" << m_ws << "--"
                           << "/usr/bin/bash"
                           << "-c"
                           << "for i in $(seq 1 40); do echo $i; sleep 0.02; done");
        QVERIFY(follower.waitForStarted());
        QByteArray out, err;
        QTRY_VERIFY_WITH_TIMEOUT((out += follower.readAllStandardOutput()).contains("\n") &&
                                     (err += follower.readAllStandardError()).contains("\n"),
                                 30000);
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("execution (\\S+)")).match(QString::fromUtf8(err));
        QVERIFY2(m.hasMatch(), err.constData());
        ::kill(pid_t(follower.processId()), SIGKILL);
        follower.waitForFinished();
        const QJsonObject done = waitUntilFinal(client(), m.captured(1));
        QCOMPARE(done.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(cli({"logs", m.captured(1)}).out.count('\n'), 40);
    }

    void testLogsFollowResumesExactlyAcrossAnAgentRestart() {
        const ApiResponse submitted = submitExecution(
            client(), m_ws,
            {{"argv", QJsonArray{"/usr/bin/bash", "-c",
                                 "i=0; while :; do echo \"line $i\"; i=$((i+1)); sleep 0.005; "
                                 "done"}}});
        QCOMPARE(submitted.status, 202);
        const QString id = submitted.json().value("executionId").toString();
        QProcess follower;
        follower.start(AgentProcess::cliPath(), m_agent.cliConnectionArgs() << "logs"
                                                                            << "-f" << id);
        QVERIFY(follower.waitForStarted());
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += follower.readAllStandardOutput()).count('\n') >= 20,
                                 30000);
        // The agent dies mid-stream and comes back on the same address: the follower
        // reconnects and continues from the first byte it has not seen.
        const int port = m_agent.baseUrl().port();
        m_agent.kill();
        AgentOptions sameAddress;
        sameAddress.extraArgs = {"--listen", QStringLiteral("127.0.0.1:%1").arg(port)};
        QVERIFY2(m_agent.start(sameAddress), qPrintable(m_agent.errorString()));
        QVERIFY(follower.waitForFinished(60000));
        out += follower.readAllStandardOutput();
        const QByteArray err = follower.readAllStandardError();
        QCOMPARE(follower.exitCode(), 1); // the execution ended `lost`, without an exit code
        QVERIFY2(err.contains("lost"), err.constData());
        const LogCapture full = readLog(client(), id, 0, false);
        QCOMPARE(full.exitEvent.value("status").toString(), QStringLiteral("lost"));
        QCOMPARE(out, full.stdoutBytes);
    }

    void testPsListsExecutionsAndCancelStopsOne() {
        const CliResult started = cli({"run", "--workspace", m_ws, "--", "/usr/bin/sleep", "120"});
        QCOMPARE(started.exitCode, 0);
        const QString id = QString::fromUtf8(started.out).trimmed();
        QVERIFY(waitForRecord(client(), id, [](const QJsonObject& r) {
                    return r.value("state").toString() == QLatin1String("running");
                }).value("state") == QLatin1String("running"));
        const CliResult ps = cli({"ps", "--workspace", m_ws, "--state", "running,queued"});
        QCOMPARE(ps.exitCode, 0);
        const QList<QByteArray> lines = ps.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2); // header + the running one
        QVERIFY(lines.at(0).startsWith("EXECUTION"));
        QVERIFY(lines.at(1).startsWith(id.toUtf8()));
        QVERIFY(lines.at(1).contains("running"));

        const CliResult cancelled = cli({"cancel", id});
        QCOMPARE(cancelled.exitCode, 0);
        QCOMPARE(cancelled.out.trimmed(), id.toUtf8() + " cancelled");
        const CliResult limited = cli({"ps", "--workspace", m_ws, "--limit", "1"});
        QCOMPARE(limited.out.trimmed().split('\n').size(), 2);
        QVERIFY(limited.out.contains(id.toUtf8()));
        QVERIFY(limited.out.contains("cancelled"));
        QVERIFY(limited.err.contains("--cursor")); // more pages exist
        QCOMPARE(cli({"ps", "--state", "no_such_state"}).exitCode, 1);
    }

    void testQuotasSetParsesSizesAndDurationsAndShowShowsThem() {
        const CliResult set =
            cli({"quotas", "set", "--workspace", "20GiB", "--output", "512MiB", "--upload-file",
                 "1GiB", "--upload-request", "unlimited", "--timeout", "2h", "--max-timeout", "24h",
                 "--concurrency", "8"});
        QCOMPARE(set.exitCode, 0);
        const QJsonObject q =
            client().call("GET", "/v1/settings/quotas").json().value("quotas").toObject();
        QCOMPARE(q.value("maxWorkspaceBytes").toInteger(), qint64(20) << 30);
        QCOMPARE(q.value("maxOutputBytes").toInteger(), qint64(512) << 20);
        QCOMPARE(q.value("uploadMaxFileBytes").toInteger(), qint64(1) << 30);
        QCOMPARE(q.value("uploadMaxRequestBytes").toInteger(), qint64(0));
        QCOMPARE(q.value("defaultExecutionTimeoutMs").toInteger(), qint64(7200000));
        QCOMPARE(q.value("maxExecutionTimeoutMs").toInteger(), qint64(86400000));
        QCOMPARE(q.value("maxConcurrentExecutions").toInteger(), qint64(8));

        const CliResult shown = cli({"quotas"});
        QCOMPARE(shown.exitCode, 0);
        const QString text = QString::fromUtf8(shown.out);
        const auto row = [&](const char* name) {
            return QRegularExpression(QStringLiteral("^%1\\s+(.+)$").arg(QLatin1String(name)),
                                      QRegularExpression::MultilineOption)
                .match(text)
                .captured(1)
                .trimmed();
        };
        QCOMPARE(row("maxWorkspaceBytes"), QStringLiteral("20.00 GiB"));
        QCOMPARE(row("maxOutputBytes"), QStringLiteral("0.50 GiB"));
        QCOMPARE(row("uploadMaxRequestBytes"), QStringLiteral("unlimited"));
        QCOMPARE(row("defaultExecutionTimeoutMs"), QStringLiteral("2h"));
        QCOMPARE(row("maxExecutionTimeoutMs"), QStringLiteral("24h"));
        QCOMPARE(row("maxConcurrentExecutions"), QStringLiteral("8"));
        QVERIFY(text.contains("last change: maxConcurrentExecutions"));
    }

    void testQuotasSetRefusesBadInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("decimal unit") << QStringList{"--workspace", "20GB"} << 2;
        QTest::newRow("negative") << QStringList{"--workspace", "-1GiB"} << 2;
        QTest::newRow("fraction of a byte") << QStringList{"--output", "0.3KiB"} << 2;
        QTest::newRow("bad duration") << QStringList{"--timeout", "5x"} << 2;
        QTest::newRow("no value") << QStringList{"--concurrency"} << 2;
        QTest::newRow("nothing to set") << QStringList{} << 2;
        QTest::newRow("agent refuses") << QStringList{"--concurrency", "100000000"} << 1;
        QTest::newRow("default above max") << QStringList{"--timeout", "25h"} << 1;
    }

    void testQuotasSetRefusesBadInput() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        const QByteArray before = client().call("GET", "/v1/settings/quotas").body;
        const CliResult r = cli(QStringList{"quotas", "set"} + args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY(!r.err.isEmpty());
        QCOMPARE(client().call("GET", "/v1/settings/quotas").body, before);
    }
};

QTEST_GUILESS_MAIN(TestCliManaged)
#include "test_cli_managed.moc"
