// Egress end to end (docs/contracts.md "Egress gateway"): the real agent, real bwrap sandboxes, the
// real bridge and gateway, sandboxed curl and Python clients, and a server the test runs in a
// network namespace of its own, reached by a name that the agent's test resolver
// (RUNBOX_TEST_RESOLVER_HOSTS) maps to it and admitted through allowPrivateCidrs. Everything
// refused must leave zero connections at the canary (a listener on the host's 127.0.0.1) and at
// that server.
#include "egress/EgressTestSupport.h"
#include "egress/NetnsHttpServer.h"
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::egress::testing;
using namespace runbox::testsupport;

namespace {

/// Python run in the sandbox: sends @p request raw to the bridge (127.0.0.1:18118), half-closes
/// and prints "<status> <X-Runbox-Egress-Reason>".
QString rawRequestScript(const QByteArray& request) {
    return QStringLiteral(R"PY(import base64, socket
req = base64.b64decode("%1")
s = socket.create_connection(("127.0.0.1", 18118), timeout=20)
s.sendall(req)
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
head = data.split(b"\r\n\r\n")[0].decode("latin1")
status = head.split(" ")[1] if head.startswith("HTTP/") else "none"
reason = "-"
for line in head.split("\r\n")[1:]:
    key, _, value = line.partition(":")
    if key.strip().lower() == "x-runbox-egress-reason":
        reason = value.strip()
print(status, reason)
)PY")
        .arg(QString::fromLatin1(request.toBase64()));
}

/// Python run in the sandbox: urllib through the proxy variables; prints the body, or
/// "HTTPError <code> <reason header>".
QString urllibScript(const QString& url) {
    return QStringLiteral(R"PY(import urllib.error, urllib.request
try:
    print(urllib.request.urlopen("%1", timeout=20).read().decode(), end="")
except urllib.error.HTTPError as e:
    print("HTTPError", e.code, e.headers.get("X-Runbox-Egress-Reason"))
)PY")
        .arg(url);
}

qsizetype indexOfType(const QList<QJsonObject>& events, const QString& type, qsizetype from = 0) {
    for (qsizetype i = from; i < events.size(); ++i)
        if (events.at(i).value("type").toString() == type)
            return i;
    return -1;
}

} // namespace

class TestEgressSandbox final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    CanaryHttpServer m_canary;
    NetnsHttpServer m_server;
    QTemporaryDir m_hostsDir;
    QString m_serverWhyNot;
    QString m_ws;
    QString m_revision;
    QJsonObject m_policy;

    QByteArray canaryPort() const { return QByteArray::number(m_canary.port()); }
    QString mirrorUrl(const QString& path) const {
        return QStringLiteral("http://mirror.test:%1%2").arg(m_canary.port()).arg(path);
    }
    void requireServer() {
        if (!m_server.isRunning())
            QSKIP(qPrintable(QStringLiteral("no test server: %1").arg(m_serverWhyNot)));
    }
    QJsonArray decisionsOf(const QString& executionId) {
        const ApiResponse r = m_agent.client()->call(
            "GET", "/v1/executions/" + executionId.toLatin1() + "/egress", {}, 30000);
        if (r.status != 200)
            qWarning("GET egress of %s: %d %s", qPrintable(executionId), r.status, r.body.data());
        return r.json().value("decisions").toArray();
    }
    bool putPolicy(const QJsonObject& policy, QString* revision) {
        const ApiResponse r =
            m_agent.client()->call("PUT", "/v1/settings/network-policy", policy, 30000);
        *revision = r.json().value("revision").toString();
        if (r.status != 200)
            qWarning("PUT network-policy: %d %s", r.status, r.body.data());
        return r.status == 200;
    }
    /// Polls a managed execution until it is final; returns its record.
    QJsonObject waitFinal(const QString& id, int timeoutMs = 60000) {
        QJsonObject record;
        QDeadlineTimer deadline(timeoutMs);
        static const QStringList open{"queued", "running"};
        do {
            record = m_agent.client()->call("GET", "/v1/executions/" + id.toLatin1(), {}).json();
            if (!open.contains(record.value("state").toString()))
                return record;
            QTest::qWait(50);
        } while (!deadline.hasExpired());
        return record;
    }
    QString submit(const QString& workspace, const QString& code) {
        const ApiResponse r = m_agent.client()->call(
            "POST", "/v1/executions",
            QJsonObject{{"workspace", workspace}, {"kind", "python"}, {"code", code}}, 30000);
        if (r.status != 202)
            qWarning("POST /v1/executions: %d %s", r.status, r.body.data());
        return r.json().value("executionId").toString();
    }
    QByteArray managedLog(const QString& id) {
        return m_agent.client()->call("GET", "/v1/executions/" + id.toLatin1() + "/log", {}).body;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_canary.port() != 0);
        QVERIFY(m_hostsDir.isValid());
        { // positive control: the canary counts what connects to it
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, m_canary.port());
            QVERIFY(probe.waitForConnected(5000));
            QTRY_COMPARE(m_canary.connections, 1);
            m_canary.reset();
        }
        if (!m_server.start(m_canary.port(), &m_serverWhyNot))
            qWarning("rows that need the test server are skipped: %s", qPrintable(m_serverWhyNot));
        const QString server = m_server.isRunning() ? m_server.address() : QString();
        QByteArray hosts;
        if (!server.isEmpty()) {
            hosts += "mirror.test " + server.toLatin1() + "\n";
            // First lookup: the server; every later one: loopback (a rebinding DNS answer).
            hosts += "flip.test " + server.toLatin1() + "\nflip.test 127.0.0.1\n";
        }
        hosts += "example.test 127.0.0.1\n"
                 "loop.test 127.0.0.1\n"
                 "mapped.test ::ffff:127.0.0.1\n"
                 "metadata.test 169.254.169.254\n"
                 "mixed.test 127.0.0.1 93.184.216.34\n"
                 "rebind.test 93.184.216.34 127.0.0.1\n"
                 "evilexample.test 127.0.0.1\n"
                 "example.test.evil.test 127.0.0.1\n"
                 "evil.test 127.0.0.1\n";
        const QString hostsPath = m_hostsDir.filePath("hosts");
        QFile file(hostsPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(hosts);
        file.close();
        // The agent runs as an unprivileged user: it must be able to read the file.
        ::chmod(QFile::encodeName(m_hostsDir.path()).constData(), 0755);
        ::chmod(QFile::encodeName(hostsPath).constData(), 0644);

        AgentOptions options;
        options.extraEnv.insert("RUNBOX_TEST_RESOLVER_HOSTS", hostsPath);
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        const QJsonObject egress =
            m_agent.client()->call("GET", "/v1/health", {}).json().value("egress").toObject();
        QVERIFY2(egress.value("available").toBool(),
                 qPrintable(QJsonDocument(egress).toJson() + m_agent.log()));
        m_policy =
            QJsonObject{{"mode", "domain-allowlist"},
                        {"allowedDomains",
                         QJsonArray{"mirror.test", "flip.test", "example.test", "loop.test",
                                    "mapped.test", "metadata.test", "mixed.test", "rebind.test"}},
                        {"allowPrivateCidrs",
                         QJsonArray{m_server.isRunning() ? m_server.cidr()
                                                         : QStringLiteral("10.199.255.252/30")}}};
        QVERIFY(putPolicy(m_policy, &m_revision));
        QCOMPARE(m_revision.size(), 64);
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testPythonUrllibReachesTheAllowedServer() {
        requireServer();
        const int before = m_server.connections();
        const ExecOutcome r = m_agent.python(m_ws, urllibScript(mirrorUrl("/urllib")),
                                             QJsonObject{{"executionId", "eg-urllib"}});
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray(NetnsHttpServer::kBody));
        QCOMPARE(m_server.connections(), before + 1);
        QVERIFY(m_server.requestLines().contains("GET /urllib HTTP/1.1"));
        QCOMPARE(m_canary.connections, 0);
        // The decision is in the stream, before the exit event, and in the record.
        const qsizetype egressAt = indexOfType(r.events, "egress");
        QVERIFY2(egressAt >= 0, qPrintable(r.describe()));
        QVERIFY(egressAt < indexOfType(r.events, "exit"));
        const QJsonObject event = r.events.at(egressAt);
        QCOMPARE(event.value("host").toString(), QStringLiteral("mirror.test"));
        QCOMPARE(event.value("allowed").toBool(), true);
        QCOMPARE(event.value("executionId").toString(), QStringLiteral("eg-urllib"));
        const QJsonArray decisions = decisionsOf("eg-urllib");
        QCOMPARE(decisions.size(), 1);
        QCOMPARE(decisions.at(0).toObject().value("reason").toString(), QStringLiteral("allowed"));
        QCOMPARE(decisions.at(0).toObject().value("port").toInt(), int(m_canary.port()));
        QVERIFY(decisions.at(0).toObject().value("bytesDown").toInteger() > 0);
        QVERIFY(decisions.at(0).toObject().value("bytesUp").toInteger() > 0);
    }

    void testCurlReachesTheAllowedServerWithAndWithoutATunnel() {
        requireServer();
        if (!QFileInfo(QStringLiteral("/usr/bin/curl")).isExecutable())
            QSKIP("curl is not installed");
        const int before = m_server.connections();
        ExecOutcome r =
            m_agent.exec(m_ws, QJsonObject{{"argv", QJsonArray{"curl", "-sS", "--max-time", "20",
                                                               mirrorUrl("/curl-forward")}}});
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray(NetnsHttpServer::kBody));
        r = m_agent.exec(
            m_ws, QJsonObject{{"argv", QJsonArray{"curl", "-sS", "--max-time", "20",
                                                  "--proxytunnel", mirrorUrl("/curl-tunnel")}}});
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray(NetnsHttpServer::kBody));
        QCOMPARE(m_server.connections(), before + 2);
        const QList<QByteArray> lines = m_server.requestLines();
        QVERIFY(lines.contains("GET /curl-forward HTTP/1.1"));
        QVERIFY(lines.contains("GET /curl-tunnel HTTP/1.1")); // inside the CONNECT tunnel
        QCOMPARE(m_canary.connections, 0);
    }

    void testRefusedRequestsConnectNowhere_data() {
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<QByteArray>("status");
        QTest::addColumn<QByteArray>("reason");
        const QByteArray port = canaryPort();
        const auto connectRow = [&](const char* name, const QByteArray& host, const char* status,
                                    const char* reason) {
            QTest::addRow("CONNECT %s", name)
                << "CONNECT " + host + ":" + port + " HTTP/1.1\r\n\r\n"
                << QByteArray(status) << QByteArray(reason);
            QTest::addRow("GET %s", name)
                << "GET http://" + host + ":" + port + "/ HTTP/1.1\r\n\r\n"
                << QByteArray(status) << QByteArray(reason);
        };
        for (const char* ip : {"127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::1]",
                               "[::ffff:7f00:1]", "0", "169.254.169.254"})
            connectRow(ip, ip, "403", "ip_literal");
        if (m_server.isRunning()) // an address inside allowPrivateCidrs is still an IP literal
            connectRow("the server's address", m_server.address().toLatin1(), "403", "ip_literal");
        connectRow("name to 127.0.0.1", "loop.test", "403", "address_refused");
        connectRow("name to ::ffff:127.0.0.1", "mapped.test", "403", "address_refused");
        connectRow("name to 169.254.169.254", "metadata.test", "403", "address_refused");
        connectRow("name to public and private", "mixed.test", "403", "address_refused");
        connectRow("name to public then 127.0.0.1", "rebind.test", "403", "address_refused");
        connectRow("evilexample.test", "evilexample.test", "403", "not_in_allowlist");
        connectRow("example.test.evil.test", "example.test.evil.test", "403", "not_in_allowlist");
        connectRow("EXAMPLE.TEST.", "EXAMPLE.TEST.", "400", "malformed_target");
        connectRow("percent-encoded", "exa%6dple.test", "400", "malformed_target");
        connectRow("userinfo", "example.test@evil.test", "400", "malformed_target");
        QTest::newRow("absolute URI with a disagreeing Host")
            << "GET http://mirror.test:" + port + "/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
            << QByteArray("400") << QByteArray("host_mismatch");
        QTest::newRow("CONNECT with a disagreeing Host")
            << "CONNECT mirror.test:" + port + " HTTP/1.1\r\nHost: evil.test:" + port + "\r\n\r\n"
            << QByteArray("400") << QByteArray("host_mismatch");
    }
    void testRefusedRequestsConnectNowhere() {
        QFETCH(QByteArray, request);
        QFETCH(QByteArray, status);
        QFETCH(QByteArray, reason);
        m_canary.reset();
        const int before = m_server.isRunning() ? m_server.connections() : 0;
        const QString id = QStringLiteral("eg-refused-%1")
                               .arg(QTest::currentDataTag())
                               .replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._:-]")),
                                        QStringLiteral("_"));
        const ExecOutcome r =
            m_agent.python(m_ws, rawRequestScript(request), QJsonObject{{"executionId", id}});
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutText().trimmed(), QString::fromLatin1(status + ' ' + reason));
        QCOMPARE(m_canary.connections, 0);
        if (m_server.isRunning())
            QCOMPARE(m_server.connections(), before);
        const QJsonArray decisions = decisionsOf(id);
        QCOMPARE(decisions.size(), 1);
        const QJsonObject d = decisions.at(0).toObject();
        QCOMPARE(d.value("allowed").toBool(), false);
        QCOMPARE(d.value("reason").toString().toLatin1(), reason);
        QCOMPARE(d.value("bytesUp").toInteger(), 0);
        QCOMPARE(d.value("bytesDown").toInteger(), 0);
        const qsizetype egressAt = indexOfType(r.events, "egress");
        QVERIFY(egressAt >= 0 && egressAt < indexOfType(r.events, "exit"));
    }

    void testRebindingAnswerIsNeverDialed() {
        requireServer();
        m_canary.reset();
        const int before = m_server.connections();
        // Lookup 1 answers the server, lookup 2 answers 127.0.0.1: each request resolves once
        // and dials exactly what it checked, so the second is refused and the canary stays idle.
        const QString url = QStringLiteral("http://flip.test:%1/flip").arg(m_canary.port());
        const ExecOutcome r = m_agent.python(m_ws, urllibScript(url) + urllibScript(url));
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutText(), QString::fromLatin1(NetnsHttpServer::kBody) +
                                     QStringLiteral("HTTPError 403 address_refused\n"));
        QCOMPARE(m_server.connections(), before + 1);
        QCOMPARE(m_canary.connections, 0);
    }

    void testSocketsThatBypassTheBridgeFail() {
        m_canary.reset();
        const int before = m_server.isRunning() ? m_server.connections() : 0;
        const QString target =
            m_server.isRunning() ? m_server.address() : QStringLiteral("10.199.255.254");
        const ExecOutcome r = m_agent.python(m_ws, QStringLiteral(R"PY(import errno, socket
def attempt(name, family, kind, proto=0, action=None):
    try:
        s = socket.socket(family, kind, proto)
        if action:
            action(s)
        print(name, "OK")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
attempt("bridge", socket.AF_INET, socket.SOCK_STREAM, 0,
        lambda s: s.connect(("127.0.0.1", 18118)))
attempt("tcp-direct", socket.AF_INET, socket.SOCK_STREAM, 0,
        lambda s: s.connect(("%1", %2)))
attempt("tcp-host-loopback", socket.AF_INET, socket.SOCK_STREAM, 0,
        lambda s: s.connect(("127.0.0.1", %2)))
attempt("udp-server", socket.AF_INET, socket.SOCK_DGRAM, 0,
        lambda s: s.sendto(b"x", ("%1", %2)))
attempt("udp-dns", socket.AF_INET, socket.SOCK_DGRAM, 0,
        lambda s: s.sendto(b"x", ("8.8.8.8", 53)))
attempt("raw", socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
attempt("packet", socket.AF_PACKET, socket.SOCK_RAW, 0x0300)
attempt("mptcp", socket.AF_INET, socket.SOCK_STREAM, 262)
attempt("netlink", socket.AF_NETLINK, socket.SOCK_RAW, 0)
)PY")
                                                       .arg(target)
                                                       .arg(m_canary.port()));
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QMap<QString, QString> result;
        for (const QString& line : r.stdoutText().split('\n', Qt::SkipEmptyParts))
            result.insert(line.section(' ', 0, 0), line.section(' ', 1));
        QCOMPARE(result.value("bridge"), QStringLiteral("OK")); // positive control
        QCOMPARE(result.value("tcp-direct"), QStringLiteral("ENETUNREACH"));
        // The sandbox's 127.0.0.1 is its own loopback: nothing listens there on the canary port.
        QCOMPARE(result.value("tcp-host-loopback"), QStringLiteral("ECONNREFUSED"));
        QCOMPARE(result.value("udp-server"), QStringLiteral("ENETUNREACH"));
        QCOMPARE(result.value("udp-dns"), QStringLiteral("ENETUNREACH"));
        QCOMPARE(result.value("raw"), QStringLiteral("EPERM"));
        QCOMPARE(result.value("packet"), QStringLiteral("EPERM"));
        QCOMPARE(result.value("mptcp"), QStringLiteral("EPERM"));
        QCOMPARE(result.value("netlink"), QStringLiteral("EPERM"));
        QCOMPARE(m_canary.connections, 0);
        if (m_server.isRunning())
            QCOMPARE(m_server.connections(), before);
    }

    void testManagedLogReplaysDecisionsBeforeExit() {
        const QString code =
            rawRequestScript("CONNECT 127.0.0.1:" + canaryPort() + " HTTP/1.1\r\n\r\n") +
            (m_server.isRunning() ? urllibScript(mirrorUrl("/managed")) : QString());
        const QString id = submit(m_ws, code);
        QVERIFY(!id.isEmpty());
        const QJsonObject record = waitFinal(id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(
            record.value("permissionEpoch").toObject().value("networkAccessRevision").toString(),
            m_revision);
        QList<QJsonObject> events;
        for (const QByteArray& line : managedLog(id).split('\n'))
            if (!line.trimmed().isEmpty())
                events.append(QJsonDocument::fromJson(line).object());
        QVERIFY(!events.isEmpty());
        QCOMPARE(events.last().value("type").toString(), QStringLiteral("exit"));
        const int expected = m_server.isRunning() ? 2 : 1;
        int egress = 0;
        for (const QJsonObject& e : std::as_const(events))
            egress += e.value("type").toString() == "egress" ? 1 : 0;
        QCOMPARE(egress, expected);
        const qsizetype first = indexOfType(events, "egress");
        QCOMPARE(events.at(first).value("reason").toString(), QStringLiteral("ip_literal"));
        QCOMPARE(decisionsOf(id).size(), expected);
        // Another workspace's token does not see them.
        QByteArray otherToken;
        QVERIFY(!m_agent.createWorkspace(&otherToken).isEmpty());
        ApiClient other(m_agent.baseUrl(), otherToken);
        QCOMPARE(other.call("GET", "/v1/executions/" + id.toLatin1() + "/egress", {}).status, 404);
    }

    // Last: it changes the policy.
    void testPolicyChangeAppliesOnlyToExecutionsCreatedAfterIt() {
        const QString ws = m_agent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        // m1 runs and holds the workspace until the test creates /workspace/go; m2 waits behind it.
        const QString m1 = submit(ws, "import os, time\n"
                                      "while not os.path.exists('/workspace/go'):\n"
                                      "    time.sleep(0.02)\n");
        const QString code = urllibScript(mirrorUrl("/after-change"));
        const QString m2 = submit(ws, code);
        QVERIFY(!m1.isEmpty() && !m2.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(m_agent.client()
                                      ->call("GET", "/v1/executions/" + m1.toLatin1(), {})
                                      .json()
                                      .value("state")
                                      .toString(),
                                  QStringLiteral("running"), 30000);
        QString changed;
        QVERIFY(putPolicy(QJsonObject{{"mode", "domain-allowlist"},
                                      {"allowedDomains", QJsonArray{"other.test"}},
                                      {"allowPrivateCidrs", m_policy.value("allowPrivateCidrs")}},
                          &changed));
        QVERIFY(changed != m_revision);
        const QString m3 = submit(ws, code);
        QFile go(m_agent.workspaceDir(ws) + QStringLiteral("/go"));
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        const QJsonObject r1 = waitFinal(m1), r2 = waitFinal(m2), r3 = waitFinal(m3);
        const auto revisionOf = [](const QJsonObject& record) {
            return record.value("permissionEpoch")
                .toObject()
                .value("networkAccessRevision")
                .toString();
        };
        QCOMPARE(revisionOf(r1), m_revision);
        QCOMPARE(revisionOf(r2), m_revision); // queued while the policy changed
        QCOMPARE(revisionOf(r3), changed);
        if (m_server.isRunning()) {
            // m2 still runs under the old allowlist; m3 under the new one.
            QVERIFY2(managedLog(m2).contains("netns-hello"), managedLog(m2).constData());
            QVERIFY2(managedLog(m3).contains("HTTPError 403 not_in_allowlist"),
                     managedLog(m3).constData());
        }
        QString restored;
        QVERIFY(putPolicy(m_policy, &restored));
        QCOMPARE(restored, m_revision); // the revision is derived from the policy's content
    }
};

QTEST_GUILESS_MAIN(TestEgressSandbox)
#include "test_egress_sandbox.moc"
