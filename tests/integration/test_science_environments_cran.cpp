// R science environments built from the operator's CRAN-like repository URL through the egress
// gateway (docs/environments.md "Package index"): a CRAN-like repository of source packages
// built here with R CMD build, served over HTTPS on 127.0.0.1 with a self-signed certificate
// (HttpsPackageServer, its /repo/ tree), its DNS name mapped there by the
// test-only resolver hosts file, R trusting it through envIndexCaFile. The agent has no local
// repository: the URL is the r-lib provisioner's only package source. A package's configure
// script reaches that host through the bridge (positive control) and nothing else. Needs the
// host's R (r-base-core, scripts/install-deps); skipped, saying so, without it.
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/CranRepository.h"
#include "support/EnvironmentApi.h"
#include "support/HttpsPackageServer.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

const QString kCranHost = QStringLiteral("cran.runbox.test");
const QString kCanaryHost = QStringLiteral("canary.runbox.test");

/// The configure script of `rpkprobe`, run by R CMD INSTALL inside the build: curl (the host's,
/// read-only in the sandbox) to the repository through the bridge (the positive control, with
/// the proxy variables the build has), to the canary port directly, by name, through the proxy
/// by name and as a CONNECT to the repository's name on the canary port. Each HTTP code (000:
/// no answer) goes into the prefix, which the test reads back from an execution.
const char* kProbeConfigure = // a plain literal: moc reads // in a raw string as a comment
    "#!/bin/sh\n"
    "code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 \"$@\"; echo; }\n"
    "{\n"
    "  code --cacert /opt/runbox-index-ca.pem \"https://%1:%2/repo/src/contrib/PACKAGES\"\n"
    "  code --noproxy '*' \"http://127.0.0.1:%3/\"\n"
    "  code --noproxy '*' \"http://%4:%3/\"\n"
    "  code \"http://%4:%3/\"\n"
    "  code -p -x http://127.0.0.1:18118 \"http://%1:%3/\"\n"
    "} > /opt/science-env/probe 2>&1\n"
    "exit 0\n";

} // namespace

class TestScienceEnvironmentsCran final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir; ///< cran/ (the repository), empty/
    HttpsPackageServer m_server{kCranHost, kCanaryHost};
    int m_port = 0;
    int m_canaryPort = 0;
    QString m_cranUrl;
    AgentProcess m_agent;
    QString m_envId;
    ApiClient& client() { return *m_agent.client(); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString serverLog() const { return m_server.requestLog(); }
    ApiResponse install(const QJsonObject& body) {
        return client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install", body);
    }
    QString shellInEnvironment(const QString& code) {
        const ExecOutcome r =
            m_agent.shell(m_agent.createWorkspace(), code, {{"environmentId", m_envId}});
        return r.status() == QLatin1String("completed") ? r.stdoutText().trimmed() : r.describe();
    }

private Q_SLOTS:
    void initTestCase() {
        if (!QFileInfo(QStringLiteral("/usr/lib/R/bin/Rscript")).isExecutable())
            QSKIP("the host has no R (install r-base-core): the r-lib provisioner cannot run");
        QVERIFY(m_dir.isValid());
        QVERIFY(openToSandboxes(m_dir.path())); // the agent runs as another user under root
        QVERIFY(QDir(m_dir.path()).mkdir("cran") && QDir(m_dir.path()).mkdir("empty"));
        QString error;
        QVERIFY2(addRSourcePackage(path("cran"), {"rpka", "1.0", "answer <- function() 42", {}, {}},
                                   &error),
                 qPrintable(error));
        QVERIFY2(addRSourcePackage(
                     path("cran"),
                     {"rpkb", "0.1", "twice <- function() 2 * rpka::answer()", "rpka", {}}, &error),
                 qPrintable(error));
        QVERIFY2(m_server.start(path("empty"), path("cran"), &error), qPrintable(error));
        m_port = m_server.port();
        m_canaryPort = m_server.canaryPort();
        // The probe package, now that the ports are known.
        QVERIFY2(addRSourcePackage(path("cran"),
                                   {"rpkprobe",
                                    "1.0",
                                    "probe <- function() 1",
                                    {},
                                    QString::fromLatin1(kProbeConfigure)
                                        .arg(kCranHost)
                                        .arg(m_port)
                                        .arg(m_canaryPort)
                                        .arg(kCanaryHost)},
                                   &error),
                 qPrintable(error));
        m_cranUrl = m_server.url("/repo");
        AgentOptions options;
        options.extraEnv = m_server.agentEnv({{"RUNBOX_ENV_CRAN_URL", m_cranUrl},
                                              {"RUNBOX_ENV_STARTERS", "false"},
                                              {"RUNBOX_STRONG_UID_FIRST", "1890600000"},
                                              {"RUNBOX_STRONG_UID_COUNT", "64"},
                                              {"RUNBOX_LIGHT_UID_FIRST", "60600"},
                                              {"RUNBOX_LIGHT_UID_COUNT", "64"}});
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        const QJsonObject health = client().call("GET", "/v1/health").json();
        QVERIFY2(health.value("egress").toObject().value("available").toBool(),
                 qPrintable(QJsonDocument(health.value("egress").toObject()).toJson()));
        const QJsonObject envs = health.value("scientificEnvs").toObject();
        QCOMPARE(envs.value("cranUrl").toString(), m_cranUrl);
        QVERIFY(envs.value("cranRepository").isNull());
    }
    void cleanupTestCase() {
        if (m_agent.client())
            QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
    }

    void testABuildInstallsFromTheCranUrlOverHttps() {
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "r from cran"}, {"language", "r"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        // The first revision installs nothing: offline.
        const QJsonObject first =
            waitForBuildRecord(client(), created.json().value("executionId").toString());
        QCOMPARE(first.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(first.value("permissionEpoch").toObject().value("networkPolicy").toString(),
                 QStringLiteral("none"));
        // No indexUrl given: the URL is the provisioner's only package source.
        const ApiResponse installed = install({{"packages", QJsonArray{"rpkb"}}});
        QCOMPARE(installed.status, 202);
        const QJsonObject build =
            waitForBuildRecord(client(), installed.json().value("executionId").toString());
        QVERIFY2(build.value("state").toString() == QLatin1String("completed"),
                 qPrintable(QJsonDocument(build).toJson()));
        const QJsonObject epoch = build.value("permissionEpoch").toObject();
        QCOMPARE(epoch.value("networkPolicy").toString(), QStringLiteral("domain-allowlist"));
        QCOMPARE(epoch.value("networkPolicyDetail").toObject().value("allowedDomains").toArray(),
                 QJsonArray{QStringLiteral("%1:%2").arg(kCranHost).arg(m_port)});
        const QString log = serverLog();
        QVERIFY2(log.contains("/repo/src/contrib/PACKAGES") &&
                     log.contains("/repo/src/contrib/rpka_1.0.tar.gz") &&
                     log.contains("/repo/src/contrib/rpkb_0.1.tar.gz"),
                 qPrintable(log));
        const QString revision = installed.json().value("revisionId").toString();
        QCOMPARE(snapshotOf(client(), revision), QStringList({"rpka=1.0", "rpkb=0.1"}));
        const ExecOutcome twice = m_agent.exec(
            m_agent.createWorkspace(),
            {{"kind", "r"}, {"code", "cat(rpkb::twice())"}, {"environmentId", m_envId}});
        QCOMPARE(twice.stdoutBytes, QByteArray("84"));
    }

    void testBuildCodeReachesTheRepositoryAndNothingElse() {
        // The base revision was built from the URL: this one is too, without indexUrl.
        const ApiResponse installed = install({{"packages", QJsonArray{"rpkprobe"}}});
        QCOMPARE(installed.status, 202);
        QCOMPARE(waitForBuildRecord(client(), installed.json().value("executionId").toString())
                     .value("state")
                     .toString(),
                 QStringLiteral("completed"));
        const QStringList codes = shellInEnvironment("cat /opt/science-env/probe").split('\n');
        qInfo("probe codes (repository, canary direct, by name, proxied, CONNECT): %s",
              qPrintable(codes.join(' ')));
        // Positive control: the configure script's curl reached the repository through the
        // bridge, trusting the operator's CA.
        QCOMPARE(codes.value(0), QStringLiteral("200"));
        QCOMPARE(codes.value(1), QStringLiteral("000")); // the canary port, directly
        QCOMPARE(codes.value(2), QStringLiteral("000")); // the canary's name: not resolved
        QVERIFY2(codes.value(3) != QLatin1String("200"), qPrintable(codes.join(' ')));
        QVERIFY2(codes.value(4) != QLatin1String("200"), qPrintable(codes.join(' ')));
        QCOMPARE(codes.size(), 5);
        QVERIFY2(!serverLog().contains("canary"), qPrintable(serverLog()));
        const ExecOutcome twice = m_agent.exec(
            m_agent.createWorkspace(),
            {{"kind", "r"}, {"code", "cat(rpkb::twice())"}, {"environmentId", m_envId}});
        QCOMPARE(twice.stdoutBytes, QByteArray("84"));
    }

    void testARepositoryTheOperatorDidNotConfigureIsRefused() {
        const int revisions = revisionCountOf(client(), m_envId);
        QVERIFY(revisions >= 3); // positive control: the count is read
        // Positive control: the operator's URL, given explicitly, is taken.
        QCOMPARE(install({{"packages", QJsonArray{"rpka"}}, {"indexUrl", m_cranUrl}}).status, 202);
        for (const QString& url :
             {QStringLiteral("https://%1:%2/repo").arg(kCanaryHost).arg(m_port),
              QStringLiteral("https://cloud.r-project.org"),
              QStringLiteral("https://u:p@%1:%2/repo").arg(kCranHost).arg(m_port),
              QStringLiteral("http://%1:%2/repo").arg(kCranHost).arg(m_port), m_cranUrl + "?x=1",
              m_cranUrl + "/"}) {
            const ApiResponse r = install({{"packages", QJsonArray{"rpka"}}, {"indexUrl", url}});
            QCOMPARE(r.status, 400);
            QCOMPARE(errorOf(r).value("code").toString(), QStringLiteral("invalid_index_url"));
            QVERIFY2(errorOf(r).value("message").toString().startsWith("indexUrl:"),
                     qPrintable(errorOf(r).value("message").toString()));
        }
        QCOMPARE(revisionCountOf(client(), m_envId), revisions + 1);
        // The CLI: `env install --index-url` passes the URL; the operator's builds, another is
        // the agent's refusal (exit 1, its message), nothing built.
        const QStringList install{"env", "install", "r from cran", "--index-url"};
        const CliResult cliOk =
            runCli(m_agent.cliConnectionArgs() + install + QStringList{m_cranUrl, "rpka"}, 180000);
        QVERIFY2(cliOk.exitCode == 0, cliOk.err.constData());
        const CliResult cliRefused = runCli(
            m_agent.cliConnectionArgs() + install +
            QStringList{QStringLiteral("https://%1:%2/repo").arg(kCanaryHost).arg(m_port), "rpka"});
        QCOMPARE(cliRefused.exitCode, 1);
        QVERIFY2(cliRefused.err.contains("RUNBOX_ENV_CRAN_URL"), cliRefused.err.constData());
        QCOMPARE(revisionCountOf(client(), m_envId), revisions + 2);
        // A python environment on the same agent has no index: the CRAN URL is not one.
        const ApiResponse python = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "py"}, {"language", "python"}});
        QCOMPARE(python.status, 201);
        const ApiResponse r = client().call(
            "POST",
            "/v1/environments/" + python.json().value("id").toString().toUtf8() + "/install",
            QJsonObject{{"packages", QJsonArray{"pkga"}}, {"indexUrl", m_cranUrl}});
        QCOMPARE(r.status, 400);
        QVERIFY2(errorOf(r).value("message").toString().contains("RUNBOX_ENV_INDEX_URL"),
                 qPrintable(errorOf(r).value("message").toString()));
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentsCran)
#include "test_science_environments_cran.moc"
