// A light workspace's science environment is chosen when it is created (docs/environments.md
// "Selection": its Landlock domain and mount namespace are fixed then): an exec in a workspace
// created without one that names an environment, sync or managed, is refused with 409
// environment_mismatch before anything runs, through the real agent running as root. Positive
// control: the same exec without it runs. (Workspaces created with one:
// test_light_environments.)
#include "LightAgentFixture.h"

#include <QtTest>

using namespace lightagent;

class TestLightEnvironmentRefusal final : public QObject {
    Q_OBJECT
private:
    Agent m_agent;
    Workspace m_ws;

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root");
        QString error;
        QVERIFY2(m_agent.start(
                     {{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("56000")},
                      {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("16")},
                      {QStringLiteral("RUNBOX_STRONG_UID_FIRST"), QStringLiteral("1880000000")}},
                     &error),
                 qPrintable(error));
        const QJsonObject light =
            m_agent.client().call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(light.value("reason").toString()));
        m_ws = m_agent.createOne();
        QVERIFY2(!m_ws.id.isEmpty(), qPrintable(m_agent.log()));
    }

    void testSyncExecNamingAnEnvironmentIsRefused() {
        const Outcome plain = sh(m_agent.client(), m_ws.id, "echo ran");
        QCOMPARE(plain.status(), QStringLiteral("completed")); // positive control
        QCOMPARE(plain.out, QByteArray("ran\n"));
        const Outcome refused =
            exec(m_agent.client(), m_ws.id,
                 {{"kind", "shell"}, {"code", "echo ran"}, {"environmentId", "e0123456789abcdef"}});
        QCOMPARE(refused.httpStatus, 409);
        QCOMPARE(refused.errorCode(), QStringLiteral("environment_mismatch"));
        QVERIFY(refused.out.isEmpty());
    }

    void testManagedExecNamingAnEnvironmentIsRefused() {
        const auto count = [this] {
            return m_agent.client()
                .call("GET", "/v1/executions?limit=1000")
                .json()
                .value("executions")
                .toArray()
                .size();
        };
        const qsizetype before = count();
        const ApiResponse ok =
            m_agent.client().call("POST", "/v1/executions",
                                  {{"workspace", m_ws.id}, {"kind", "shell"}, {"code", "true"}});
        QCOMPARE(ok.status, 202); // positive control: a record is made
        QCOMPARE(count(), before + 1);
        const ApiResponse refused =
            m_agent.client().call("POST", "/v1/executions",
                                  {{"workspace", m_ws.id},
                                   {"kind", "shell"},
                                   {"code", "true"},
                                   {"environmentRevisionId", "r0123456789abcdef"}});
        QCOMPARE(refused.status, 409);
        QCOMPARE(refused.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("environment_mismatch"));
        QCOMPARE(count(), before + 1);
    }
};

QTEST_GUILESS_MAIN(TestLightEnvironmentRefusal)
#include "test_light_environment_refusal.moc"
