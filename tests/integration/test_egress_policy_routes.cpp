// The network policy setting through the real agent: GET/PUT /v1/settings/network-policy, its
// validation and access rule, /v1/health's egress section, and what each mode puts into a
// sandbox (nothing for none; the bridge, the socket and the proxy variables for an allowlist).
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QJsonObject allowlist(const QJsonArray& domains) {
    return {{"mode", "domain-allowlist"}, {"allowedDomains", domains}};
}

const char* kInspectScript = R"PY(import os, socket, stat
for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy"):
    print(name, os.environ.get(name))
try:
    print("egress.sock", stat.S_ISSOCK(os.stat("/run/runbox/egress.sock").st_mode))
except OSError as e:
    print("egress.sock", e.strerror)
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    print("inet socket OK")
except OSError as e:
    print("inet socket", e.strerror)
)PY";

} // namespace

class TestEgressPolicyRoutes final : public QObject {
    Q_OBJECT
    AgentProcess m_agent;
    QString m_ws;
    QByteArray m_wsToken;

    ApiResponse put(const QJsonObject& body) {
        return m_agent.client()->call("PUT", "/v1/settings/network-policy", body, 30000);
    }
    QJsonObject get() {
        return m_agent.client()->call("GET", "/v1/settings/network-policy", {}).json();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace(&m_wsToken);
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }
    void init() { QCOMPARE(put({{"mode", "none"}}).status, 200); }

    void testHealthSaysEgressIsAvailable() {
        const QJsonObject egress =
            m_agent.client()->call("GET", "/v1/health", {}).json().value("egress").toObject();
        QVERIFY2(egress.value("available").toBool(), QJsonDocument(egress).toJson().constData());
        QVERIFY(egress.value("reason").isNull());
        QCOMPARE(egress.value("modes").toArray(), (QJsonArray{"none", "domain-allowlist"}));
        QCOMPARE(egress.value("mode").toString(), QStringLiteral("none"));
        QCOMPARE(egress.value("revision").toString(), QStringLiteral("none"));
    }

    void testDefaultPolicyIsNone() {
        QCOMPARE(get(), (QJsonObject{{"mode", "none"},
                                     {"allowedDomains", QJsonArray{}},
                                     {"allowPrivateCidrs", QJsonArray{}},
                                     {"revision", "none"}}));
    }

    void testPutNormalisesAndDerivesTheRevision() {
        const ApiResponse r =
            put({{"mode", "domain-allowlist"},
                 {"allowedDomains", QJsonArray{" PyPI.org. ", "*.pythonhosted.org", "pypi.org"}},
                 {"allowPrivateCidrs", QJsonArray{"10.1.2.3/24"}},
                 {"revision", "ignored"}});
        QCOMPARE(r.status, 200);
        const QJsonObject policy = r.json();
        QCOMPARE(policy.value("allowedDomains").toArray(),
                 (QJsonArray{"*.pythonhosted.org", "pypi.org"}));
        QCOMPARE(policy.value("allowPrivateCidrs").toArray(), QJsonArray{"10.1.2.0/24"});
        const QString revision = policy.value("revision").toString();
        QCOMPARE(revision.size(), 64);
        QCOMPARE(get(), policy);
        // The same content in another spelling is the same revision.
        QCOMPARE(put({{"mode", "domain-allowlist"},
                      {"allowedDomains", QJsonArray{"pypi.org", "*.PYTHONHOSTED.org"}},
                      {"allowPrivateCidrs", QJsonArray{"10.1.2.0/24"}}})
                     .json()
                     .value("revision")
                     .toString(),
                 revision);
        QCOMPARE(m_agent.client()
                     ->call("GET", "/v1/health", {})
                     .json()
                     .value("egress")
                     .toObject()
                     .value("revision")
                     .toString(),
                 revision);
    }

    void testInvalidPolicyIsRefusedNamingTheEntry_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<QString>("named");
        QTest::newRow("IP literal") << allowlist({"pypi.org", "10.0.0.1"}) << "10.0.0.1";
        QTest::newRow("single label") << allowlist({"localhost"}) << "localhost";
        QTest::newRow("slash") << allowlist({"pypi.org/simple"}) << "pypi.org/simple";
        QTest::newRow("userinfo") << allowlist({"user@pypi.org"}) << "user@pypi.org";
        QTest::newRow("bad port") << allowlist({"pypi.org:70000"}) << "pypi.org:70000";
        QTest::newRow("whitespace inside") << allowlist({"py pi.org"}) << "py pi.org";
        QTest::newRow("no entries") << allowlist({}) << "allowedDomains";
        QTest::newRow("bad cidr") << QJsonObject{{"mode", "domain-allowlist"},
                                                 {"allowedDomains", QJsonArray{"pypi.org"}},
                                                 {"allowPrivateCidrs", QJsonArray{"10.0.0.0/33"}}}
                                  << "10.0.0.0/33";
        QTest::newRow("unknown mode") << QJsonObject{{"mode", "open"}} << "mode";
        QTest::newRow("unknown field")
            << QJsonObject{{"mode", "none"}, {"allowAll", true}} << "allowAll";
    }
    void testInvalidPolicyIsRefusedNamingTheEntry() {
        QFETCH(QJsonObject, body);
        QFETCH(QString, named);
        const QJsonObject before = get();
        const ApiResponse r = put(body);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_network_policy"));
        QVERIFY2(r.errorMessage().contains(named), qPrintable(r.errorMessage()));
        QCOMPARE(get(), before);
    }

    void testNotJsonIsA400() {
        const ApiResponse r =
            m_agent.client()->callRaw("PUT", "/v1/settings/network-policy", "{not json", 30000);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_json"));
    }

    void testWorkspaceTokenCannotReadOrChangeThePolicy() {
        ApiClient scoped(m_agent.baseUrl(), m_wsToken);
        QCOMPARE(scoped.call("GET", "/v1/settings/network-policy", {}).status, 403);
        const ApiResponse r =
            scoped.call("PUT", "/v1/settings/network-policy", allowlist({"evil.org"}));
        QCOMPARE(r.status, 403);
        QCOMPARE(get().value("mode").toString(), QStringLiteral("none"));
    }

    void testModeNoneSandboxHasNoProxyNoSocketAndNoSockets() {
        const ExecOutcome r = m_agent.python(m_ws, QString::fromLatin1(kInspectScript));
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutText(), QStringLiteral("HTTP_PROXY None\nHTTPS_PROXY None\n"
                                                "http_proxy None\nhttps_proxy None\n"
                                                "NO_PROXY None\nno_proxy None\n"
                                                "egress.sock No such file or directory\n"
                                                "inet socket Operation not permitted\n"));
    }

    void testAllowlistSandboxGetsTheBridgeSocketAndProxyVariables() {
        QCOMPARE(put(allowlist({"pypi.org"})).status, 200);
        const ExecOutcome r = m_agent.python(m_ws, QString::fromLatin1(kInspectScript));
        QVERIFY2(r.status() == "completed", qPrintable(r.describe()));
        QCOMPARE(r.stdoutText(), QStringLiteral("HTTP_PROXY http://127.0.0.1:18118\n"
                                                "HTTPS_PROXY http://127.0.0.1:18118\n"
                                                "http_proxy http://127.0.0.1:18118\n"
                                                "https_proxy http://127.0.0.1:18118\n"
                                                "NO_PROXY localhost,127.0.0.1\n"
                                                "no_proxy localhost,127.0.0.1\n"
                                                "egress.sock True\n"
                                                "inet socket OK\n"));
    }

    void testRequestCannotOverrideTheProxyVariables() {
        QCOMPARE(put(allowlist({"pypi.org"})).status, 200);
        const ExecOutcome r =
            m_agent.python(m_ws, QStringLiteral("print(1)"),
                           {{"env", QJsonObject{{"HTTPS_PROXY", "http://evil:1"}}}});
        QCOMPARE(r.httpStatus, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_env"));
    }

    void testUserExitCodesPassThroughTheBridge() {
        QCOMPARE(put(allowlist({"pypi.org"})).status, 200);
        ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("exit 125"));
        QCOMPARE(r.status(), QStringLiteral("failed")); // the command's 125, not a set-up failure
        QCOMPARE(r.exitCode(), 125);
        r = m_agent.exec(m_ws, QJsonObject{{"argv", QJsonArray{"/nonexistent/command"}}});
        QCOMPARE(r.status(), QStringLiteral("failed"));
        QCOMPARE(r.exitCode(), 127);
        QVERIFY2(r.exitEvent.value("reason").toString().contains("/nonexistent/command"),
                 qPrintable(r.describe()));
    }

    void testEgressOfAnUnknownExecutionIs404() {
        const ApiResponse r = m_agent.client()->call("GET", "/v1/executions/nope/egress", {});
        QCOMPARE(r.status, 404);
        QCOMPARE(r.errorCode(), QStringLiteral("execution_not_found"));
    }
};

QTEST_GUILESS_MAIN(TestEgressPolicyRoutes)
#include "test_egress_policy_routes.moc"
