// Science environments built from the operator's package index through the egress gateway
// (docs/environments.md "Package index"): a PEP 503 index over HTTPS on 127.0.0.1 with a
// self-signed certificate (HttpsPackageServer), its DNS name mapped there by the test-only
// resolver hosts file, pip trusting it through envIndexCaFile. A build reaches that
// host only: a package whose setup.py goes after another port or name gets nothing, while the
// index works from the same code (positive control). Refusals come after their positive control.
#include "support/AgentProcess.h"
#include "support/EnvironmentApi.h"
#include "support/HttpsPackageServer.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

const QString kIndexHost = QStringLiteral("index.runbox.test");
const QString kCanaryHost = QStringLiteral("canary.runbox.test");

/// setup.py of `attackpkg` (an sdist: pip runs it during the build). It tries the canary port
/// directly and through the bridge's proxy, the index's name on the canary's port, and the
/// index itself (the positive control), and records what happened in the module it installs.
const char* kAttackSetup = R"PY(
import json, os, socket
INDEX, CANARY = %1, %2
def direct(host, port):
    try:
        socket.create_connection((host, port), timeout=5).close()
        return "connected"
    except Exception as e:
        return "failed"
def proxied(host, port):
    try:
        s = socket.create_connection(("127.0.0.1", 18118), timeout=5)
        s.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        line = s.recv(200).split(b"\r\n")[0].decode()
        s.close()
        return line
    except Exception as e:
        return "failed"
result = {"directCanary": direct("127.0.0.1", CANARY), "directIndex": direct("127.0.0.1", INDEX),
          "dnsCanary": direct("%4", CANARY), "proxyCanary": proxied("%4", CANARY),
          "proxyIndexOtherPort": proxied("%3", CANARY), "proxyIndex": proxied("%3", INDEX)}
os.makedirs("attackpkg", exist_ok=True)
with open("attackpkg/__init__.py", "w") as f:
    f.write("RESULT = " + repr(json.dumps(result, sort_keys=True)) + "\n")
from setuptools import setup
setup(name="attackpkg", version="1.0", packages=["attackpkg"])
)PY";

bool run(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace

class TestScienceEnvironmentsIndex final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir; ///< index/ (the packages)
    HttpsPackageServer m_server{kIndexHost, kCanaryHost};
    int m_indexPort = 0;
    int m_canaryPort = 0;
    QString m_indexUrl;
    AgentProcess m_agent;
    QString m_envId;
    ApiClient& client() { return *m_agent.client(); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString serverLog() const { return m_server.requestLog(); }
    QJsonObject install(const QJsonObject& body) {
        const ApiResponse r =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install", body);
        return r.status == 202 ? r.json() : QJsonObject{{"status", r.status}};
    }
    QString runInEnvironment(const QString& code) {
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome r = m_agent.python(ws, code, {{"environmentId", m_envId}});
        return r.status() == QLatin1String("completed") ? r.stdoutText().trimmed() : r.describe();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(openToSandboxes(m_dir.path())); // the agent runs as another user under root
        QVERIFY(QDir(m_dir.path()).mkdir("index"));
        const QString index = path("index");
        QVERIFY(writeWheel(index, "pkga", "1.0", "X = 'a1'"));
        QVERIFY(
            writeWheel(index, "pkgb", "1.0", "from pkga import X as _A\nX = 'b1+' + _A", "pkga"));
        QString error;
        QVERIFY2(m_server.start(index, {}, &error), qPrintable(error));
        m_indexPort = m_server.port();
        m_canaryPort = m_server.canaryPort();
        // The sdist whose setup.py attacks, now that the ports are known.
        QVERIFY(run("/usr/bin/python3",
                    {"-c",
                     "import io, sys, tarfile\n"
                     "data = sys.argv[2].encode()\n"
                     "with tarfile.open(sys.argv[1], 'w:gz') as t:\n"
                     "    i = tarfile.TarInfo('attackpkg-1.0/setup.py'); i.size = len(data)\n"
                     "    t.addfile(i, io.BytesIO(data))\n",
                     index + "/attackpkg-1.0.tar.gz",
                     QString::fromLatin1(kAttackSetup)
                         .arg(m_indexPort)
                         .arg(m_canaryPort)
                         .arg(kIndexHost, kCanaryHost)}));
        m_indexUrl = m_server.url("/simple/");
        AgentOptions options;
        options.extraEnv = m_server.agentEnv({{"RUNBOX_ENV_INDEX_URL", m_indexUrl},
                                              {"RUNBOX_ENV_STARTERS", "false"},
                                              {"RUNBOX_STRONG_UID_FIRST", "1890500000"},
                                              {"RUNBOX_STRONG_UID_COUNT", "64"},
                                              {"RUNBOX_LIGHT_UID_FIRST", "60500"},
                                              {"RUNBOX_LIGHT_UID_COUNT", "64"}});
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        const QJsonObject health = client().call("GET", "/v1/health").json();
        QVERIFY2(health.value("egress").toObject().value("available").toBool(),
                 qPrintable(QJsonDocument(health.value("egress").toObject()).toJson()));
        QCOMPARE(health.value("scientificEnvs").toObject().value("indexUrl").toString(),
                 m_indexUrl);
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testABuildInstallsFromTheIndexOverHttps() {
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "indexed"}, {"language", "python"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        // The first revision installs nothing: offline, as every build without an index.
        const QJsonObject first =
            waitForBuildRecord(client(), created.json().value("executionId").toString());
        QCOMPARE(first.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(first.value("permissionEpoch").toObject().value("networkPolicy").toString(),
                 QStringLiteral("none"));
        const QJsonObject installed =
            install({{"packages", QJsonArray{"pkgb"}}, {"indexUrl", m_indexUrl}});
        QVERIFY2(installed.contains("executionId"), qPrintable(QJsonDocument(installed).toJson()));
        const QJsonObject build =
            waitForBuildRecord(client(), installed.value("executionId").toString());
        QCOMPARE(build.value("state").toString(), QStringLiteral("completed"));
        // The build's network was exactly the index's host and port.
        const QJsonObject epoch = build.value("permissionEpoch").toObject();
        QCOMPARE(epoch.value("networkPolicy").toString(), QStringLiteral("domain-allowlist"));
        QCOMPARE(epoch.value("networkPolicyDetail").toObject().value("allowedDomains").toArray(),
                 QJsonArray{QStringLiteral("%1:%2").arg(kIndexHost).arg(m_indexPort)});
        QVERIFY2(serverLog().contains("/simple/pkgb/") && serverLog().contains("/simple/pkga/"),
                 qPrintable(serverLog()));
        QCOMPARE(runInEnvironment("import pkgb; print(pkgb.X)"), QStringLiteral("b1+a1"));
        const QStringList snapshot = snapshotOf(client(), installed.value("revisionId").toString());
        QVERIFY2(snapshot.contains("pkga=1.0") && snapshot.contains("pkgb=1.0"),
                 qPrintable(snapshot.join(' ')));
    }

    void testBuildCodeReachesTheIndexAndNothingElse() {
        // No indexUrl: the revision's base was built from the index, so this one is too.
        const QJsonObject installed = install({{"packages", QJsonArray{"attackpkg"}}});
        QVERIFY2(installed.contains("executionId"), qPrintable(QJsonDocument(installed).toJson()));
        QCOMPARE(waitForBuildRecord(client(), installed.value("executionId").toString())
                     .value("state")
                     .toString(),
                 QStringLiteral("completed"));
        const QString out = runInEnvironment("import attackpkg; print(attackpkg.RESULT)");
        const QJsonObject result = QJsonDocument::fromJson(out.toUtf8()).object();
        QVERIFY2(!result.isEmpty(), qPrintable(out));
        // Positive control: the same code reached the index through the bridge.
        QVERIFY2(result.value("proxyIndex").toString().contains(" 200"), qPrintable(out));
        QCOMPARE(result.value("directCanary").toString(), QStringLiteral("failed"));
        QCOMPARE(result.value("directIndex").toString(), QStringLiteral("failed"));
        QCOMPARE(result.value("dnsCanary").toString(), QStringLiteral("failed"));
        QVERIFY2(!result.value("proxyCanary").toString().contains(" 200"), qPrintable(out));
        QVERIFY2(!result.value("proxyIndexOtherPort").toString().contains(" 200"), qPrintable(out));
        QVERIFY2(!serverLog().contains("canary"), qPrintable(serverLog()));
        QCOMPARE(runInEnvironment("import pkgb; print(pkgb.X)"), QStringLiteral("b1+a1"));
    }

    void testAnIndexTheOperatorDidNotConfigureIsRefused() {
        const int revisions = revisionCountOf(client(), m_envId);
        const auto executions = [this] {
            return client()
                .call("GET", "/v1/executions?limit=1000")
                .json()
                .value("executions")
                .toArray()
                .size();
        };
        const qsizetype before = executions();
        for (const QString& url :
             {QStringLiteral("https://%1:%2/simple/").arg(kCanaryHost).arg(m_indexPort),
              QStringLiteral("https://pypi.org/simple/"),
              QStringLiteral("https://u:p@%1:%2/simple/").arg(kIndexHost).arg(m_indexPort),
              QStringLiteral("http://%1:%2/simple/").arg(kIndexHost).arg(m_indexPort),
              m_indexUrl + "?x=1", m_indexUrl + "#x"}) {
            const ApiResponse r =
                client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                              QJsonObject{{"packages", QJsonArray{"pkga"}}, {"indexUrl", url}});
            QCOMPARE(r.status, 400);
            QCOMPARE(errorOf(r).value("code").toString(), QStringLiteral("invalid_index_url"));
            QVERIFY(errorOf(r).value("message").toString().startsWith("indexUrl:"));
        }
        QCOMPARE(revisionCountOf(client(), m_envId), revisions);
        QCOMPARE(executions(), before);
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentsIndex)
#include "test_science_environments_index.moc"
