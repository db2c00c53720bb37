// Science environments end to end, with no network (docs/environments.md): a wheelhouse of two
// hand-made wheels (pkgb requires pkga), an environment built by the real agent's sandboxed
// provisioning execution, selected by strong executions (sync and managed). Each refusal comes
// after its positive control.
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/EnvironmentApi.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QJsonObject error(const ApiResponse& r) {
    return errorOf(r);
}

} // namespace

class TestScienceEnvironments final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_wheelhouse;
    AgentProcess m_agent;
    AgentOptions m_options;
    QString m_envId;
    QString m_rev1; ///< pkgb 1.0 + pkga 1.0
    ApiClient& client() { return *m_agent.client(); }

    QString waitForBuild(const QString& executionId) {
        return waitForBuildRecord(client(), executionId).value("state").toString();
    }
    QJsonObject environment() { return environmentOf(client(), m_envId); }
    int revisionCount() { return revisionCountOf(client(), m_envId); }
    int executionCount() {
        return int(client()
                       .call("GET", "/v1/executions?limit=1000")
                       .json()
                       .value("executions")
                       .toArray()
                       .size());
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_wheelhouse.isValid());
        // The agent runs as an unprivileged user when the test runs as root: it must read it.
        QVERIFY(openToSandboxes(m_wheelhouse.path()));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "1.0", "X = 'a1'"));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkgb", "1.0",
                           "from pkga import X as _A\nX = 'b1+' + _A", "pkga"));
        m_options.extraEnv.insert("RUNBOX_ENV_WHEELHOUSE", m_wheelhouse.path());
        m_options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1879700000");
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
    }

    void testHealthSaysWhichProvisionersServe() {
        const QJsonObject envs =
            client().call("GET", "/v1/health").json().value("scientificEnvs").toObject();
        const QJsonObject provisioners = envs.value("provisioners").toObject();
        QVERIFY2(provisioners.value("venv").toObject().value("available").toBool(),
                 qPrintable(provisioners.value("venv").toObject().value("reason").toString()));
        // r-lib serves where the host has R (r-base-core, scripts/install-deps).
        QCOMPARE(provisioners.value("r-lib").toObject().value("available").toBool(),
                 QFileInfo(QStringLiteral("/usr/lib/R/bin/Rscript")).isExecutable());
        QCOMPARE(provisioners.value("micromamba").toObject().value("available").toBool(true),
                 false);
        QCOMPARE(envs.value("wheelhouse").toString(), m_wheelhouse.path());
    }

    void testCreateBuildsAReadyFirstRevision() {
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "sci env 1"}, {"language", "python"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        QVERIFY(m_envId.startsWith('e'));
        QCOMPARE(created.json().value("provisioner").toString(), QStringLiteral("venv"));
        const QString build = created.json().value("executionId").toString();
        QCOMPARE(executionRecord(client(), build).value("kind").toString(),
                 QStringLiteral("provision"));
        QCOMPARE(waitForBuild(build), QStringLiteral("completed"));
        QCOMPARE(environment().value("status").toString(), QStringLiteral("ready"));
        QVERIFY(environment().value("currentRevisionId").isString());
        // The same name again is a conflict; a bad name or language is a 400 naming it.
        QCOMPARE(client()
                     .call("POST", "/v1/environments",
                           QJsonObject{{"name", "sci env 1"}, {"language", "python"}})
                     .status,
                 409);
        const ApiResponse badName = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "../x"}, {"language", "python"}});
        QCOMPARE(badName.status, 400);
        QCOMPARE(error(badName).value("code").toString(),
                 QStringLiteral("invalid_environment_name"));
        const ApiResponse mamba = client().call(
            "POST", "/v1/environments",
            QJsonObject{{"name", "m one"}, {"language", "python"}, {"provisioner", "micromamba"}});
        QCOMPARE(mamba.status, 503); // not configured here
        QCOMPARE(error(mamba).value("code").toString(), QStringLiteral("provisioner_unavailable"));
        const ApiResponse pairing = client().call(
            "POST", "/v1/environments",
            QJsonObject{{"name", "r one"}, {"language", "r"}, {"provisioner", "venv"}});
        QCOMPARE(pairing.status, 400);
        QCOMPARE(error(pairing).value("code").toString(), QStringLiteral("invalid_provisioner"));
    }

    void testInstallBuildsARevisionWithItsDependency() {
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"pkgb"}}});
        QCOMPARE(installed.status, 202);
        m_rev1 = installed.json().value("revisionId").toString();
        QCOMPARE(waitForBuild(installed.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        QCOMPARE(environment().value("currentRevisionId").toString(), m_rev1);
        const ApiResponse snapshot =
            client().call("GET", "/v1/environment-revisions/" + m_rev1.toUtf8() + "/snapshot");
        QCOMPARE(snapshot.status, 200);
        QStringList packages;
        for (const QJsonValue& p : snapshot.json().value("packages").toArray())
            packages << p["name"].toString() + '=' + p["version"].toString();
        QVERIFY2(packages.contains("pkga=1.0") && packages.contains("pkgb=1.0"),
                 qPrintable(packages.join(' ')));
        QCOMPARE(snapshot.json().value("sha256").toString().size(), 64);
    }

    void testTheCliListsShowsAndRunsInAnEnvironment() {
        auto cli = [this](const QStringList& args, QByteArray* out, QByteArray* err = nullptr) {
            const CliResult r = runCli(m_agent.cliConnectionArgs() + args, 120000);
            *out = r.out;
            if (err)
                *err = r.err;
            return r.exitCode;
        };
        QByteArray out, err;
        QCOMPARE(cli({"env", "ls"}, &out), 0);
        QVERIFY2(out.contains("sci env 1\t" + m_envId.toUtf8() + "\tready"), out.constData());
        QCOMPARE(cli({"env", "show", "sci env 1"}, &out), 0);
        QVERIFY2(out.contains("pkga 1.0") && out.contains("pkgb 1.0"), out.constData());
        QCOMPARE(cli({"exec", "--environment", "sci env 1", "--", "python3", "-c",
                      "import pkgb; print(pkgb.X)"},
                     &out),
                 0);
        QCOMPARE(out, QByteArray("b1+a1\n"));
        QCOMPARE(cli({"exec", "--environment", "no such env", "--", "true"}, &out, &err), 1);
        QVERIFY2(err.contains("no environment named"), err.constData());
        // An option the CLI does not know is its usage error; after `--` the agent judges it.
        QCOMPARE(cli({"env", "install", "sci env 1", "-e", "."}, &out, &err), 2);
        QVERIFY2(err.contains("unknown option \"-e\""), err.constData());
        QCOMPARE(cli({"env", "install", "sci env 1", "--", "-e", "."}, &out, &err), 1);
        QVERIFY2(err.contains("invalid_packages"), err.constData());
    }

    void testAnExecutionSeesTheEnvironmentAndNotTheHostInterpreters() {
        const QString ws = m_agent.createWorkspace();
        const QString probe =
            "python3 -c 'import pkgb; print(pkgb.X)' 2>/dev/null || echo no-pkgb\n"
            "command -v python3\n"
            "wc -c < /usr/bin/python3\n"
            "touch /opt/science-env/planted 2>/dev/null && echo writable || echo read-only\n";
        // Positive control: without an environment, the host's python3 is there, pkgb is not.
        const ExecOutcome plain = m_agent.shell(ws, probe);
        QCOMPARE(plain.status(), QStringLiteral("completed"));
        QStringList lines = plain.stdoutText().trimmed().split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("no-pkgb"));
        QCOMPARE(lines.value(1), QStringLiteral("/usr/bin/python3"));
        QVERIFY2(lines.value(2).toLongLong() > 0, qPrintable(plain.stdoutText()));
        const ExecOutcome inEnv = m_agent.shell(ws, probe, {{"environmentId", m_envId}});
        QCOMPARE(inEnv.status(), QStringLiteral("completed"));
        lines = inEnv.stdoutText().trimmed().split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("b1+a1"));
        QCOMPARE(lines.value(1), QStringLiteral("/opt/science-env/bin/python3"));
        QCOMPARE(lines.value(2), QStringLiteral("0")); // the host's interpreter is masked
        QCOMPARE(lines.value(3), QStringLiteral("read-only"));
        // The python kind runs the environment's interpreter.
        const ExecOutcome kind = m_agent.python(ws, "import sys, pkgb; print(sys.prefix, pkgb.X)",
                                                {{"environmentId", m_envId}});
        QCOMPARE(kind.stdoutText().trimmed(), QStringLiteral("/opt/science-env b1+a1"));
        // An unknown id is refused before anything runs.
        const ExecOutcome unknown =
            m_agent.shell(ws, "true", {{"environmentId", "e0000000000000000"}});
        QCOMPARE(unknown.httpStatus, 400);
        QVERIFY2(unknown.errorBody.contains("unknown_environment"), unknown.errorBody.constData());
    }

    void testARunningExecutionKeepsItsRevisionAcrossAnUpdate() {
        const QString oldWs = m_agent.createWorkspace();
        const QString gate = m_agent.workspaceDir(oldWs) + "/go";
        const ApiResponse before =
            submitExecution(client(), oldWs,
                            {{"kind", "shell"},
                             {"environmentId", m_envId},
                             {"code", "python3 -c 'import pkga; print(pkga.X)'\n"
                                      "while [ ! -e /workspace/go ]; do sleep 0.1; done\n"
                                      "python3 -c 'import pkga; print(pkga.X)'\n"}});
        QCOMPARE(before.status, 202);
        const QString beforeId = before.json().value("executionId").toString();
        QCOMPARE(executionRecord(client(), beforeId)
                     .value("permissionEpoch")
                     .toObject()
                     .value("environmentRevisionId")
                     .toString(),
                 m_rev1);
        // The operator adds pkga 2.0; a new revision is built while the execution runs.
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "2.0", "X = 'a2'"));
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"pkga==2.0"}}});
        QCOMPARE(installed.status, 202);
        const QString rev2 = installed.json().value("revisionId").toString();
        QCOMPARE(waitForBuild(installed.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        QCOMPARE(environment().value("currentRevisionId").toString(), rev2);
        QCOMPARE(executionRecord(client(), beforeId).value("state").toString(),
                 QStringLiteral("running"));
        // A new execution sees the new revision.
        const QString newWs = m_agent.createWorkspace();
        const ExecOutcome after = m_agent.shell(newWs, "python3 -c 'import pkgb; print(pkgb.X)'",
                                                {{"environmentId", m_envId}});
        QCOMPARE(after.stdoutText().trimmed(), QStringLiteral("b1+a2"));
        // The exact old revision can still be named.
        const ExecOutcome pinned = m_agent.shell(newWs, "python3 -c 'import pkga; print(pkga.X)'",
                                                 {{"environmentRevisionId", m_rev1}});
        QCOMPARE(pinned.stdoutText().trimmed(), QStringLiteral("a1"));
        // The execution started before the update still sees the old files.
        QFile go(gate);
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        const QJsonObject record = waitUntilFinal(client(), beforeId, 60000);
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(readLog(client(), beforeId, 0, false).stdoutBytes, QByteArray("a1\na1\n"));
    }

    void testOptionInjectionIsRefusedWithNothingCreated() {
        const int revisions = revisionCount();
        const int executions = executionCount();
        QVERIFY(revisions >= 3 && executions > 0); // positive control: the counts are read
        for (const QString& spec :
             {QStringLiteral("--extra-index-url=https://evil.example/simple"),
              QStringLiteral("-e ."), QStringLiteral("../x"), QStringLiteral("/tmp/x.whl"),
              QStringLiteral("https://evil.example/x.whl"), QStringLiteral("pkga @ file:///x"),
              QStringLiteral("pkga; os_name=='posix'"), QString(161, 'a')}) {
            const ApiResponse r =
                client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                              QJsonObject{{"packages", QJsonArray{"pkgb", spec}}});
            QCOMPARE(r.status, 400);
            QCOMPARE(error(r).value("code").toString(), QStringLiteral("invalid_packages"));
            QVERIFY2(error(r).value("message").toString().contains("packages[1]"),
                     qPrintable(error(r).value("message").toString()));
        }
        QCOMPARE(revisionCount(), revisions);
        QCOMPARE(executionCount(), executions);
    }

    void testInstallsQueueInOrderAndACancelledBuildChangesNothing() {
        const QString current = environment().value("currentRevisionId").toString();
        const QByteArray install = "/v1/environments/" + m_envId.toUtf8() + "/install";
        // Two installs at once: the second waits for the first (the build workspace's lease)
        // and is built with its packages too.
        const ApiResponse first =
            client().call("POST", install, QJsonObject{{"packages", QJsonArray{"pkga==1.0"}}});
        const ApiResponse second =
            client().call("POST", install, QJsonObject{{"packages", QJsonArray{"pkgb"}}});
        QCOMPARE(first.status, 202);
        QCOMPARE(second.status, 202);
        const QString firstBuild = first.json().value("executionId").toString();
        const QString secondBuild = second.json().value("executionId").toString();
        QCOMPARE(executionRecord(client(), secondBuild).value("state").toString(),
                 QStringLiteral("queued"));
        // Cancelling the first (queued or running) leaves the current revision; the second
        // still builds, from the packages of the last revision that did not fail.
        QCOMPARE(client().call("POST", "/v1/executions/" + firstBuild.toUtf8() + "/cancel").status,
                 200);
        QCOMPARE(waitUntilFinal(client(), firstBuild).value("state").toString(),
                 QStringLiteral("cancelled"));
        const QString firstRevision = first.json().value("revisionId").toString();
        QVERIFY(!QFileInfo::exists(m_agent.stateDir() + "/environments/" + m_envId + '/' +
                                   firstRevision));
        QCOMPARE(environment().value("currentRevisionId").toString(), current);
        QCOMPARE(waitForBuild(secondBuild), QStringLiteral("completed"));
        const QString secondRevision = second.json().value("revisionId").toString();
        QCOMPARE(environment().value("currentRevisionId").toString(), secondRevision);
        QJsonArray specs;
        for (const QJsonValue& r :
             client()
                 .call("GET", "/v1/environments/" + m_envId.toUtf8() + "/revisions")
                 .json()
                 .value("revisions")
                 .toArray())
            if (r["id"].toString() == secondRevision)
                specs = r["spec"]["packages"].toArray();
        QVERIFY2(specs.contains(QJsonValue("pkga==1.0")) && specs.contains(QJsonValue("pkgb")),
                 QJsonDocument(specs).toJson().constData());
        // pkga==1.0 now pins the old version again.
        const QString ws = m_agent.createWorkspace();
        QCOMPARE(
            m_agent
                .shell(ws, "python3 -c 'import pkgb; print(pkgb.X)'", {{"environmentId", m_envId}})
                .stdoutText()
                .trimmed(),
            QStringLiteral("b1+a1"));
    }

    void testAnAgentKilledDuringABuildLeavesTheCurrentRevision() {
        const QString current = environment().value("currentRevisionId").toString();
        QVERIFY(!current.isEmpty());
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"pkgb"}}});
        QCOMPARE(installed.status, 202);
        const QString revision = installed.json().value("revisionId").toString();
        const QString build = installed.json().value("executionId").toString();
        const QString prefix = m_agent.stateDir() + "/environments/" + m_envId + '/' + revision;
        QCOMPARE(waitForRecord(client(), build,
                               [](const QJsonObject& r) {
                                   return r.value("state").toString() != QLatin1String("queued");
                               })
                     .value("state")
                     .toString(),
                 QStringLiteral("running"));
        QVERIFY(QFileInfo(prefix).isDir()); // positive control: the half-built prefix is there
        m_agent.kill();
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
        QCOMPARE(executionRecord(client(), build).value("state").toString(),
                 QStringLiteral("lost"));
        QVERIFY(!QFileInfo::exists(prefix));
        const QJsonObject env = environment();
        QCOMPARE(env.value("currentRevisionId").toString(), current);
        QCOMPARE(env.value("status").toString(), QStringLiteral("failed"));
        QVERIFY(env.value("lastBuildFailure").toString().contains("agent stopped"));
        // Still usable at its last good revision.
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome run = m_agent.shell(ws, "python3 -c 'import pkgb; print(pkgb.X)'",
                                              {{"environmentId", m_envId}});
        QCOMPARE(run.stdoutText().trimmed(), QStringLiteral("b1+a1"));
    }

    void testABuildGetsNoNetworkWhateverThePolicy() {
        const ApiResponse policy =
            client().call("PUT", "/v1/settings/network-policy",
                          QJsonObject{{"mode", "domain-allowlist"},
                                      {"allowedDomains", QJsonArray{"example.com"}}});
        QCOMPARE(policy.status, 200);
        // Positive control: an ordinary execution created now records the allowlist.
        const QString ws = m_agent.createWorkspace();
        const ApiResponse plain =
            submitExecution(client(), ws, {{"kind", "shell"}, {"code", "true"}});
        QCOMPARE(plain.json().value("permissionEpoch").toObject().value("networkPolicy").toString(),
                 QStringLiteral("domain-allowlist"));
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + m_envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"pkgb"}}});
        QCOMPARE(installed.status, 202);
        const QString build = installed.json().value("executionId").toString();
        const QJsonObject epoch =
            executionRecord(client(), build).value("permissionEpoch").toObject();
        QCOMPARE(epoch.value("networkPolicy").toString(), QStringLiteral("none"));
        QCOMPARE(epoch.value("environmentId").toString(), m_envId);
        QVERIFY(!epoch.contains("networkPolicyDetail"));
        QCOMPARE(waitForBuild(build), QStringLiteral("completed"));
        waitUntilFinal(client(), plain.json().value("executionId").toString());
        QCOMPARE(client()
                     .call("PUT", "/v1/settings/network-policy", QJsonObject{{"mode", "none"}})
                     .status,
                 200);
    }

    void testUninstallBuildsARevisionWithoutThePackage() {
        const QByteArray uninstall = "/v1/environments/" + m_envId.toUtf8() + "/uninstall";
        const QString ws = m_agent.createWorkspace();
        const QString probe = "python3 -c 'import pkgb; print(pkgb.X)' 2>/dev/null || echo no-pkgb";
        // A package the environment was not asked for is refused with nothing built.
        const int revisions = revisionCount();
        const ApiResponse unknown =
            client().call("POST", uninstall, QJsonObject{{"packages", QJsonArray{"numpy"}}});
        QCOMPARE(unknown.status, 400);
        QCOMPARE(error(unknown).value("code").toString(), QStringLiteral("package_not_requested"));
        QCOMPARE(revisionCount(), revisions);
        // Taking out the pin of pkga: pkgb stays and brings the newest pkga again.
        const ApiResponse unpinned =
            client().call("POST", uninstall, QJsonObject{{"packages", QJsonArray{"PKGA"}}});
        QCOMPARE(unpinned.status, 202);
        QCOMPARE(waitForBuild(unpinned.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        QCOMPARE(m_agent.shell(ws, probe, {{"environmentId", m_envId}}).stdoutText().trimmed(),
                 QStringLiteral("b1+a2"));
        // Taking out pkgb leaves a bare environment: its dependency goes with it.
        const ApiResponse bare =
            client().call("POST", uninstall, QJsonObject{{"packages", QJsonArray{"pkgb"}}});
        QCOMPARE(bare.status, 202);
        QCOMPARE(waitForBuild(bare.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        QCOMPARE(m_agent.shell(ws, probe, {{"environmentId", m_envId}}).stdoutText().trimmed(),
                 QStringLiteral("no-pkgb"));
        const ApiResponse snapshot = client().call(
            "GET", "/v1/environment-revisions/" +
                       bare.json().value("revisionId").toString().toUtf8() + "/snapshot");
        for (const QJsonValue& p : snapshot.json().value("packages").toArray())
            QVERIFY2(!p["name"].toString().startsWith("pkg"), qPrintable(p["name"].toString()));
        // The r kind cannot run in a Python environment (its R is masked).
        const ExecOutcome r =
            m_agent.exec(ws, {{"kind", "r"}, {"code", "cat(1)"}, {"environmentId", m_envId}});
        if (QFileInfo(QStringLiteral("/usr/bin/R")).isExecutable()) {
            QCOMPARE(r.httpStatus, 400);
            QVERIFY2(r.errorBody.contains("environment_language_mismatch"),
                     r.errorBody.constData());
        }
    }

    void testDeleteRemovesTheEnvironment() {
        // Its build workspace goes with it only.
        QString buildWs;
        for (const QJsonValue& r :
             client()
                 .call("GET", "/v1/environments/" + m_envId.toUtf8() + "/revisions")
                 .json()
                 .value("revisions")
                 .toArray())
            buildWs = executionRecord(client(), r["executionId"].toString())
                          .value("workspace")
                          .toString();
        QVERIFY(!buildWs.isEmpty());
        // It is listed as the environment's; an ordinary workspace is not marked.
        const QString ordinary = m_agent.createWorkspace();
        int marked = 0;
        for (const QJsonValue& w :
             client().call("GET", "/v1/workspaces").json().value("workspaces").toArray()) {
            if (w["id"].toString() == buildWs) {
                QCOMPARE(w["environmentBuild"].toString(), m_envId);
                ++marked;
            }
            if (w["id"].toString() == ordinary)
                QVERIFY(!w.toObject().contains("environmentBuild"));
        }
        QCOMPARE(marked, 1);
        const ApiResponse kept = client().call("DELETE", "/v1/workspaces/" + buildWs.toUtf8());
        QCOMPARE(kept.status, 409);
        QCOMPARE(error(kept).value("code").toString(), QStringLiteral("workspace_in_use"));
        const ApiResponse removed = client().call("DELETE", "/v1/environments/" + m_envId.toUtf8());
        QCOMPARE(removed.status, 200);
        QCOMPARE(client().call("GET", "/v1/environments/" + m_envId.toUtf8()).status, 404);
        QVERIFY(!QFileInfo::exists(m_agent.stateDir() + "/environments/" + m_envId));
        QCOMPARE(client().call("DELETE", "/v1/workspaces/" + buildWs.toUtf8()).status, 404);
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome gone = m_agent.shell(ws, "true", {{"environmentId", m_envId}});
        QCOMPARE(gone.httpStatus, 400);
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironments)
#include "test_science_environments.moc"
