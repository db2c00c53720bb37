// Light workspaces under the network policy `domain-allowlist`, through the real agent run as
// root (docs/light-workspaces.md "Egress gateway", docs/contracts.md "Light workspace
// network"): a workspace gets a network namespace of its own whose only way out is the egress
// gateway at 127.0.0.1:18118. An allowlisted name served from a network namespace this test
// makes is reached through it (urllib with the proxy variables the agent set) and recorded for
// the workspace; a name off the list is refused and recorded; every other way out (TCP to host
// listeners, the agent's port, the server's address directly, UDP, MPTCP) is tried after the
// same attempt from the host reached its target (positive control), and the canary listener
// must have seen nothing from the workspace.
#include "LightAgentFixture.h"
#include "egress/EgressTestSupport.h"
#include "egress/NetnsHttpServer.h"

#include <QtTest>

#include <sys/stat.h>

using namespace lightagent;
using namespace runbox::egress::testing;

namespace {

/// Prints `<name> open` or `<name> refused <errno>` for each way out it tries. Arguments: the
/// canary port, the test server's address and port, the agent's port.
const char* const kWaysOut = R"PY(import socket, sys
canary, server, server_port, agent = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def attempt(name, fn):
    try:
        fn()
        print(name, "open")
    except OSError as e:
        print(name, "refused", e.errno)
def tcp(address, port, protocol=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, protocol)
    s.settimeout(5)
    s.connect((address, port))
    s.close()
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"x", ("127.0.0.1", canary))
    s.close()
attempt("canary", lambda: tcp("127.0.0.1", canary))
attempt("agent", lambda: tcp("127.0.0.1", agent))
attempt("server", lambda: tcp(server, server_port))
attempt("udp", udp)
attempt("mptcp", lambda: tcp("127.0.0.1", canary, 262))
attempt("gateway", lambda: tcp("127.0.0.1", 18118))
)PY";

/// urllib through the proxy variables; prints the body or "HTTPError <code> <reason header>".
QString fetchScript(const QString& url) {
    return QStringLiteral(
               "import urllib.error, urllib.request\n"
               "try:\n"
               "    print(urllib.request.urlopen('%1', timeout=20).read().decode(), "
               "end='')\n"
               "except urllib.error.HTTPError as e:\n"
               "    print('HTTPError', e.code, e.headers.get('X-Runbox-Egress-Reason'))\n")
        .arg(url);
}

/// `name → verdict` from kWaysOut's output.
QMap<QString, QString> verdicts(const QByteArray& out) {
    QMap<QString, QString> map;
    for (const QByteArray& line : out.split('\n')) {
        const QList<QByteArray> words = line.split(' ');
        if (words.size() >= 2)
            map.insert(QString::fromLatin1(words[0]), QString::fromLatin1(words[1]));
    }
    return map;
}

} // namespace

class TestLightEgress final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    CanaryHttpServer m_canary;
    NetnsHttpServer m_server;
    QTemporaryDir m_hostsDir;
    QJsonObject m_policy;
    /// A host listener on the gateway's own port, 127.0.0.1:18118: a workspace connecting there
    /// must reach its private gateway, never this (it would without its network namespace).
    QTcpServer m_hostGatewayPort;
    int m_hostGatewayConnections = 0;

    QString mirrorUrl(const QString& host, const QString& path) const {
        return QStringLiteral("http://%1:%2%3").arg(host).arg(m_server.port()).arg(path);
    }
    QStringList waysOutArgs() {
        return {QString::number(m_canary.port()), m_server.address(),
                QString::number(m_server.port()), QString::number(m_agent.url().port())};
    }
    Outcome python(const Workspace& ws, const QString& code, const QStringList& args = {}) {
        return exec(
            m_agent.client(), ws.id,
            {{"argv", QJsonArray::fromStringList(QStringList{"python3", "-c", code} + args)}});
    }
    QJsonObject networkAccessOf(const Workspace& ws) {
        return m_agent.confinementOf(ws.id).value("networkAccess").toObject();
    }
    QJsonArray decisionsOf(const QString& workspaceId) {
        const ApiResponse r =
            m_agent.client().call("GET", "/v1/workspaces/" + workspaceId.toLatin1() + "/egress");
        if (r.status != 200)
            qWarning("GET workspace egress: %d %s", r.status, r.body.constData());
        return r.json().value("decisions").toArray();
    }
    bool putPolicy(const QJsonObject& policy) {
        const ApiResponse r = m_agent.client().call("PUT", "/v1/settings/network-policy", policy);
        if (r.status != 200)
            qWarning("PUT network-policy: %d %s", r.status, r.body.constData());
        return r.status == 200;
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root; run this test as root");
        QVERIFY(m_canary.port() != 0 && m_hostsDir.isValid());
        QString whyNot;
        if (!m_server.start(m_canary.port(), &whyNot))
            QSKIP(qPrintable(QStringLiteral("no test server: %1").arg(whyNot)));
        const QString hostsPath = m_hostsDir.filePath("hosts");
        QFile hosts(hostsPath);
        QVERIFY(hosts.open(QIODevice::WriteOnly));
        hosts.write("mirror.test " + m_server.address().toLatin1() + "\nother.test " +
                    m_server.address().toLatin1() + "\nloop.test 127.0.0.1\n");
        hosts.close();
        ::chmod(QFile::encodeName(m_hostsDir.path()).constData(), 0755);
        QString error;
        QVERIFY2(m_agent.start({{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("47000")},
                                {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("500")},
                                {QStringLiteral("RUNBOX_TEST_RESOLVER_HOSTS"), hostsPath}},
                               &error),
                 qPrintable(error));
        const QJsonObject light =
            m_agent.client().call("GET", "/v1/health").json()["light"].toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(light.value("reason").toString()));
        m_policy = QJsonObject{{"mode", "domain-allowlist"},
                               {"allowedDomains", QJsonArray{"mirror.test", "loop.test"}},
                               {"allowPrivateCidrs", QJsonArray{m_server.cidr()}}};
        QVERIFY(putPolicy(m_policy));
        if (m_hostGatewayPort.listen(QHostAddress::LocalHost, 18118))
            connect(&m_hostGatewayPort, &QTcpServer::newConnection, this, [this] {
                while (QTcpSocket* socket = m_hostGatewayPort.nextPendingConnection()) {
                    ++m_hostGatewayConnections;
                    socket->deleteLater();
                }
            });
        else
            qWarning("127.0.0.1:18118 is taken on this host: the namespace check is weaker");
    }

    void cleanup() {
        QCOMPARE(m_canary.connections, 0);
        QTest::qWait(50);
        QCOMPARE(m_hostGatewayConnections, 0);
    }

    void testConfinementReportsTheGateway() {
        const Workspace ws = m_agent.createOne();
        QVERIFY2(!ws.id.isEmpty(), qPrintable(m_agent.log()));
        QVERIFY(python(ws, "pass").exitCode() == 0); // the supervisor's Hello is in
        const QJsonObject access = networkAccessOf(ws);
        QCOMPARE(access.value("policyMode").toString(), QStringLiteral("domain-allowlist"));
        QCOMPARE(access.value("udp").toBool(true), false);
        const QJsonObject gateway = access.value("egressGateway").toObject();
        QCOMPARE(gateway.value("proxy").toString(), QStringLiteral("http://127.0.0.1:18118"));
        QVERIFY(gateway.value("networkNamespace").toBool());
        QVERIFY2(access.value("summary").toString().contains("egress gateway"),
                 qPrintable(access.value("summary").toString()));
        // The proxy variables are set by the agent, and a request cannot override them.
        const Outcome env = python(ws, "import os; print(os.environ['HTTPS_PROXY'])");
        QCOMPARE(env.out.trimmed(), QByteArray("http://127.0.0.1:18118"));
        const Outcome overridden =
            exec(m_agent.client(), ws.id,
                 {{"argv", QJsonArray{"true"}}, {"env", QJsonObject{{"HTTP_PROXY", "http://x"}}}});
        QCOMPARE(overridden.httpStatus, 400);
    }

    void testAllowlistedNameIsReachedAndRecorded() {
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        const int before = m_server.connections();
        const Outcome r = python(ws, fetchScript(mirrorUrl("mirror.test", "/light")));
        QVERIFY2(r.exitCode() == 0, qPrintable(r.describe()));
        QCOMPARE(r.out, QByteArray(NetnsHttpServer::kBody));
        QTRY_VERIFY(m_server.connections() > before);
        QVERIFY(m_server.requestLines().contains("GET /light HTTP/1.1"));
        QJsonArray decisions;
        QTRY_VERIFY((decisions = decisionsOf(ws.id)).size() == 1);
        const QJsonObject d = decisions.first().toObject();
        QCOMPARE(d.value("host").toString(), QStringLiteral("mirror.test"));
        QVERIFY(d.value("allowed").toBool());
        QCOMPARE(d.value("workspaceId").toString(), ws.id);
        QCOMPARE(d.value("executionId").toString(), QString());
        QVERIFY(d.value("bytesDown").toInteger() > 0);
    }

    void testRefusedNameIsRecorded() {
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        const int before = m_server.connections();
        const Outcome r = python(ws, fetchScript(mirrorUrl("other.test", "/refused")));
        QCOMPARE(r.out.trimmed(), QByteArray("HTTPError 403 not_in_allowlist"));
        // An allowlisted name whose address is loopback is refused as well.
        const Outcome loop = python(ws, fetchScript(mirrorUrl("loop.test", "/loop")));
        QCOMPARE(loop.out.trimmed(), QByteArray("HTTPError 403 address_refused"));
        QCOMPARE(m_server.connections(), before);
        QJsonArray decisions;
        QTRY_VERIFY((decisions = decisionsOf(ws.id)).size() == 2);
        QCOMPARE(decisions[0].toObject().value("reason").toString(),
                 QStringLiteral("not_in_allowlist"));
        QCOMPARE(decisions[1].toObject().value("reason").toString(),
                 QStringLiteral("address_refused"));
    }

    void testNothingElseLeavesTheWorkspace() {
        // Positive control: from the host every way out but the gateway reaches its target.
        QProcess host;
        host.start("python3", QStringList{"-c", kWaysOut} + waysOutArgs());
        QVERIFY(host.waitForFinished(60000));
        const QMap<QString, QString> outside = verdicts(host.readAllStandardOutput());
        for (const char* name : {"canary", "agent", "server", "udp"})
            QVERIFY2(outside.value(name) == "open", name);
        QTRY_VERIFY(m_canary.connections >= 1);
        if (m_hostGatewayPort.isListening()) {
            QCOMPARE(outside.value("gateway"), QStringLiteral("open"));
            QTRY_VERIFY(m_hostGatewayConnections >= 1);
        }
        QTest::qWait(200);
        m_canary.connections = 0;
        m_hostGatewayConnections = 0;

        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        const int before = m_server.connections();
        const Outcome r = python(ws, kWaysOut, waysOutArgs());
        QVERIFY2(r.exitCode() == 0, qPrintable(r.describe()));
        const QMap<QString, QString> inside = verdicts(r.out);
        for (const char* name : {"canary", "agent", "server", "udp", "mptcp"})
            QVERIFY2(inside.value(name) == "refused", qPrintable(name + (": " + r.out)));
        QCOMPARE(inside.value("gateway"), QStringLiteral("open"));
        QTest::qWait(300);
        QCOMPARE(m_server.connections(), before);
    }

    void testEachWorkspaceIsAttributedToItself() {
        const Workspace a = m_agent.createOne();
        const Workspace b = m_agent.createOne();
        QVERIFY(!a.id.isEmpty() && !b.id.isEmpty());
        QVERIFY(python(a, fetchScript(mirrorUrl("mirror.test", "/a"))).exitCode() == 0);
        QVERIFY(python(b, fetchScript(mirrorUrl("other.test", "/b"))).exitCode() == 0);
        QTRY_COMPARE(decisionsOf(a.id).size(), 1);
        QTRY_COMPARE(decisionsOf(b.id).size(), 1);
        QVERIFY(decisionsOf(a.id).first().toObject().value("allowed").toBool());
        QVERIFY(!decisionsOf(b.id).first().toObject().value("allowed").toBool());
        // A workspace token reads its own decisions only.
        ApiClient bClient(m_agent.url(), b.token);
        QCOMPARE(bClient.call("GET", "/v1/workspaces/" + a.id.toLatin1() + "/egress").status, 404);
        QCOMPARE(bClient.call("GET", "/v1/workspaces/" + b.id.toLatin1() + "/egress").status, 200);
        // Deleted: the decisions stay readable by the operator.
        QCOMPARE(m_agent.client().call("DELETE", "/v1/workspaces/" + a.id.toLatin1()).status, 200);
        QCOMPARE(decisionsOf(a.id).size(), 1);
    }

    void testGrantsCannotBeCombinedWithTheAllowlist() {
        QCOMPARE(m_agent.createLight({{"allowedConnectPorts", QJsonArray{m_canary.port()}}}).status,
                 400);
        QCOMPARE(m_agent.createLight({{"allowUdp", true}}).status, 400);
    }

    void testTheNetworkIsFixedAtCreation() {
        const Workspace early = m_agent.createOne();
        QVERIFY(!early.id.isEmpty());
        QVERIFY(putPolicy(QJsonObject{{"mode", "none"}}));
        const Workspace late = m_agent.createOne();
        QVERIFY(!late.id.isEmpty());
        // The early workspace keeps the allowlist of its creation…
        const Outcome r = python(early, fetchScript(mirrorUrl("mirror.test", "/early")));
        QCOMPARE(r.out, QByteArray(NetnsHttpServer::kBody));
        // …the late one has no network at all.
        const QJsonObject access = networkAccessOf(late);
        QCOMPARE(access.value("policyMode").toString(), QStringLiteral("none"));
        QVERIFY(access.value("egressGateway").isNull());
        QCOMPARE(access.value("families").toArray(), QJsonArray{"unix"});
        const Outcome none = python(late, kWaysOut, waysOutArgs());
        QCOMPARE(verdicts(none.out).value("gateway"), QStringLiteral("refused"));
        QVERIFY(putPolicy(m_policy));
    }

    void cleanupTestCase() {
        if (::geteuid() == 0)
            m_agent.stop();
    }
};

QTEST_MAIN(TestLightEgress)
#include "test_light_egress.moc"
