// Science environments in light workspaces (docs/environments.md "Selection"), end to end with
// no network: a root agent builds an environment from a wheelhouse of two hand-made wheels (pkgb
// requires pkga), and a light workspace created with it runs its interpreter and packages from
// /opt/science-env, bound read-only in the workspace's mount namespace with the host's
// interpreters masked. Each refusal comes after its positive control.
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/EnvironmentApi.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

class TestLightEnvironments final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_wheelhouse;
    AgentProcess m_agent;
    QString m_envId;
    QString m_rev1; ///< pkgb 1.0 + pkga 1.0
    ApiClient& client() { return *m_agent.client(); }

    /// Creates one light workspace with @p fields added to the body; its item, or {} with the
    /// answer in @p answer.
    QJsonObject createLight(const QJsonObject& fields, ApiResponse* answer = nullptr) {
        QJsonObject body = fields;
        body.insert("isolation", "light");
        const ApiResponse r = client().call("POST", "/v1/workspaces", body, 60000);
        if (answer)
            *answer = r;
        if (r.status != 201)
            return {};
        return r.json().value("workspaces").toArray().first().toObject();
    }
    QJsonObject listed(const QString& id) {
        for (const QJsonValue& v :
             client().call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (v["id"].toString() == id)
                return v.toObject();
        return {};
    }
    QString build(const QByteArray& path, const QJsonObject& body, QString* revision = nullptr) {
        const ApiResponse r = client().call("POST", path, body);
        if (r.status != 201 && r.status != 202)
            return QString::fromUtf8(r.body);
        if (revision)
            *revision = r.json().value("revisionId").toString();
        return waitForBuildRecord(client(), r.json().value("executionId").toString())
            .value("state")
            .toString();
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces with an environment need a root agent; run as root");
        QVERIFY(m_wheelhouse.isValid());
        QVERIFY(openToSandboxes(m_wheelhouse.path()));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "1.0", "X = 'a1'"));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkgb", "1.0",
                           "from pkga import X as _A\nX = 'b1+' + _A", "pkga"));
        AgentOptions root;
        root.runAsRoot = true;
        // Ranges of its own (other root agents' tests may run at the same time).
        root.extraEnv.insert("RUNBOX_ENV_WHEELHOUSE", m_wheelhouse.path());
        root.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1884000000");
        root.extraEnv.insert("RUNBOX_STRONG_UID_COUNT", "4096");
        root.extraEnv.insert("RUNBOX_LIGHT_UID_FIRST", "61000");
        root.extraEnv.insert("RUNBOX_LIGHT_UID_COUNT", "64");
        QVERIFY2(m_agent.start(root), qPrintable(m_agent.errorString()));
        const QJsonObject light =
            client().call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(light.value("reason").toString()));
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "light sci"}, {"language", "python"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        QCOMPARE(waitForBuildRecord(client(), created.json().value("executionId").toString())
                     .value("state")
                     .toString(),
                 QStringLiteral("completed"));
        QCOMPARE(build("/v1/environments/" + m_envId.toUtf8() + "/install",
                       {{"packages", QJsonArray{"pkgb"}}}, &m_rev1),
                 QStringLiteral("completed"));
    }

    void testAWorkspaceCreatedWithItRunsTheEnvironment() {
        const QString probe =
            "python3 -c 'import pkgb; print(pkgb.X)' 2>/dev/null || echo no-pkgb\n"
            "command -v python3\n"
            "wc -c < /usr/bin/python3\n"
            "touch /opt/science-env/planted 2>/dev/null && echo writable || echo read-only\n";
        // Positive control: a light workspace without it has the host's python3, and no pkgb.
        const QJsonObject plain = createLight({});
        QVERIFY(!plain.isEmpty());
        QVERIFY(plain.value("environmentId").isNull());
        const ExecOutcome without = m_agent.shell(plain["id"].toString(), probe);
        QCOMPARE(without.status(), QStringLiteral("completed"));
        QStringList lines = without.stdoutText().trimmed().split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("no-pkgb"));
        QCOMPARE(lines.value(1), QStringLiteral("/usr/bin/python3"));
        QVERIFY2(lines.value(2).toLongLong() > 0, qPrintable(without.describe()));

        const QJsonObject ws = createLight({{"environmentId", m_envId}});
        QVERIFY2(!ws.isEmpty(), qPrintable(m_agent.log()));
        QCOMPARE(ws.value("environmentId").toString(), m_envId);
        QCOMPARE(ws.value("environmentRevisionId").toString(), m_rev1);
        const QString id = ws["id"].toString();
        QCOMPARE(listed(id).value("environmentRevisionId").toString(), m_rev1);
        const ExecOutcome with = m_agent.shell(id, probe);
        QVERIFY2(with.status() == QLatin1String("completed"),
                 qPrintable(with.describe() + m_agent.log()));
        lines = with.stdoutText().trimmed().split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("b1+a1"));
        QCOMPARE(lines.value(1), QStringLiteral("/opt/science-env/bin/python3"));
        QCOMPARE(lines.value(2), QStringLiteral("0")); // the host's interpreter is masked
        QCOMPARE(lines.value(3), QStringLiteral("read-only"));
        // The python kind runs the environment's interpreter.
        const ExecOutcome kind = m_agent.python(id, "import sys, pkgb; print(sys.prefix, pkgb.X)");
        QCOMPARE(kind.stdoutText().trimmed(), QStringLiteral("/opt/science-env b1+a1"));
        // The host's /opt entries are all still there beside the environment.
        const QStringList hostOpt = QDir("/opt").entryList(QDir::AllEntries | QDir::NoDotAndDotDot |
                                                           QDir::Hidden | QDir::System);
        const ExecOutcome opt = m_agent.shell(id, "ls -A /opt");
        QStringList inside = opt.stdoutText().trimmed().split('\n', Qt::SkipEmptyParts);
        QVERIFY2(inside.removeOne("science-env"), qPrintable(opt.describe()));
        QStringList expected = hostOpt;
        expected.removeOne("science-env");
        QCOMPARE(inside, expected);
    }

    void testAnExecNamingAnotherEnvironmentIsRefused() {
        const QString id = createLight({{"environmentId", m_envId}})["id"].toString();
        QVERIFY(!id.isEmpty());
        // Naming its own environment, or its revision, runs (positive control).
        QCOMPARE(m_agent.shell(id, "echo own", {{"environmentId", m_envId}}).stdoutText(),
                 QStringLiteral("own\n"));
        QCOMPARE(m_agent.shell(id, "echo rev", {{"environmentRevisionId", m_rev1}}).stdoutText(),
                 QStringLiteral("rev\n"));
        const ExecOutcome other =
            m_agent.shell(id, "echo ran", {{"environmentId", "e0123456789abcdef"}});
        QVERIFY2(other.httpStatus == 409, qPrintable(other.describe()));
        QCOMPARE(other.errorCode(), QStringLiteral("environment_mismatch"));
        QVERIFY(other.stdoutBytes.isEmpty());
        // Managed: the record names the workspace's revision; another one is refused.
        const ApiResponse ok = submitExecution(client(), id, {{"kind", "shell"}, {"code", "true"}});
        QCOMPARE(ok.status, 202);
        QCOMPARE(executionRecord(client(), ok.json().value("executionId").toString())
                     .value("permissionEpoch")
                     .toObject()
                     .value("environmentRevisionId")
                     .toString(),
                 m_rev1);
        const ApiResponse refused = submitExecution(
            client(), id,
            {{"kind", "shell"}, {"code", "true"}, {"environmentRevisionId", "r0123456789abcdef"}});
        QCOMPARE(refused.status, 409);
        QCOMPARE(errorOf(refused).value("code").toString(), QStringLiteral("environment_mismatch"));
        // The language is checked as for strong executions.
        const ExecOutcome r = m_agent.exec(id, {{"kind", "r"}, {"code", "1"}});
        QCOMPARE(r.httpStatus, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("environment_language_mismatch"));
    }

    void testAWorkspaceKeepsItsRevisionAcrossAnUpdate() {
        const QString old = createLight({{"environmentId", m_envId}})["id"].toString();
        QVERIFY(!old.isEmpty());
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "2.0", "X = 'a2'"));
        QString rev2;
        QCOMPARE(build("/v1/environments/" + m_envId.toUtf8() + "/install",
                       {{"packages", QJsonArray{"pkga==2.0"}}}, &rev2),
                 QStringLiteral("completed"));
        const QString probe = "python3 -c 'import pkgb; print(pkgb.X)'";
        QCOMPARE(m_agent.shell(old, probe).stdoutText().trimmed(), QStringLiteral("b1+a1"));
        const QJsonObject fresh = createLight({{"environmentId", m_envId}});
        QCOMPARE(fresh.value("environmentRevisionId").toString(), rev2);
        QCOMPARE(m_agent.shell(fresh["id"].toString(), probe).stdoutText().trimmed(),
                 QStringLiteral("b1+a2"));
        // The exact old revision can be chosen at creation.
        const QJsonObject pinned = createLight({{"environmentRevisionId", m_rev1}});
        QCOMPARE(pinned.value("environmentId").toString(), m_envId);
        QCOMPARE(m_agent.shell(pinned["id"].toString(), probe).stdoutText().trimmed(),
                 QStringLiteral("b1+a1"));
        // The old workspace's exec naming the environment still runs in its own revision.
        QCOMPARE(m_agent.shell(old, probe, {{"environmentId", m_envId}}).stdoutText().trimmed(),
                 QStringLiteral("b1+a1"));
    }

    /// `runbox workspace create --light --environment ID | --revision REV` makes the same
    /// workspaces as the API (docs/managed.md "CLI"), and says the agent's refusal.
    void testTheCliCreatesWorkspacesWithAnEnvironment() {
        const QStringList connect = m_agent.cliConnectionArgs();
        const QString current = client()
                                    .call("GET", "/v1/environments/" + m_envId.toUtf8())
                                    .json()
                                    .value("currentRevisionId")
                                    .toString();
        QVERIFY(!current.isEmpty());
        const auto create = [&](const QStringList& flags) {
            return runCli(connect + QStringList{"workspace", "create", "--light"} + flags +
                              QStringList{"--json"},
                          120000);
        };
        const CliResult byEnvironment = create({"--environment", m_envId});
        QVERIFY2(byEnvironment.exitCode == 0, byEnvironment.err.constData());
        const QJsonObject made =
            byEnvironment.json().object().value("workspaces").toArray().first().toObject();
        QCOMPARE(made.value("environmentId").toString(), m_envId);
        QCOMPARE(made.value("environmentRevisionId").toString(), current);
        const QString probe = "python3 -c 'import pkgb; print(pkgb.X)'";
        QVERIFY(!m_agent.shell(made["id"].toString(), probe).stdoutText().trimmed().isEmpty());
        const CliResult byRevision = create({"--revision", m_rev1});
        QVERIFY2(byRevision.exitCode == 0, byRevision.err.constData());
        const QJsonObject pinned =
            byRevision.json().object().value("workspaces").toArray().first().toObject();
        QCOMPARE(pinned.value("environmentRevisionId").toString(), m_rev1);
        QCOMPARE(m_agent.shell(pinned["id"].toString(), probe).stdoutText().trimmed(),
                 QStringLiteral("b1+a1"));
        const CliResult unknown = create({"--environment", "e0000000000000000"});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains("unknown_environment"), unknown.err.constData());
        const CliResult both = create({"--environment", m_envId, "--revision", m_rev1});
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains("not both"), both.err.constData());
    }

    void testCreateRefusals() {
        ApiResponse answer;
        QVERIFY(createLight({{"environmentId", "e0000000000000000"}}, &answer).isEmpty());
        QCOMPARE(answer.status, 400);
        QCOMPARE(errorOf(answer).value("code").toString(), QStringLiteral("unknown_environment"));
        QVERIFY(
            createLight({{"environmentId", m_envId}, {"environmentRevisionId", m_rev1}}, &answer)
                .isEmpty());
        QCOMPARE(answer.status, 400);
        QCOMPARE(errorOf(answer).value("code").toString(), QStringLiteral("invalid_request"));
        QVERIFY(createLight({{"environmentId", 7}}, &answer).isEmpty());
        QCOMPARE(answer.status, 400);
    }

    void testTheEnvironmentIsDeletedOnlyOnceItsWorkspacesAre() {
        QVERIFY(!createLight({{"environmentId", m_envId}}).isEmpty());
        const QByteArray path = "/v1/environments/" + m_envId.toUtf8();
        const ApiResponse refused = client().call("DELETE", path);
        QCOMPARE(refused.status, 409);
        QCOMPARE(errorOf(refused).value("code").toString(), QStringLiteral("environment_in_use"));
        QCOMPARE(client().call("DELETE", "/v1/workspaces?isolation=light", {}, 60000).status, 200);
        const ApiResponse deleted = client().call("DELETE", path);
        QVERIFY2(deleted.status == 200, deleted.body.constData());
        ApiResponse answer;
        QVERIFY(createLight({{"environmentId", m_envId}}, &answer).isEmpty());
        QCOMPARE(answer.status, 400);
    }

    void testAnUnprivilegedAgentRefusesWithTheReason() {
        // An agent that is not root has no light tier here (no mount namespace, no nosuid bind
        // of the light root): a create naming an environment is refused with the reason, never
        // made without it. (A light tier without a mount namespace refusing an environment:
        // test_light_environment_host.)
        AgentProcess unprivileged;
        AgentOptions options;
        options.extraEnv = {{"RUNBOX_LIGHT_UID_FIRST", "61100"},
                            {"RUNBOX_LIGHT_UID_COUNT", "16"},
                            {"RUNBOX_STRONG_UID_FIRST", "1884100000"},
                            {"RUNBOX_STRONG_UID_COUNT", "100"}};
        QVERIFY2(unprivileged.start(options), qPrintable(unprivileged.errorString()));
        ApiClient& api = *unprivileged.client();
        QVERIFY2(!unprivileged.createWorkspace().isEmpty(), // positive control: strong runs
                 qPrintable(unprivileged.log()));
        const ApiResponse refused =
            api.call("POST", "/v1/workspaces",
                     QJsonObject{{"isolation", "light"}, {"environmentId", m_envId}}, 60000);
        QCOMPARE(refused.status, 503);
        QVERIFY2(!errorOf(refused).value("message").toString().isEmpty(), refused.body.constData());
        QCOMPARE(unprivileged.workspaceCount(), 1);
    }
};

QTEST_GUILESS_MAIN(TestLightEnvironments)
#include "test_light_environments.moc"
