// conda environments through the micromamba provisioner (docs/environments.md "micromamba"),
// with no network: a test double of micromamba (a shell script that records its argv in the
// prefix, checks it was handed an empty prefix and the channel, and writes conda-meta records) run
// by the real agent's provisioning execution; its SHA-256 check refusing a modified binary; and a
// real micromamba where one and a local channel are found (RUNBOX_TEST_MICROMAMBA,
// RUNBOX_TEST_CONDA_CHANNEL), saying whether it ran.
#include "support/AgentProcess.h"
#include "support/EnvironmentApi.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

/// The test double of `micromamba create … --prefix P SPEC…`: one conda-meta record per spec,
/// as micromamba writes them (the agent reads them for the snapshot).
const char* kDouble = R"SH(#!/bin/sh
set -eu
sub="$1"
prefix=""
prev=""
for a in "$@"; do
  if [ "$prev" = "--prefix" ]; then prefix="$a"; fi
  prev="$a"
done
[ -n "$prefix" ] || { echo "double: no --prefix" >&2; exit 2; }
case "$sub" in
create)
  [ -z "$(ls -A "$prefix")" ] || { echo "double: prefix not empty" >&2; exit 3; }
  mkdir -p "$prefix/conda-meta" "$prefix/bin"
  for a in "$@"; do printf '%s\n' "$a"; done > "$prefix/argv.txt"
  ls /opt/conda-channels/0 > "$prefix/channel0.txt"
  skip=0
  shift
  for a in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$a" in
    -c|--prefix) skip=1 ;;
    -*) ;;
    *)
      name=${a%%[=<>!~]*}
      ver=${a#"$name"}
      ver=${ver#=}
      [ -n "$ver" ] || ver=0.0
      printf '{"name":"%s","version":"%s","channel":"local"}\n' "$name" "$ver" \
        > "$prefix/conda-meta/$name-0.json"
      ;;
    esac
  done
  printf '#!/bin/sh\necho conda-python "$@"\n' > "$prefix/bin/python3"
  chmod 755 "$prefix/bin/python3"
  ;;
*) echo "double: unexpected $sub" >&2; exit 4 ;;
esac
)SH";

QJsonObject error(const ApiResponse& r) {
    return errorOf(r);
}

bool writeExecutable(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), 0755) == 0;
}

} // namespace

class TestScienceEnvironmentsMicromamba final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_binary;
    QString m_channel;
    QString m_channel2; ///< the operator's second channel (an install may choose it alone)
    AgentProcess m_agent;
    AgentOptions m_options;
    QString m_envId;
    QString m_ws;
    ApiClient& client() { return *m_agent.client(); }

    QJsonObject waitForBuild(const QString& executionId) {
        return waitForBuildRecord(client(), executionId);
    }
    QJsonObject environment() { return environmentOf(client(), m_envId); }
    QJsonObject micromambaHealth() {
        return client()
            .call("GET", "/v1/health")
            .json()
            .value("scientificEnvs")
            .toObject()
            .value("provisioners")
            .toObject()
            .value("micromamba")
            .toObject();
    }
    QStringList snapshotOf(const QString& revisionId) {
        return testsupport::snapshotOf(client(), revisionId);
    }
    QString inEnvironment(const QString& script) {
        return m_agent.shell(m_ws, script, {{"environmentId", m_envId}}).stdoutText().trimmed();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // The agent runs as an unprivileged user when the test runs as root: it must read them.
        QVERIFY(::chmod(QFile::encodeName(m_dir.path()).constData(), 0755) == 0);
        m_binary = m_dir.path() + "/micromamba";
        QVERIFY(writeExecutable(m_binary, kDouble));
        m_channel = m_dir.path() + "/channel";
        QVERIFY(QDir().mkpath(m_channel + "/noarch"));
        QFile repodata(m_channel + "/noarch/repodata.json");
        QVERIFY(repodata.open(QIODevice::WriteOnly) && repodata.write("{}") == 2);
        repodata.close();
        m_channel2 = m_dir.path() + "/channel2";
        QVERIFY(QDir().mkpath(m_channel2 + "/noarch"));
        m_options.extraEnv.insert("RUNBOX_ENV_MICROMAMBA", m_binary);
        m_options.extraEnv.insert(
            "RUNBOX_ENV_MICROMAMBA_SHA256",
            QCryptographicHash::hash(QByteArray(kDouble), QCryptographicHash::Sha256).toHex());
        m_options.extraEnv.insert("RUNBOX_ENV_CONDA_CHANNELS", m_channel + ':' + m_channel2);
        m_options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1880200000");
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
    }

    void testCreateRunsTheCheckedBinaryWithTheExpectedArgv() {
        QVERIFY2(micromambaHealth().value("available").toBool(),
                 qPrintable(micromambaHealth().value("reason").toString()));
        const ApiResponse created = client().call("POST", "/v1/environments",
                                                  QJsonObject{{"name", "conda env"},
                                                              {"language", "python"},
                                                              {"provisioner", "micromamba"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        QCOMPARE(
            waitForBuild(created.json().value("executionId").toString()).value("state").toString(),
            QStringLiteral("completed"));
        QCOMPARE(inEnvironment("cat /opt/science-env/argv.txt").split('\n'),
                 QStringList({"create", "--yes", "--no-rc", "--override-channels", "-c",
                              "file:///opt/conda-channels/0", "-c", "file:///opt/conda-channels/1",
                              "--prefix", "/opt/science-env", "python"}));
        // The operator's channel was there, read-only (the double listed it).
        QCOMPARE(inEnvironment("cat /opt/science-env/channel0.txt"), QStringLiteral("noarch"));
        QCOMPARE(snapshotOf(environment().value("currentRevisionId").toString()),
                 QStringList({"python=0.0"}));
    }

    void testInstallBuildsAfreshAndExecutionsSeeTheCondaPrefix() {
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"numpy=1.26", "scipy>=1.11,<2"}}});
        QCOMPARE(installed.status, 202);
        QCOMPARE(waitForBuild(installed.json().value("executionId").toString())
                     .value("state")
                     .toString(),
                 QStringLiteral("completed"));
        const QString revision = installed.json().value("revisionId").toString();
        QCOMPARE(environment().value("currentRevisionId").toString(), revision);
        QCOMPARE(snapshotOf(revision),
                 QStringList({"numpy=1.26", "python=0.0", "scipy=>=1.11,<2"}));
        QCOMPARE(inEnvironment("tail -n 3 /opt/science-env/argv.txt").split('\n'),
                 QStringList({"python", "numpy=1.26", "scipy>=1.11,<2"}));
        QCOMPARE(inEnvironment("echo $CONDA_PREFIX"), QStringLiteral("/opt/science-env"));
        // The python kind runs the environment's interpreter (here the double's script).
        const ExecOutcome kind = m_agent.python(m_ws, "print(1)", {{"environmentId", m_envId}});
        QCOMPARE(kind.stdoutText().trimmed(), QStringLiteral("conda-python -I -"));
    }

    void testAnInstallChoosesAmongTheOperatorsChannels() {
        const QByteArray install = "/v1/environments/" + m_envId.toUtf8() + "/install";
        const int revisions = revisionCountOf(client(), m_envId);
        // Refused, nothing built: a channel not in the operator's list, the same one twice,
        // another manager than conda.
        for (const QJsonObject& body :
             {QJsonObject{{"packages", QJsonArray{"numpy"}}, {"channels", QJsonArray{"/tmp"}}},
              QJsonObject{{"packages", QJsonArray{"numpy"}},
                          {"channels", QJsonArray{m_channel2, m_channel2}}},
              QJsonObject{{"packages", QJsonArray{"numpy"}}, {"channels", QJsonArray{}}},
              QJsonObject{{"packages", QJsonArray{"numpy"}}, {"manager", "pip"}}}) {
            const ApiResponse r = client().call("POST", install, body);
            QCOMPARE(r.status, 400);
            const QString code = error(r).value("code").toString();
            QVERIFY2(code == (body.contains("manager") ? "invalid_manager" : "invalid_channels"),
                     qPrintable(code));
        }
        QCOMPARE(revisionCountOf(client(), m_envId), revisions);
        const ApiResponse chosen = client().call("POST", install,
                                                 QJsonObject{{"packages", QJsonArray{"numpy=1.26"}},
                                                             {"manager", "conda"},
                                                             {"channels", QJsonArray{m_channel2}}});
        QCOMPARE(chosen.status, 202);
        QCOMPARE(
            waitForBuild(chosen.json().value("executionId").toString()).value("state").toString(),
            QStringLiteral("completed"));
        QCOMPARE(inEnvironment("sed -n 5,9p /opt/science-env/argv.txt").split('\n'),
                 QStringList({"-c", "file:///opt/conda-channels/1", "--prefix", "/opt/science-env",
                              "python"}));
        // The next install without channels keeps the ones the revision was built from.
        const ApiResponse next =
            client().call("POST", install, QJsonObject{{"packages", QJsonArray{"scipy"}}});
        QCOMPARE(next.status, 202);
        QCOMPARE(
            waitForBuild(next.json().value("executionId").toString()).value("state").toString(),
            QStringLiteral("completed"));
        QCOMPARE(inEnvironment("grep -c conda-channels /opt/science-env/argv.txt"),
                 QStringLiteral("1"));
        QVERIFY(inEnvironment("cat /opt/science-env/argv.txt").contains("conda-channels/1"));
    }

    void testSpecsNamingChannelsPathsOrOptionsAreRefused() {
        for (const QString& spec :
             {QStringLiteral("conda-forge::numpy"), QStringLiteral("--override-channels"),
              QStringLiteral("./numpy.tar.bz2"), QStringLiteral("https://x.example/numpy.conda"),
              QStringLiteral("numpy[version='>1']"), QStringLiteral("numpy 1.26"),
              QStringLiteral("-c"), QStringLiteral("numpy=1.26; id")}) {
            const ApiResponse r =
                client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                              QJsonObject{{"packages", QJsonArray{"numpy", spec}}});
            QCOMPARE(r.status, 400);
            QCOMPARE(error(r).value("code").toString(), QStringLiteral("invalid_packages"));
            QVERIFY2(error(r).value("message").toString().contains("packages[1]"),
                     qPrintable(error(r).value("message").toString()));
        }
    }

    void testAModifiedBinaryIsNeverRun() {
        const QString current = environment().value("currentRevisionId").toString();
        QVERIFY(micromambaHealth().value("available").toBool()); // positive control
        QVERIFY(writeExecutable(m_binary, QByteArray(kDouble) + "echo tampered\n"));
        const QJsonObject health = micromambaHealth();
        QCOMPARE(health.value("available").toBool(true), false);
        QVERIFY2(health.value("reason").toString().contains("SHA-256"),
                 qPrintable(health.value("reason").toString()));
        const ApiResponse created = client().call(
            "POST", "/v1/environments",
            QJsonObject{{"name", "conda two"}, {"language", "r"}, {"provisioner", "micromamba"}});
        QCOMPARE(created.status, 503);
        QCOMPARE(error(created).value("code").toString(),
                 QStringLiteral("provisioner_unavailable"));
        // An install already accepted finds the binary changed at launch: nothing runs.
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"pandas"}}});
        QCOMPARE(installed.status, 202);
        const QJsonObject record = waitForBuild(installed.json().value("executionId").toString());
        QCOMPARE(record.value("state").toString(), QStringLiteral("setup_failed"));
        QVERIFY2(record.value("statusReason").toString().contains("SHA-256"),
                 qPrintable(record.value("statusReason").toString()));
        QCOMPARE(environment().value("currentRevisionId").toString(), current);
        QVERIFY(writeExecutable(m_binary, kDouble));
        QVERIFY(micromambaHealth().value("available").toBool());
    }

    void testARealMicromambaBuildsFromALocalChannel() {
        const QString binary = qEnvironmentVariable("RUNBOX_TEST_MICROMAMBA").isEmpty()
                                   ? QStandardPaths::findExecutable("micromamba")
                                   : qEnvironmentVariable("RUNBOX_TEST_MICROMAMBA");
        const QString channel = qEnvironmentVariable("RUNBOX_TEST_CONDA_CHANNEL");
        if (binary.isEmpty() || channel.isEmpty() || !QFileInfo(channel).isDir())
            QSKIP("not run: no micromamba binary (RUNBOX_TEST_MICROMAMBA or PATH) and local "
                  "channel with python (RUNBOX_TEST_CONDA_CHANNEL) on this host");
        QFile file(binary);
        QVERIFY(file.open(QIODevice::ReadOnly));
        AgentOptions options;
        options.extraEnv.insert("RUNBOX_ENV_MICROMAMBA", binary);
        options.extraEnv.insert(
            "RUNBOX_ENV_MICROMAMBA_SHA256",
            QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex());
        options.extraEnv.insert("RUNBOX_ENV_CONDA_CHANNELS", channel);
        options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1880300000");
        AgentProcess agent;
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const ApiResponse created = agent.client()->call(
            "POST", "/v1/environments",
            QJsonObject{
                {"name", "real conda"}, {"language", "python"}, {"provisioner", "micromamba"}});
        QCOMPARE(created.status, 201);
        const QJsonObject record =
            waitUntilFinal(*agent.client(), created.json().value("executionId").toString(), 600000);
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));
        const QString ws = agent.createWorkspace();
        const ExecOutcome run = agent.python(ws, "import sys; print(sys.prefix)",
                                             {{"environmentId", created.json()["id"].toString()}});
        QCOMPARE(run.stdoutText().trimmed(), QStringLiteral("/opt/science-env"));
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentsMicromamba)
#include "test_science_environments_micromamba.moc"
