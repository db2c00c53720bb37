// runbox-egress-bridge run for real (without bwrap): its child talks TCP to 127.0.0.1, the
// bridge carries it to a unix socket; the last tests put the real gateway behind it.

#include "agent/egress/EgressGateway.h"
#include "agent/egress/NetworkPolicy.h"
#include "egress/EgressTestSupport.h"
#include "integration/egress_bridge_clients.h"

#include <QJsonArray>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::egress::testing;

namespace {

const QString kBridge = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-egress-bridge");

quint16 freePort() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

class TestEgressBridge final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_python;

    /// Runs the bridge with @p command; returns its exit code (-1 if it did not finish).
    int runBridge(const QStringList& bridgeArgs, const QStringList& command,
                  const QProcessEnvironment& env, QByteArray* out = nullptr,
                  const QString& wrapper = {}) {
        QProcess process;
        QStringList args = bridgeArgs;
        args << "--" << command;
        if (wrapper.isEmpty()) {
            process.setProgram(kBridge);
        } else {
            process.setProgram(wrapper);
            args.prepend(kBridge);
            args.prepend("-n");
        }
        process.setArguments(args);
        process.setProcessEnvironment(env);
        QSignalSpy finished(&process, &QProcess::finished);
        process.start();
        if (!process.waitForStarted(5000))
            return -1;
        if (!finished.wait(30000)) {
            process.kill();
            process.waitForFinished();
            return -1;
        }
        if (out)
            *out = process.readAllStandardOutput();
        const QByteArray err = process.readAllStandardError();
        if (!err.isEmpty())
            qInfo("bridge stderr: %s", err.constData());
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }

    static bool canUnshareNetwork() {
        if (::geteuid() != 0 || QStandardPaths::findExecutable("unshare").isEmpty())
            return false;
        return QProcess::execute("unshare", {"-n", "true"}) == 0;
    }

    NetworkPolicy mirrorPolicy() {
        Error error;
        const std::optional<NetworkPolicy> policy =
            NetworkPolicy::fromJson(QJsonObject{{"mode", "domain-allowlist"},
                                                {"allowedDomains", QJsonArray{"mirror.test"}},
                                                {"allowPrivateCidrs", QJsonArray{"127.0.0.0/8"}}},
                                    &error);
        return *policy;
    }

    static bool bwrapWorks() {
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            return false;
        return QProcess::execute("bwrap", {"--unshare-all", "--ro-bind", "/", "/", "true"}) == 0;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(kBridge), qPrintable(kBridge));
        m_python = QStandardPaths::findExecutable("python3");
        if (m_python.isEmpty())
            QSKIP("python3 is needed for the bridge's test clients");
    }

    void testBridgePipesBothWaysAndPropagatesHalfClose() {
        const QString socketPath = m_dir.filePath("echo.sock");
        HalfCloseEchoServer echo(socketPath);
        const quint16 port = freePort();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("BRIDGE_PORT", QString::number(port));
        env.insert("PAYLOAD_BYTES", QString::number(1024 * 1024));
        const int rc =
            runBridge({"--socket", socketPath, "--listen", "127.0.0.1:" + QString::number(port)},
                      {m_python, "-c", kEchoClient}, env);
        QCOMPARE(rc, 0);
        QCOMPARE(echo.connections.load(), 1);
    }

    void testExitStatusIsTheChildsStatus() {
        const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const QStringList bridge{"--socket", m_dir.filePath("none.sock"), "--listen",
                                 "127.0.0.1:" + QString::number(freePort())};
        QCOMPARE(runBridge(bridge, {"sh", "-c", "exit 0"}, env), 0);
        QCOMPARE(runBridge(bridge, {"sh", "-c", "exit 7"}, env), 7);
        QCOMPARE(runBridge(bridge, {"sh", "-c", "kill -KILL $$"}, env), 128 + SIGKILL);
        QCOMPARE(runBridge(bridge, {"/nonexistent/command"}, env), 127);
    }

    void testSigtermIsForwardedToTheChild() {
        QProcess process;
        process.setProgram(kBridge);
        process.setArguments({"--socket", m_dir.filePath("none.sock"), "--listen",
                              "127.0.0.1:" + QString::number(freePort()), "--", m_python, "-c",
                              "import sys, time; print('ready', flush=True); time.sleep(60)"});
        process.start();
        QVERIFY(process.waitForStarted(5000));
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains("ready") ||
                                     process.state() != QProcess::Running,
                                 20000);
        QCOMPARE(out, QByteArray("ready\n"));
        process.terminate(); // SIGTERM to the bridge
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + SIGTERM);
    }

    void testStatusFdSaysReadyOrWhyNot() {
        const QString statusFile = m_dir.filePath("status");
        const QString base =
            QStringLiteral("'%1' --socket x --listen 127.0.0.1:%2 --status-fd 3 -- ")
                .arg(kBridge)
                .arg(freePort());
        QCOMPARE(QProcess::execute("sh", {"-c", base + "true 3>" + statusFile}), 0);
        QFile ready(statusFile);
        QVERIFY(ready.open(QIODevice::ReadOnly));
        QCOMPARE(ready.readAll(), QByteArray("ready\n"));
        ready.close();
        QCOMPARE(QProcess::execute("sh", {"-c", base + "/nonexistent/cmd 3>" + statusFile}), 127);
        QVERIFY(ready.open(QIODevice::ReadOnly));
        QVERIFY(ready.readAll().startsWith("error: cannot execute /nonexistent/cmd"));
    }

    void testUsageErrorsExit125() {
        QCOMPARE(QProcess::execute(kBridge, {"--listen", "127.0.0.1:1", "--", "true"}), 125);
        QCOMPARE(
            QProcess::execute(kBridge, {"--socket", "x", "--listen", "nonsense", "--", "true"}),
            125);
        QCOMPARE(QProcess::execute(kBridge, {"--socket", "x"}), 125);
    }

    void testUnreachableGatewayAnswers502() {
        const quint16 port = freePort();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("BRIDGE_PORT", QString::number(port));

        QCOMPARE(runBridge({"--socket", m_dir.filePath("absent.sock"), "--listen",
                            "127.0.0.1:" + QString::number(port)},
                           {m_python, "-c", kUnreachableClient}, env),
                 0);
    }

    void testLoopbackIsBroughtUpInAFreshNetworkNamespace() {
        if (!canUnshareNetwork())
            QSKIP("needs root and unshare(1) to create a network namespace");
        QCOMPARE(QProcess::execute("unshare",
                                   {"-n", "sh", "-c", "ip link show lo | grep -q 'state DOWN'"}),
                 0); // positive control: a fresh namespace starts with lo down
        const QString socketPath = m_dir.filePath("netns.sock");
        HalfCloseEchoServer echo(socketPath);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("BRIDGE_PORT", "18118");
        env.insert("PAYLOAD_BYTES", "65536");
        const int rc = runBridge({"--socket", socketPath}, {m_python, "-c", kEchoClient}, env,
                                 nullptr, QStandardPaths::findExecutable("unshare"));
        QCOMPARE(rc, 0);
        QCOMPARE(echo.connections.load(), 1);
    }

    void testClientsReachOnlyWhatTheGatewayAllows_data() {
        QTest::addColumn<bool>("handOver");
        QTest::newRow("piped") << false;
        QTest::newRow("handed over (--hand-over, as the agent launches it)") << true;
    }
    void testClientsReachOnlyWhatTheGatewayAllows() {
        QFETCH(bool, handOver);
        CanaryHttpServer upstream;
        auto resolver = std::make_shared<FakeResolver>();
        resolver->map("mirror.test", {"127.0.0.1"});
        // Declared before the gateway: closing it at the end of the scope aborts connections
        // still open, and each reports its decision into this list.
        QList<EgressDecision> decisions;
        EgressGateway gateway(mirrorPolicy(), resolver);
        const QString socketPath = m_dir.filePath("chain.sock");
        QString error;
        QVERIFY2(gateway.listen(socketPath, "exec-chain", &error), qPrintable(error));
        connect(&gateway, &EgressGateway::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });

        const bool isolated = canUnshareNetwork();
        const quint16 bridgePort = freePort();
        const QString proxy = "http://127.0.0.1:" + QString::number(bridgePort);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
            env.insert(name, proxy);
        env.insert("NO_PROXY", "localhost,127.0.0.1");
        env.insert("UPSTREAM_PORT", QString::number(upstream.port()));
        env.insert("ISOLATED", isolated ? "1" : "0");

        QStringList bridgeArgs{"--socket", socketPath, "--listen",
                               "127.0.0.1:" + QString::number(bridgePort)};
        if (handOver)
            bridgeArgs << "--hand-over";
        QByteArray out;
        int rc = runBridge(bridgeArgs, {m_python, "-c", kChainClient}, env, &out,
                           isolated ? QStandardPaths::findExecutable("unshare") : QString());
        QCOMPARE(rc, 0);
        QVERIFY2(out.contains("urllib:hello\n"), out.constData());
        QVERIFY2(out.contains("ip: 403 ip_literal\n"), out.constData());
        if (isolated)
            QVERIFY2(out.contains("direct: refused\n"), out.constData());
        QCOMPARE(upstream.connections, 1);
        QVERIFY(upstream.requests.value(0).startsWith("GET /hello HTTP/1.1\r\n"));

        const QString curl = QStandardPaths::findExecutable("curl");
        if (!curl.isEmpty()) { // CONNECT tunnel, as for https
            const QString url = "http://mirror.test:" + QString::number(upstream.port()) + "/hello";
            rc = runBridge(bridgeArgs, {curl, "-sS", "--proxytunnel", "-x", proxy, url}, env, &out);
            QCOMPARE(rc, 0);
            QCOMPARE(out, QByteArray("hello"));
            QCOMPARE(upstream.connections, 2);
        }
        QTRY_VERIFY(decisions.size() >= 2);
        QCOMPARE(decisions.first().executionId, QStringLiteral("exec-chain"));
        bool sawAllowed = false, sawDenied = false;
        for (const EgressDecision& d : decisions) {
            sawAllowed |= d.allowed && d.host == "mirror.test" && d.bytesDown > 0;
            sawDenied |= !d.allowed && d.reason == "ip_literal";
        }
        QVERIFY(sawAllowed);
        QVERIFY(sawDenied);
    }

    void testBridgeInsideBwrapReachesOnlyTheGatewayThroughTheBoundSocket() {
        if (!bwrapWorks())
            QSKIP("bwrap cannot create namespaces here");
        CanaryHttpServer upstream;
        auto resolver = std::make_shared<FakeResolver>();
        resolver->map("mirror.test", {"127.0.0.1"});
        EgressGateway gateway(mirrorPolicy(), resolver);
        const QString socketPath = m_dir.filePath("bwrap.sock");
        QString error;
        QVERIFY2(gateway.listen(socketPath, "exec-bwrap", &error), qPrintable(error));
        const QString script = m_dir.filePath("client.py");
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kChainClient);
        file.close();
        // The launch the agent is meant to use (see agent/egress/README.md), minus seccomp.
        const QString proxy = QStringLiteral("http://127.0.0.1:18118");
        QStringList args{"--unshare-all",
                         "--die-with-parent",
                         "--new-session",
                         "--cap-drop",
                         "ALL",
                         "--ro-bind",
                         "/usr",
                         "/usr",
                         "--symlink",
                         "usr/lib",
                         "/lib",
                         "--symlink",
                         "usr/lib64",
                         "/lib64",
                         "--symlink",
                         "usr/bin",
                         "/bin",
                         "--proc",
                         "/proc",
                         "--dev",
                         "/dev",
                         "--tmpfs",
                         "/tmp",
                         "--dir",
                         "/run/runbox",
                         "--ro-bind",
                         kBridge,
                         "/run/runbox/egress-bridge",
                         "--bind",
                         socketPath,
                         "/run/runbox/egress.sock",
                         "--ro-bind",
                         script,
                         "/tmp/client.py",
                         "--clearenv"};
        for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
            args << "--setenv" << name << proxy;
        args << "--setenv"
             << "NO_PROXY"
             << "localhost,127.0.0.1"
             << "--setenv"
             << "UPSTREAM_PORT" << QString::number(upstream.port()) << "--setenv"
             << "ISOLATED"
             << "1"
             << "/run/runbox/egress-bridge"
             << "--socket"
             << "/run/runbox/egress.sock"
             << "--"
             << "/usr/bin/python3"
             << "/tmp/client.py";
        QProcess process;
        QSignalSpy finished(&process, &QProcess::finished);
        process.start("bwrap", args);
        QVERIFY(finished.wait(30000));
        const QByteArray out = process.readAllStandardOutput();
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY2(out.contains("urllib:hello\n"), out.constData());
        QVERIFY2(out.contains("ip: 403 ip_literal\n"), out.constData());
        QVERIFY2(out.contains("direct: refused\n"), out.constData());
        QCOMPARE(upstream.connections, 1);
    }
};

QTEST_GUILESS_MAIN(TestEgressBridge)
#include "test_egress_bridge.moc"
