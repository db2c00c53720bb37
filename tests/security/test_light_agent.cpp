// Light workspaces through the real agent's HTTP API (docs/light-workspaces.md), the agent running
// as root: two workspaces A and B attack each other, the agent's routes and the host (tokens,
// files, planted links, the port proxy); every check is preceded by a positive control showing
// that the same path works where it is allowed. Their lifetime (timeouts, deletes, idle eviction,
// capacity, the unavailable tier): test_light_agent_lifecycle.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include "agent/workspace/WorkspaceFs.h"
#include "shared/RequestSigner.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QTcpSocket>
#include <QtTest>

using namespace lightagent;

namespace {

// Serves HTTP on ~/.runbox/proxy/<port>.sock: "/sse" streams three events, everything else
// answers "path=… uid=… auth=…".
const char kServer[] = R"PY(
import os, socketserver, http.server, sys, time
port = sys.argv[1]
d = os.path.expanduser('~/.runbox/proxy'); os.makedirs(d, exist_ok=True)
p = d + '/' + port + '.sock'
try: os.unlink(p)
except FileNotFoundError: pass
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path.startswith('/sse'):
            self.send_response(200); self.send_header('Content-Type', 'text/event-stream')
            self.send_header('X-Test', 'sse'); self.end_headers()
            for i in range(3):
                self.wfile.write(b'data: event %d\n\n' % i); self.wfile.flush(); time.sleep(0.1)
            self.close_connection = True
            return
        body = ('path=%s uid=%d auth=%s\n' % (self.path, os.getuid(),
                self.headers.get('Authorization'))).encode()
        self.send_response(200); self.send_header('Content-Type', 'text/plain')
        self.send_header('Content-Length', str(len(body))); self.end_headers()
        self.wfile.write(body)
class S(socketserver.ThreadingMixIn, socketserver.UnixStreamServer): daemon_threads = True
S(p, H).serve_forever()
)PY";

} // namespace

class TestLightAgent final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;
    Workspace m_noNpu; ///< made by the npuDevices test

    bool startServer(const Workspace& ws, int port) {
        QJsonObject write{{"argv", QJsonArray{"/bin/sh", "-c", "cat > srv.py"}},
                          {"stdin", QString::fromLatin1(kServer)}};
        if (exec(m_agent.client(), ws.id, write).status() != QLatin1String("completed"))
            return false;
        const Outcome started =
            sh(m_agent.client(), ws.id,
               QStringLiteral("setsid python3 srv.py %1 </dev/null >/dev/null 2>&1 & "
                              "for i in $(seq 200); do [ -S ~/.runbox/proxy/%1.sock ] && exit 0; "
                              "sleep 0.05; done; exit 1")
                   .arg(port));
        return started.status() == QLatin1String("completed");
    }

    ApiResponse proxyGet(const QByteArray& token, const Workspace& ws, int port,
                         const QByteArray& rest) {
        ApiClient client(m_agent.url(), token);
        return client.callRaw(
            "GET", "/v1/workspaces/" + ws.id.toUtf8() + "/proxy/" + QByteArray::number(port) + rest,
            {}, 30000);
    }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(43000, 500, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase() {
        if (m_a.id.isEmpty())
            return; // skipped: no agent
        // The proxy checks leave servers running in A and B: they end with their workspaces.
        QCOMPARE(m_agent.client().call("DELETE", "/v1/workspaces?isolation=light").status, 200);
    }

    void testHealthReportsTheLightTierAndIdleTime() {
        const QJsonObject health = m_agent.client().call("GET", "/v1/health").json();
        const QJsonObject light = health.value("light").toObject();
        QVERIFY(light.value("available").toBool());
        QVERIFY(light.value("confinement").toObject().value("landlockAbi").toInt() >= 6);
        QVERIFY(light.value("confinement").toObject().value("hostRuntimeDirsMasked").toBool());
        QCOMPARE(light.value("workspaces").toInt(), 2);
        const QJsonObject idle = health.value("idle").toObject();
        QCOMPARE(idle.value("workspaces").toInt(), 2);
        QVERIFY(idle.value("noWorkspacesForMs").isNull()); // it holds some
    }

    void testScopedTokenReachesOnlyItsOwnWorkspace() {
        ApiClient a(m_agent.url(), m_a.token);
        // Positive control: A's token runs in A, lists A.
        const Outcome own = sh(a, m_a.id, QStringLiteral("id -u"));
        QCOMPARE(own.status(), QStringLiteral("completed"));
        QCOMPARE(own.out.trimmed(), QByteArray::number(m_a.uid));
        const QJsonArray mine =
            a.call("GET", "/v1/workspaces").json().value("workspaces").toArray();
        QCOMPARE(mine.size(), 1);
        QCOMPARE(mine.first().toObject().value("id").toString(), m_a.id);
        QCOMPARE(m_agent.client()
                     .call("GET", "/v1/workspaces")
                     .json()
                     .value("workspaces")
                     .toArray()
                     .size(),
                 2);
        QCOMPARE(m_agent.client().call("GET", "/v1/settings/quotas").status, 200);

        // A's token on B: exec, delete, proxy, executions of B.
        const Outcome other = sh(a, m_b.id, QStringLiteral("id -u"));
        QCOMPARE(other.httpStatus, 404);
        QCOMPARE(a.call("DELETE", "/v1/workspaces/" + m_b.id.toUtf8()).status, 404);
        QCOMPARE(proxyGet(m_a.token, m_b, 8080, "/").status, 404);
        const ApiResponse executions = a.call("GET", "/v1/executions?workspace=" + m_b.id.toUtf8());
        QCOMPARE(executions.status, 200);
        QCOMPARE(executions.json().value("executions").toArray().size(), 0);
        // Settings and agent-wide operations.
        QCOMPARE(a.call("GET", "/v1/settings/quotas").status, 403);
        QCOMPARE(a.call("PUT", "/v1/settings/quotas", {{"maxLightWorkspaces", 1}}).status, 403);
        QCOMPARE(a.call("POST", "/v1/workspaces", {{"isolation", "light"}}).status, 403);
        QCOMPARE(a.call("DELETE", "/v1/workspaces?isolation=light").status, 403);
        QVERIFY(a.call("GET", "/v1/workspaces").json().value("workspaces").toArray().size() == 1);
    }

    void testWorkspaceCannotReadAnotherWorkspacesFiles() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        QCOMPARE(sh(b, m_b.id, QStringLiteral("echo b-secret > secret")).status(),
                 QStringLiteral("completed"));
        // Positive control: B reads its own file, A its own home.
        QCOMPARE(sh(b, m_b.id, QStringLiteral("cat secret")).out, QByteArray("b-secret\n"));
        QCOMPARE(sh(a, m_a.id, QStringLiteral("ls -a . >/dev/null")).status(),
                 QStringLiteral("completed"));
        const Outcome read = sh(a, m_a.id, QStringLiteral("cat %1/secret").arg(m_b.home));
        QCOMPARE(read.status(), QStringLiteral("failed"));
        QVERIFY(!read.out.contains("b-secret"));
        QCOMPARE(sh(a, m_a.id, QStringLiteral("ls %1").arg(m_b.home)).status(),
                 QStringLiteral("failed"));
        QCOMPARE(sh(a, m_a.id, QStringLiteral("cat /etc/shadow")).status(),
                 QStringLiteral("failed"));
    }

    // The file routes are being written on another branch; until they land, this checks the
    // WorkspaceFs the agent registers for a light workspace (rooted at its home, the same class
    // the file routes resolve through WorkspaceRegistry::find(id)->fs).
    void testFileLayerRefusesSymlinksPlantedByTheWorkspace() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        QCOMPARE(sh(b, m_b.id, QStringLiteral("echo b-secret > secret")).status(),
                 QStringLiteral("completed"));
        const Outcome plant = sh(a, m_a.id,
                                 QStringLiteral("echo mine > own && ln -sf /etc/shadow shadow && "
                                                "ln -sf %1/secret bsecret && ln -sfn %1 bhome")
                                     .arg(m_b.home));
        QCOMPARE(plant.status(), QStringLiteral("completed"));
        auto fs = runbox::workspace::WorkspaceFs::open(m_a.home);
        QVERIFY(fs.ok());
        auto path = [](const char* p) {
            return runbox::workspace::WorkspacePath::fromUrlTail(QByteArray(p)).value();
        };
        // Positive control: A's own regular file is served.
        auto own = fs.value().openForRead(path("own"));
        QVERIFY(own.ok());
        char buffer[16] = {};
        QCOMPARE(own.value().readAt(0, buffer, sizeof(buffer)), qint64(5));
        for (const char* planted : {"shadow", "bsecret", "bhome/secret"}) {
            auto r = fs.value().openForRead(path(planted));
            QVERIFY2(!r.ok(), planted);
        }
    }

    void testProxyServesTheWorkspacesOwnSocketOnly() {
        QVERIFY(startServer(m_b, 8080));
        QVERIFY(startServer(m_a, 8081));
        // Positive controls: each workspace's own server, through its own token.
        const ApiResponse viaB = proxyGet(m_b.token, m_b, 8080, "/hello?x=1");
        QCOMPARE(viaB.status, 200);
        QCOMPARE(viaB.body,
                 QByteArray("path=/hello?x=1 uid=") + QByteArray::number(m_b.uid) + " auth=None\n");
        QCOMPARE(proxyGet(m_a.token, m_a, 8081, "/").status, 200);

        // A plants links to B's socket: as the socket, and as the whole ~/.runbox directory.
        ApiClient a(m_agent.url(), m_a.token);
        QCOMPARE(sh(a, m_a.id,
                    QStringLiteral("ln -sf %1/.runbox/proxy/8080.sock ~/.runbox/proxy/8080.sock")
                        .arg(m_b.home))
                     .status(),
                 QStringLiteral("completed"));
        const ApiResponse linked = proxyGet(m_a.token, m_a, 8080, "/");
        QCOMPARE(linked.status, 403);
        QCOMPARE(linked.errorCode(), QStringLiteral("proxy_socket_refused"));
        QVERIFY(!linked.body.contains("path="));

        // A link to a host socket (root's, listening).
        QLocalServer host;
        const QString hostSocket =
            QStringLiteral(RUNBOX_BINARY_DIR "/tests/light-agent/host-%1.sock")
                .arg(QCoreApplication::applicationPid());
        // The directory exists only when the fixture keeps light state in the build tree (not
        // when the tree is under a directory the supervisor masks, e.g. a clone in /tmp).
        QVERIFY(QDir().mkpath(QFileInfo(hostSocket).path()));
        QLocalServer::removeServer(hostSocket);
        QVERIFY2(host.listen(hostSocket), qPrintable(host.errorString()));
        QCOMPARE(
            sh(a, m_a.id, QStringLiteral("ln -sf %1 ~/.runbox/proxy/8082.sock").arg(hostSocket))
                .status(),
            QStringLiteral("completed"));
        QCOMPARE(proxyGet(m_a.token, m_a, 8082, "/").status, 403);
        QVERIFY(!host.hasPendingConnections());

        // ~/.runbox itself a link into B's home.
        QCOMPARE(sh(a, m_a.id,
                    QStringLiteral("mv ~/.runbox ~/.runbox-own && ln -s %1/.runbox ~/.runbox")
                        .arg(m_b.home))
                     .status(),
                 QStringLiteral("completed"));
        const ApiResponse viaDir = proxyGet(m_a.token, m_a, 8080, "/");
        QCOMPARE(viaDir.status, 403);
        QVERIFY(!viaDir.body.contains("path="));
        QCOMPARE(
            sh(a, m_a.id, QStringLiteral("rm ~/.runbox && mv ~/.runbox-own ~/.runbox")).status(),
            QStringLiteral("completed"));
        QCOMPARE(proxyGet(m_a.token, m_a, 8081, "/").status, 200);
    }

    void testProxyStreamsSseAndAuthenticatesEveryRequestOnAConnection() {
        QVERIFY(startServer(m_a, 8083));
        const ApiResponse sse = proxyGet(m_a.token, m_a, 8083, "/sse");
        QCOMPARE(sse.status, 200);
        QCOMPARE(sse.body, QByteArray("data: event 0\n\ndata: event 1\n\ndata: event 2\n\n"));

        // Two requests on one kept-alive connection: the signed one is served (positive
        // control), the unsigned one and a replay of the first are refused.
        QTcpSocket socket;
        socket.connectToHost(m_agent.url().host(), quint16(m_agent.url().port()));
        QVERIFY(socket.waitForConnected(10000));
        const QByteArray path = "/v1/workspaces/" + m_a.id.toUtf8() + "/proxy/8083/keep";
        QByteArray signedRequest = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (const auto& [name, value] : runbox::RequestSigner::headersFor(
                 m_a.token, "GET", path, {}, QDateTime::currentMSecsSinceEpoch()))
            signedRequest += name + ": " + value + "\r\n";
        signedRequest += "\r\n";
        auto readResponse = [&socket]() {
            QByteArray got;
            QElapsedTimer timer;
            timer.start();
            while (timer.elapsed() < 15000 && !got.contains("0\r\n\r\n") &&
                   !(got.startsWith("HTTP/1.1 401") && got.endsWith("}\n"))) {
                socket.waitForReadyRead(200);
                got += socket.readAll();
            }
            return got;
        };
        socket.write(signedRequest);
        const QByteArray first = readResponse();
        QVERIFY2(first.startsWith("HTTP/1.1 200"), first.constData());
        QVERIFY(first.contains("path=/keep"));
        socket.write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        const QByteArray second = readResponse();
        QVERIFY2(second.startsWith("HTTP/1.1 401"), second.constData());
        QVERIFY(!second.contains("path="));
        if (socket.state() == QAbstractSocket::ConnectedState) {
            socket.write(signedRequest);
            const QByteArray replay = readResponse();
            QVERIFY2(replay.isEmpty() || replay.startsWith("HTTP/1.1 401"), replay.constData());
        }
    }

    void testMalformedNpuDevicesAreRefusedBeforeTheTierHasNoNpu_data() {
        QTest::addColumn<QJsonValue>("devices");
        QTest::addColumn<QString>("code");
        // Well-formed: only then does the light tier say it has no NPU.
        QTest::newRow("well-formed") << QJsonValue(QJsonArray{0}) << "npu_unavailable";
        QTest::newRow("well-formed, duplicates")
            << QJsonValue(QJsonArray{3, 3, 1}) << "npu_unavailable";
        // Malformed, whatever the host and tier: the form is checked first.
        QTest::newRow("string") << QJsonValue("x") << "invalid_npu_devices";
        QTest::newRow("number") << QJsonValue(0) << "invalid_npu_devices";
        QTest::newRow("object") << QJsonValue(QJsonObject{{"0", 1}}) << "invalid_npu_devices";
        QJsonArray tooMany;
        for (int i = 0; i < 1025; ++i)
            tooMany.append(i % 1024);
        QTest::newRow("1025 entries") << QJsonValue(tooMany) << "invalid_npu_devices";
        QTest::newRow("numeric string") << QJsonValue(QJsonArray{"0"}) << "invalid_npu_devices";
        QTest::newRow("fraction") << QJsonValue(QJsonArray{1.5}) << "invalid_npu_devices";
        QTest::newRow("negative") << QJsonValue(QJsonArray{-1}) << "invalid_npu_devices";
        QTest::newRow("one bad among good")
            << QJsonValue(QJsonArray{0, 1, "../sda"}) << "invalid_npu_devices";
    }

    void testMalformedNpuDevicesAreRefusedBeforeTheTierHasNoNpu() {
        QFETCH(QJsonValue, devices);
        QFETCH(QString, code);
        if (m_noNpu.id.isEmpty())
            m_noNpu = m_agent.createOne();
        QVERIFY(!m_noNpu.id.isEmpty());
        const QJsonObject body{{"argv", QJsonArray{"/bin/true"}}, {"npuDevices", devices}};
        // Positive control: the same request without chips runs.
        QCOMPARE(exec(m_agent.client(), m_noNpu.id, {{"argv", QJsonArray{"/bin/true"}}}).status(),
                 QStringLiteral("completed"));
        const Outcome sync = exec(m_agent.client(), m_noNpu.id, body);
        QCOMPARE(sync.httpStatus, 400);
        QCOMPARE(sync.errorCode(), code);
        QJsonObject managed = body;
        managed.insert(QStringLiteral("workspace"), m_noNpu.id);
        const ApiResponse submitted = m_agent.client().call("POST", "/v1/executions", managed);
        QCOMPARE(submitted.status, 400);
        QCOMPARE(submitted.errorCode(), code);
    }

};

QTEST_GUILESS_MAIN(TestLightAgent)
#include "test_light_agent.moc"
