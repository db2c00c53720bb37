// conda environments from the operator's remote channels through the egress gateway
// (docs/environments.md "Package index"): a channel served over HTTPS on 127.0.0.1 with a
// self-signed certificate (HttpsPackageServer, its /repo/ tree), its DNS name
// mapped there by the test-only resolver hosts file, beside a local channel. micromamba is a test
// double (a shell script, hash-checked like the real binary) that records its argv, fetches each
// https channel's noarch/repodata.json with curl the way micromamba's libcurl would (through
// `https_proxy`, trusting MAMBA_SSL_VERIFY), then tries the canary port directly and through the
// proxy, and writes conda-meta records. A build reaches the channels it uses and nothing else;
// a build from the local channel only has no network at all.
#include "support/AgentProcess.h"
#include "support/EnvironmentApi.h"
#include "support/HttpsPackageServer.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

const QString kChannelHost = QStringLiteral("conda.runbox.test");
const QString kCanaryHost = QStringLiteral("canary.runbox.test");

/// The double of `micromamba create … -c CHANNEL… --prefix P SPEC…`. %1: the channel host, %2:
/// the canary port, %3: the canary's name.
const char* kDouble = // a plain literal: moc reads // in a raw string as a comment
    "#!/bin/sh\n"
    "set -u\n"
    "[ \"$1\" = create ] || { echo \"double: unexpected $1\" >&2; exit 4; }\n"
    "prefix=\"\"\n"
    "prev=\"\"\n"
    "for a in \"$@\"; do\n"
    "  if [ \"$prev\" = \"--prefix\" ]; then prefix=\"$a\"; fi\n"
    "  prev=\"$a\"\n"
    "done\n"
    "[ -n \"$prefix\" ] || { echo \"double: no --prefix\" >&2; exit 2; }\n"
    "mkdir -p \"$prefix/conda-meta\"\n"
    "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$prefix/argv.txt\"\n"
    "code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 \"$@\"; echo; }\n"
    "prev=\"\"\n"
    ": > \"$prefix/fetch.txt\"\n"
    "for a in \"$@\"; do\n"
    "  if [ \"$prev\" = \"-c\" ]; then\n"
    "    case \"$a\" in\n"
    "    https://*) code ${MAMBA_SSL_VERIFY:+--cacert \"$MAMBA_SSL_VERIFY\"} "
    "\"$a/noarch/repodata.json\" \\\n"
    "                 >> \"$prefix/fetch.txt\" ;;\n"
    "    esac\n"
    "  fi\n"
    "  prev=\"$a\"\n"
    "done\n"
    "{\n"
    "  code --noproxy '*' \"http://127.0.0.1:%2/\"\n"
    "  code \"http://%3:%2/\"\n"
    "  code -p -x http://127.0.0.1:18118 \"http://%1:%2/\"\n"
    "} > \"$prefix/probe.txt\"\n"
    "skip=0\n"
    "shift\n"
    "for a in \"$@\"; do\n"
    "  if [ \"$skip\" = 1 ]; then skip=0; continue; fi\n"
    "  case \"$a\" in\n"
    "  -c|--prefix) skip=1 ;;\n"
    "  -*) ;;\n"
    "  *) printf '{\"name\":\"%s\",\"version\":\"1.0\",\"channel\":\"test\"}\\n' \"$a\" \\\n"
    "       > \"$prefix/conda-meta/$a-1.0-0.json\" ;;\n"
    "  esac\n"
    "done\n";

bool writeFile(const QString& path, const QByteArray& bytes, int mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

} // namespace

class TestScienceEnvironmentsCondaRemote final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir; ///< tree/channel (remote), local/ (local channel), the double
    HttpsPackageServer m_server{kChannelHost, kCanaryHost};
    int m_port = 0;
    int m_canaryPort = 0;
    QString m_channelUrl;
    QString m_localChannel;
    AgentProcess m_agent;
    QString m_envId;
    ApiClient& client() { return *m_agent.client(); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString serverLog() const { return m_server.requestLog(); }
    /// Installs @p packages from @p channels; the finished build's record.
    QJsonObject install(const QStringList& packages, const QStringList& channels) {
        const ApiResponse r =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray::fromStringList(packages)},
                                      {"channels", QJsonArray::fromStringList(channels)}});
        if (r.status != 202)
            return QJsonObject{{"status", r.status}};
        return waitForBuildRecord(client(), r.json().value("executionId").toString());
    }
    QString inEnvironment(const QString& code) {
        const ExecOutcome r =
            m_agent.shell(m_agent.createWorkspace(), code, {{"environmentId", m_envId}});
        return r.status() == QLatin1String("completed") ? r.stdoutText().trimmed() : r.describe();
    }
    static QString networkOf(const QJsonObject& build) {
        return build.value("permissionEpoch").toObject().value("networkPolicy").toString();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(openToSandboxes(m_dir.path())); // the agent runs as another user under root
        QVERIFY(QDir().mkpath(path("tree/channel/noarch")) && QDir().mkpath(path("empty")));
        QVERIFY(writeFile(path("tree/channel/noarch/repodata.json"), "{\"packages\": {}}", 0644));
        m_localChannel = path("local");
        QVERIFY(QDir().mkpath(m_localChannel + "/noarch"));
        QVERIFY(writeFile(m_localChannel + "/noarch/repodata.json", "{}", 0644));
        QString error;
        QVERIFY2(m_server.start(path("empty"), path("tree"), &error), qPrintable(error));
        m_port = m_server.port();
        m_canaryPort = m_server.canaryPort();
        const QByteArray micromamba = QString::fromLatin1(kDouble)
                                          .arg(kChannelHost)
                                          .arg(m_canaryPort)
                                          .arg(kCanaryHost)
                                          .toLatin1();
        QVERIFY(writeFile(path("micromamba"), micromamba, 0755));
        m_channelUrl = m_server.url("/repo/channel");
        AgentOptions options;
        options.extraEnv = m_server.agentEnv(
            {{"RUNBOX_ENV_MICROMAMBA", path("micromamba")},
             {"RUNBOX_ENV_MICROMAMBA_SHA256",
              QCryptographicHash::hash(micromamba, QCryptographicHash::Sha256).toHex()},
             {"RUNBOX_ENV_CONDA_CHANNELS", m_localChannel},
             {"RUNBOX_ENV_CONDA_CHANNEL_URLS", m_channelUrl},
             {"RUNBOX_ENV_STARTERS", "false"},
             {"RUNBOX_STRONG_UID_FIRST", "1890700000"},
             {"RUNBOX_STRONG_UID_COUNT", "64"},
             {"RUNBOX_LIGHT_UID_FIRST", "60700"},
             {"RUNBOX_LIGHT_UID_COUNT", "64"}});
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        const QJsonObject envs =
            client().call("GET", "/v1/health").json().value("scientificEnvs").toObject();
        QCOMPARE(envs.value("condaChannelUrls").toArray(), QJsonArray{m_channelUrl});
        QVERIFY2(envs.value("provisioners")
                     .toObject()
                     .value("micromamba")
                     .toObject()
                     .value("available")
                     .toBool(),
                 qPrintable(QJsonDocument(envs).toJson()));
    }
    void cleanupTestCase() {
        if (m_agent.client())
            QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
    }

    void testTheFirstRevisionUsesEveryChannelThroughTheGateway() {
        const ApiResponse created = client().call("POST", "/v1/environments",
                                                  QJsonObject{{"name", "conda remote"},
                                                              {"language", "python"},
                                                              {"provisioner", "micromamba"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        const QJsonObject build =
            waitForBuildRecord(client(), created.json().value("executionId").toString());
        QVERIFY2(build.value("state").toString() == QLatin1String("completed"),
                 qPrintable(QJsonDocument(build).toJson()));
        QCOMPARE(networkOf(build), QStringLiteral("domain-allowlist"));
        QCOMPARE(build.value("permissionEpoch")
                     .toObject()
                     .value("networkPolicyDetail")
                     .toObject()
                     .value("allowedDomains")
                     .toArray(),
                 QJsonArray{QStringLiteral("%1:%2").arg(kChannelHost).arg(m_port)});
        QCOMPARE(inEnvironment("sed -n 5,8p /opt/science-env/argv.txt").split('\n'),
                 QStringList({"-c", "file:///opt/conda-channels/0", "-c", m_channelUrl}));
        // The channel answered through the bridge, trusting the operator's CA.
        QCOMPARE(inEnvironment("cat /opt/science-env/fetch.txt"), QStringLiteral("200"));
        QVERIFY2(serverLog().contains("/repo/channel/noarch/repodata.json"),
                 qPrintable(serverLog()));
    }

    void testBuildCodeReachesTheChannelHostAndNothingElse() {
        const QJsonObject build = install({"numpy"}, {m_channelUrl});
        QCOMPARE(build.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(inEnvironment("cat /opt/science-env/fetch.txt"), QStringLiteral("200"));
        const QStringList probes = inEnvironment("cat /opt/science-env/probe.txt").split('\n');
        qInfo("probe codes (canary direct, proxied, CONNECT): %s", qPrintable(probes.join(' ')));
        QCOMPARE(probes.size(), 3);
        QCOMPARE(probes.value(0), QStringLiteral("000")); // the canary port, directly
        QVERIFY2(probes.value(1) != QLatin1String("200"), qPrintable(probes.join(' ')));
        QVERIFY2(probes.value(2) != QLatin1String("200"), qPrintable(probes.join(' ')));
        QVERIFY2(!serverLog().contains("canary"), qPrintable(serverLog()));
        QVERIFY(inEnvironment("cat /opt/science-env/argv.txt").contains(m_channelUrl));
        QVERIFY(!inEnvironment("cat /opt/science-env/argv.txt").contains("conda-channels"));
    }

    void testABuildFromTheLocalChannelOnlyHasNoNetwork() {
        const qsizetype before = serverLog().size();
        const QJsonObject build = install({"scipy"}, {m_localChannel});
        QCOMPARE(build.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(networkOf(build), QStringLiteral("none"));
        QCOMPARE(inEnvironment("cat /opt/science-env/fetch.txt"), QString());
        // Without the gateway nothing answers, the probes included.
        QCOMPARE(inEnvironment("cat /opt/science-env/probe.txt").split('\n'),
                 QStringList({"000", "000", "000"}));
        QCOMPARE(serverLog().size(), before);
    }

    void testAChannelTheOperatorDidNotConfigureIsRefused() {
        const int revisions = revisionCountOf(client(), m_envId);
        QVERIFY(revisions >= 3); // positive control: the count is read
        for (const QString& channel :
             {QStringLiteral("https://%1:%2/repo/channel").arg(kCanaryHost).arg(m_port),
              m_channelUrl + "/", QStringLiteral("https://conda.anaconda.org/conda-forge")}) {
            const QJsonObject refused = install({"numpy"}, {channel});
            QCOMPARE(refused.value("status").toInt(), 400);
        }
        QCOMPARE(revisionCountOf(client(), m_envId), revisions);
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentsCondaRemote)
#include "test_science_environments_conda_remote.moc"
