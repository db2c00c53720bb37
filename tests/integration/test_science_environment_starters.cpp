// The starter environments (docs/environments.md "Starters"): `starter-python` is built on the
// first execution that names it, from RUNBOX_ENV_STARTER_PYTHON_PACKAGES and the offline
// wheelhouse, again when that setting changed, is read-only, and is off with
// RUNBOX_ENV_STARTERS=0. The real agent, no network.
#include "support/AgentProcess.h"
#include "support/EnvironmentApi.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

const QByteArray kStarter = "starter-python";

/// The starter entry of /v1/health `scientificEnvs.starters`.
QJsonObject starterHealth(ApiClient& client, const QString& id) {
    const QJsonObject starters = client.call("GET", "/v1/health")
                                     .json()
                                     .value("scientificEnvs")
                                     .toObject()
                                     .value("starters")
                                     .toObject();
    for (const QJsonValue& s : starters.value("environments").toArray())
        if (s["id"].toString() == id)
            return s.toObject();
    return {};
}

/// The execution id of the starter's latest revision ("" when it has none).
QString latestBuild(ApiClient& client) {
    const QJsonArray revisions = client.call("GET", "/v1/environments/" + kStarter + "/revisions")
                                     .json()
                                     .value("revisions")
                                     .toArray();
    return revisions.isEmpty() ? QString() : revisions.last()["executionId"].toString();
}

} // namespace

class TestScienceEnvironmentStarters final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_wheelhouse;
    AgentProcess m_agent;
    AgentOptions m_options;
    ApiClient& client() { return *m_agent.client(); }

    ExecOutcome importIn(const QString& workspace, const QString& module) {
        return m_agent.shell(
            workspace,
            QStringLiteral("python3 -c 'import sys, %1; print(sys.prefix, %1.X)'").arg(module),
            {{"environmentId", QString::fromLatin1(kStarter)}});
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(openToSandboxes(m_wheelhouse.path()));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkga", "1.0", "X = 'a1'"));
        QVERIFY(writeWheel(m_wheelhouse.path(), "pkgb", "1.0", "X = 'b1'", "pkga"));
        m_options.extraEnv.insert("RUNBOX_ENV_WHEELHOUSE", m_wheelhouse.path());
        m_options.extraEnv.insert("RUNBOX_ENV_STARTER_PYTHON_PACKAGES", "pkgb");
        m_options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1881530000");
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
    }

    void testNothingIsBuiltBeforeTheFirstUse() {
        const QJsonObject health = starterHealth(client(), kStarter);
        QCOMPARE(health.value("status").toString(), QStringLiteral("not_built"));
        QCOMPARE(health.value("packages").toArray(), (QJsonArray{"pkgb"}));
        QCOMPARE(starterHealth(client(), "starter-r").value("status").toString(),
                 QStringLiteral("not_built"));
        QCOMPARE(client().call("GET", "/v1/environments/" + kStarter).status, 404);
        QVERIFY(client()
                    .call("GET", "/v1/environments")
                    .json()
                    .value("environments")
                    .toArray()
                    .isEmpty());
    }

    void testTheFirstUseBuildsItAndLaterExecutionsRunInIt() {
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome first = importIn(ws, "pkgb");
        QCOMPARE(first.httpStatus, 409);
        QVERIFY2(first.errorBody.contains("environment_not_ready") &&
                     first.errorBody.contains("first use"),
                 first.errorBody.constData());
        const QJsonObject environment = environmentOf(client(), QString::fromLatin1(kStarter));
        QCOMPARE(environment.value("language").toString(), QStringLiteral("python"));
        QCOMPARE(environment.value("provisioner").toString(), QStringLiteral("venv"));
        const QString build = latestBuild(client());
        QVERIFY(!build.isEmpty());
        QVERIFY2(first.errorBody.contains(build.toUtf8()), first.errorBody.constData());
        // A second use while it builds starts nothing more.
        QCOMPARE(importIn(ws, "pkgb").httpStatus, 409);
        QCOMPARE(revisionCountOf(client(), QString::fromLatin1(kStarter)), 1);
        QCOMPARE(waitForBuildRecord(client(), build).value("state").toString(),
                 QStringLiteral("completed"));
        const ExecOutcome run = importIn(ws, "pkgb");
        QCOMPARE(run.status(), QStringLiteral("completed"));
        QCOMPARE(run.stdoutText().trimmed(), QStringLiteral("/opt/science-env b1"));
        QCOMPARE(importIn(ws, "pkga").stdoutText().trimmed(),
                 QStringLiteral("/opt/science-env a1"));
        QCOMPARE(revisionCountOf(client(), QString::fromLatin1(kStarter)), 1);
        QCOMPARE(starterHealth(client(), kStarter).value("status").toString(),
                 QStringLiteral("ready"));
        QStringList snapshot =
            snapshotOf(client(), environmentOf(client(), QString::fromLatin1(kStarter))
                                     .value("currentRevisionId")
                                     .toString());
        QVERIFY2(snapshot.contains("pkga=1.0") && snapshot.contains("pkgb=1.0"),
                 qPrintable(snapshot.join(' ')));
    }

    void testItIsReadOnly() {
        for (const char* verb : {"install", "uninstall"}) {
            const ApiResponse r = client().call("POST", "/v1/environments/" + kStarter + '/' + verb,
                                                QJsonObject{{"packages", QJsonArray{"pkga"}}});
            QCOMPARE(r.status, 409);
            QCOMPARE(errorOf(r).value("code").toString(), QStringLiteral("starter_read_only"));
        }
        const ApiResponse removed = client().call("DELETE", "/v1/environments/" + kStarter);
        QCOMPARE(removed.status, 409);
        QCOMPARE(errorOf(removed).value("code").toString(), QStringLiteral("starter_read_only"));
        for (const char* name : {"starter-python", "starter-r"}) {
            const ApiResponse taken = client().call(
                "POST", "/v1/environments",
                QJsonObject{{"name", name}, {"language", name[8] == 'r' ? "r" : "python"}});
            QCOMPARE(taken.status, 400);
            QCOMPARE(errorOf(taken).value("code").toString(),
                     QStringLiteral("invalid_environment_name"));
        }
        // Positive control: another name is accepted.
        QCOMPARE(client()
                     .call("POST", "/v1/environments",
                           QJsonObject{{"name", "starter python"}, {"language", "python"}})
                     .status,
                 201);
        QCOMPARE(revisionCountOf(client(), QString::fromLatin1(kStarter)), 1);
    }

    void testAChangedSettingIsBuiltOnTheNextUseWhileTheOldRevisionServes() {
        const QString before = environmentOf(client(), QString::fromLatin1(kStarter))
                                   .value("currentRevisionId")
                                   .toString();
        QVERIFY(m_agent.stop());
        AgentOptions changed = m_options;
        changed.extraEnv.insert("RUNBOX_ENV_STARTER_PYTHON_PACKAGES", "pkga");
        QVERIFY2(m_agent.start(changed), qPrintable(m_agent.errorString()));
        QCOMPARE(revisionCountOf(client(), QString::fromLatin1(kStarter)), 1); // not at start
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome old = importIn(ws, "pkgb");
        QCOMPARE(old.stdoutText().trimmed(), QStringLiteral("/opt/science-env b1"));
        QCOMPARE(revisionCountOf(client(), QString::fromLatin1(kStarter)), 2);
        QCOMPARE(waitForBuildRecord(client(), latestBuild(client())).value("state").toString(),
                 QStringLiteral("completed"));
        QVERIFY(environmentOf(client(), QString::fromLatin1(kStarter))
                    .value("currentRevisionId")
                    .toString() != before);
        QCOMPARE(importIn(ws, "pkga").stdoutText().trimmed(),
                 QStringLiteral("/opt/science-env a1"));
        const ExecOutcome gone = importIn(ws, "pkgb");
        QCOMPARE(gone.exitCode(), 1);
        QVERIFY2(gone.stderrText().contains("No module named 'pkgb'"),
                 qPrintable(gone.stderrText()));
        QCOMPARE(revisionCountOf(client(), QString::fromLatin1(kStarter)), 2);
    }

    void testTurnedOffOrMisconfiguredStartersAreRefusedWithNothingBuilt() {
        struct Case {
            const char* variable;
            const char* value;
            int status;
            const char* code;
        };
        const Case cases[] = {
            {"RUNBOX_ENV_STARTERS", "0", 400, "unknown_environment"},
            {"RUNBOX_ENV_STARTER_PYTHON_PACKAGES", "--extra-index-url=http://evil pkga", 503,
             "starter_misconfigured"},
        };
        for (const Case& c : cases) {
            AgentProcess agent;
            AgentOptions options = m_options;
            options.extraEnv.insert(c.variable, c.value);
            QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
            const QString ws = agent.createWorkspace();
            const ExecOutcome refused =
                agent.shell(ws, "true", {{"environmentId", "starter-python"}});
            QCOMPARE(refused.httpStatus, c.status);
            QVERIFY2(refused.errorBody.contains(c.code), refused.errorBody.constData());
            QVERIFY2(refused.errorBody.contains(c.variable), refused.errorBody.constData());
            QCOMPARE(agent.client()->call("GET", "/v1/environments/starter-python").status, 404);
            QCOMPARE(starterHealth(*agent.client(), "starter-python").value("status").toString(),
                     QStringLiteral("not_built"));
        }
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentStarters)
#include "test_science_environment_starters.moc"
