// Wheels uploaded into a workspace and installed into a science environment (docs/environments.md
// "Uploaded wheels"), with no network: the real agent copies each into the environment's own
// store by SHA-256, its provisioning execution installs it with its dependency from the
// wheelhouse, later revisions are built from the stored bytes whatever happens to the
// workspace, and an uninstall takes it out. Each refusal comes after its positive control and
// leaves no revision behind.
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/EnvironmentApi.h"
#include "support/ExecStream.h"
#include "support/Wheelhouse.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

constexpr char kWheelC1[] = "dist/pkgc-1.0-py3-none-any.whl";

QByteArray sha256Of(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly)
               ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex()
               : QByteArray();
}

} // namespace

class TestScienceEnvironmentWheels final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_wheelhouse;
    QTemporaryDir m_uploads; ///< wheels made here, then copied into the workspace
    AgentProcess m_agent;
    QString m_envId;
    QString m_ws;
    ApiClient& client() { return *m_agent.client(); }
    QByteArray installPath() { return "/v1/environments/" + m_envId.toUtf8() + "/install"; }
    QString dist() { return m_agent.workspaceDir(m_ws) + "/dist"; }

    /// Builds wheel pkgc @p version (requiring pkga, from the wheelhouse) and copies it into the
    /// workspace's dist/, readable by the agent.
    bool putWheelC(const QString& version) {
        const QString file = "pkgc-" + version + "-py3-none-any.whl";
        if (!writeWheel(m_uploads.path(), "pkgc", version,
                        "from pkga import X as _A\nX = 'c" + version + "+' + _A", "pkga"))
            return false;
        QDir().mkpath(dist());
        QFile::remove(dist() + '/' + file);
        return ::chmod(QFile::encodeName(dist()).constData(), 0755) == 0 &&
               QFile::copy(m_uploads.filePath(file), dist() + '/' + file) &&
               ::chmod(QFile::encodeName(dist() + '/' + file).constData(), 0644) == 0;
    }
    /// Installs @p body and waits for its build: the revision id, or "" when it failed.
    QString build(const QByteArray& path, const QJsonObject& body) {
        const ApiResponse r = client().call("POST", path, body);
        if (r.status != 202) {
            qWarning("%d %s", r.status, r.body.constData());
            return {};
        }
        const QJsonObject record =
            waitForBuildRecord(client(), r.json().value("executionId").toString());
        return record.value("state") == QLatin1String("completed")
                   ? r.json().value("revisionId").toString()
                   : QString();
    }
    QString inEnvironment(const QString& code) {
        const ExecOutcome run = m_agent.python(m_ws, code, {{"environmentId", m_envId}});
        return (run.stdoutText() + run.stderrText()).trimmed();
    }
    QJsonObject latestSpec() {
        const QJsonArray revisions =
            client()
                .call("GET", "/v1/environments/" + m_envId.toUtf8() + "/revisions")
                .json()
                .value("revisions")
                .toArray();
        return revisions.last().toObject().value("spec").toObject();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_wheelhouse.isValid() && m_uploads.isValid());
        // The agent runs as an unprivileged user when the test runs as root: it must read them.
        QVERIFY(openToSandboxes(m_wheelhouse.path()));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "1.0", "X = 'a1'"));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkgb", "1.0", "X = 'b1'"));
        AgentOptions options;
        options.extraEnv.insert("RUNBOX_ENV_WHEELHOUSE", m_wheelhouse.path());
        options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1880500000");
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "wheels"}, {"language", "python"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        QCOMPARE(waitForBuildRecord(client(), created.json().value("executionId").toString())
                     .value("state")
                     .toString(),
                 QStringLiteral("completed"));
    }

    void testAnUploadedWheelIsInstalledWithItsDependency() {
        QVERIFY(putWheelC("1.0"));
        const QString revision =
            build(installPath(),
                  {{"workspace", m_ws}, {"wheels", QJsonArray{kWheelC1}}, {"manager", "pip"}});
        QVERIFY(!revision.isEmpty());
        QCOMPARE(inEnvironment("import pkgc; print(pkgc.X)"), QStringLiteral("c1.0+a1"));
        const QJsonArray wheels = latestSpec().value("wheels").toArray();
        QCOMPARE(wheels.size(), 1);
        QCOMPARE(wheels.at(0)["file"].toString(), QStringLiteral("pkgc-1.0-py3-none-any.whl"));
        QCOMPARE(wheels.at(0)["sha256"].toString().toLatin1(),
                 sha256Of(m_agent.workspaceDir(m_ws) + '/' + kWheelC1));
        QVERIFY(snapshotOf(client(), revision).contains("pkgc=1.0"));
    }

    void testLaterRevisionsAreBuiltFromTheStoredWheel() {
        // The workspace's copy goes: the next revision still holds pkgc, from the store.
        QVERIFY(QFile::remove(m_agent.workspaceDir(m_ws) + '/' + kWheelC1));
        QVERIFY(!build(installPath(), {{"packages", QJsonArray{"pkgb"}}}).isEmpty());
        QCOMPARE(inEnvironment("import pkgb, pkgc; print(pkgb.X, pkgc.X)"),
                 QStringLiteral("b1 c1.0+a1"));
        // A wheel of the same project replaces the stored one.
        QVERIFY(putWheelC("2.0"));
        QVERIFY(!build(installPath(), {{"workspace", m_ws},
                                       {"wheels", QJsonArray{"dist/pkgc-2.0-py3-none-any.whl"}}})
                     .isEmpty());
        QCOMPARE(inEnvironment("import pkgc; print(pkgc.X)"), QStringLiteral("c2.0+a1"));
        QCOMPARE(latestSpec().value("wheels").toArray().size(), 1);
    }

    void testUninstallTakesOutAnUploadedWheel() {
        QVERIFY(!build("/v1/environments/" + m_envId.toUtf8() + "/uninstall",
                       {{"packages", QJsonArray{"pkgc"}}})
                     .isEmpty());
        QVERIFY(latestSpec().value("wheels").toArray().isEmpty());
        QVERIFY2(inEnvironment("import pkgc").contains("No module named 'pkgc'"),
                 qPrintable(inEnvironment("import pkgc")));
        QCOMPARE(inEnvironment("import pkgb; print(pkgb.X)"), QStringLiteral("b1"));
    }

    void testTheCliInstallsAnUploadedWheel() {
        QVERIFY(putWheelC("1.0"));
        const CliResult r =
            runCli(m_agent.cliConnectionArgs() + QStringList{"env", "install", "wheels", "--wheel",
                                                             m_ws + ':' + kWheelC1, "pkgb"},
                   180000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(inEnvironment("import pkgb, pkgc; print(pkgb.X, pkgc.X)"),
                 QStringLiteral("b1 c1.0+a1"));
        const CliResult twoWorkspaces =
            runCli(m_agent.cliConnectionArgs() + QStringList{"env", "install", "wheels", "--wheel",
                                                             m_ws + ':' + kWheelC1, "--wheel",
                                                             "wother:" + QString(kWheelC1)});
        QCOMPARE(twoWorkspaces.exitCode, 2);
    }

    void testBadWheelInstallsAreRefusedWithNothingCreated_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QString ws = QStringLiteral("$ws");
        QTest::newRow("traversal")
            << QJsonObject{{"workspace", ws},
                           {"wheels", QJsonArray{"../pkgx-1.0-py3-none-any.whl"}}}
            << 400 << "invalid_path";
        QTest::newRow("absolute") << QJsonObject{{"workspace", ws},
                                                 {"wheels",
                                                  QJsonArray{"/etc/pkgx-1.0-py3-none-any.whl"}}}
                                  << 400 << "invalid_path";
        QTest::newRow("a link") << QJsonObject{{"workspace", ws},
                                               {"wheels",
                                                QJsonArray{"dist/link-1.0-py3-none-any.whl"}}}
                                << 400 << "symlink_not_followed";
        QTest::newRow("absent") << QJsonObject{{"workspace", ws},
                                               {"wheels",
                                                QJsonArray{"dist/none-1.0-py3-none-any.whl"}}}
                                << 404 << "not_found";
        QTest::newRow("not a wheel name")
            << QJsonObject{{"workspace", ws}, {"wheels", QJsonArray{"dist/setup.py"}}} << 400
            << "invalid_wheels";
        QTest::newRow("option as a name")
            << QJsonObject{{"workspace", ws},
                           {"wheels", QJsonArray{"--index-url=x-1-py3-none-any.whl"}}}
            << 400 << "invalid_wheels";
        QTest::newRow("not an array")
            << QJsonObject{{"workspace", ws}, {"wheels", kWheelC1}} << 400 << "invalid_wheels";
        QTest::newRow("no workspace")
            << QJsonObject{{"wheels", QJsonArray{kWheelC1}}} << 400 << "invalid_workspace";
        QTest::newRow("unknown workspace")
            << QJsonObject{{"workspace", "w0000000000000000"}, {"wheels", QJsonArray{kWheelC1}}}
            << 404 << "workspace_not_found";
        QTest::newRow("a workspace without wheels")
            << QJsonObject{{"workspace", ws}, {"packages", QJsonArray{"pkga"}}} << 400
            << "invalid_workspace";
        QTest::newRow("another manager")
            << QJsonObject{{"packages", QJsonArray{"pkga"}}, {"manager", "conda"}} << 400
            << "invalid_manager";
        QTest::newRow("channels on a venv")
            << QJsonObject{{"packages", QJsonArray{"pkga"}}, {"channels", QJsonArray{"x"}}} << 400
            << "invalid_channels";
        QTest::newRow("an index the operator did not configure")
            << QJsonObject{{"packages", QJsonArray{"pkga"}}, {"indexUrl", "https://x.example"}}
            << 400 << "invalid_index_url";
        QTest::newRow("an unknown field")
            << QJsonObject{{"packages", QJsonArray{"pkga"}}, {"extraIndexUrl", "https://x.example"}}
            << 400 << "invalid_request";
    }
    void testBadWheelInstallsAreRefusedWithNothingCreated() {
        QFETCH(QJsonObject, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        QVERIFY(putWheelC("1.0")); // positive control: the same install of it is accepted above
        const QString link = dist() + "/link-1.0-py3-none-any.whl";
        QFile::remove(link);
        QVERIFY(QFile::link(m_uploads.filePath("pkgc-1.0-py3-none-any.whl"), link));
        if (body.value("workspace") == QLatin1String("$ws"))
            body.insert("workspace", m_ws);
        const int revisions = revisionCountOf(client(), m_envId);
        const ApiResponse r = client().call("POST", installPath(), body);
        QCOMPARE(r.status, status);
        QCOMPARE(errorOf(r).value("code").toString(), code);
        QCOMPARE(revisionCountOf(client(), m_envId), revisions);
        // An uninstall takes names, never wheels.
        const ApiResponse uninstall =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/uninstall",
                          QJsonObject{{"workspace", m_ws}, {"wheels", QJsonArray{kWheelC1}}});
        QCOMPARE(uninstall.status, 400);
        QCOMPARE(errorOf(uninstall).value("code").toString(), QStringLiteral("invalid_wheels"));
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentWheels)
#include "test_science_environment_wheels.moc"
