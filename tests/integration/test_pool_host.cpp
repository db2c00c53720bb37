// A pool host's own configuration (docs/contracts.md "Pool hosts"): --pool, --pool-capacity and
// --pool-labels reported on /v1/health, the capacity enforced by the host ("rejected"), and
// --exit-when-idle: the agent exits by itself, with status 0, once it has held no workspace and
// no execution for that long, and not while it holds one.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QJsonArray>
#include <QtTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

// This test's own uid ranges (root agents of other tests may run at the same time).
const QMap<QString, QString> kRootUidRanges{{"RUNBOX_STRONG_UID_FIRST", "1883000000"},
                                            {"RUNBOX_STRONG_UID_COUNT", "64"},
                                            {"RUNBOX_LIGHT_UID_FIRST", "1883100000"},
                                            {"RUNBOX_LIGHT_UID_COUNT", "64"}};

QJsonObject poolOf(AgentProcess& agent) {
    return agent.client()->call("GET", "/v1/health").json().value("pool").toObject();
}

ApiResponse create(AgentProcess& agent, const QJsonObject& body) {
    return agent.client()->call("POST", "/v1/workspaces", body);
}

} // namespace

class PoolHostTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testHealthShowsThePool() {
        AgentProcess plain;
        QVERIFY2(plain.start(), qPrintable(plain.errorString()));
        const QJsonObject health = plain.client()->call("GET", "/v1/health").json();
        QVERIFY(health.contains("pool"));
        QVERIFY(health.value("pool").isNull()); // positive control: no pool, no pool object

        AgentProcess host;
        AgentOptions options;
        options.extraArgs = {"--pool",        "alpha",    "--pool-capacity",  "3",
                             "--pool-labels", "zone=a,x", "--exit-when-idle", "600"};
        QVERIFY2(host.start(options), qPrintable(host.errorString()));
        const QJsonObject pool = poolOf(host);
        QCOMPARE(pool.value("name").toString(), QStringLiteral("alpha"));
        QCOMPARE(pool.value("capacity").toInt(), 3);
        QCOMPARE(pool.value("workspaces").toInt(), 0);
        QCOMPARE(pool.value("free").toInt(), 3);
        QCOMPARE(pool.value("labels").toArray(), QJsonArray({"zone=a", "x"}));
        QCOMPARE(pool.value("exitWhenIdleS").toInt(), 600);
        QVERIFY(!host.createWorkspace().isEmpty());
        QCOMPARE(poolOf(host).value("workspaces").toInt(), 1);
        QCOMPARE(poolOf(host).value("free").toInt(), 2);

        // A pool client names the pool it places in, and the host is the authority on it (a
        // client's cache may say otherwise): its own pool is served, any other refused.
        QCOMPARE(create(host, {{"pool", "alpha"}}).status, 201);
        for (AgentProcess* agent : {&host, &plain}) {
            const ApiResponse other = create(*agent, {{"pool", "beta"}});
            QCOMPARE(other.status, 409);
            QCOMPARE(other.errorCode(), QStringLiteral("pool_mismatch"));
        }
        QCOMPARE(create(host, {{"pool", 3}}).status, 400);
        QCOMPARE(poolOf(host).value("workspaces").toInt(), 2); // nothing made by the refusals
    }

    void testBadPoolOptionsStopTheAgent() {
        AgentProcess agent;
        AgentOptions options;
        options.startTimeoutMs = 5000;
        options.extraArgs = {"--pool", "a.b"}; // a '.' would break pooled ids HOST.ID
        QVERIFY(!agent.start(options));
        QVERIFY2(agent.log().contains("pool name"), qPrintable(agent.log()));
        AgentProcess orphan;
        options.extraArgs = {"--pool-capacity", "3"};
        QVERIFY(!orphan.start(options));
        QVERIFY2(orphan.log().contains("need --pool"), qPrintable(orphan.log()));
    }

    void testStrongCapacityIsEnforced() {
        AgentProcess host;
        AgentOptions options;
        options.extraArgs = {"--pool", "beta", "--pool-capacity", "2"};
        QVERIFY2(host.start(options), qPrintable(host.errorString()));
        for (int i = 0; i < 2; ++i) { // positive control: within capacity, made
            const ApiResponse r = create(host, {});
            QCOMPARE(r.status, 201);
            QCOMPARE(r.json().value("workspaces").toArray().size(), 1);
            QCOMPARE(r.json().value("rejected").toInt(), 0);
        }
        const ApiResponse full = create(host, {});
        QCOMPARE(full.status, 201);
        QCOMPARE(full.json().value("workspaces").toArray().size(), 0);
        QCOMPARE(full.json().value("rejected").toInt(), 1);
        QCOMPARE(host.workspaceCount(), 2);
        QCOMPARE(poolOf(host).value("free").toInt(), 0);
    }

    void testLightCapacityIsEnforced() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("light workspaces need a root agent");
        AgentProcess host;
        AgentOptions options;
        options.runAsRoot = true;
        options.extraEnv = kRootUidRanges;
        options.extraArgs = {"--pool", "gamma", "--pool-capacity", "5"};
        QVERIFY2(host.start(options), qPrintable(host.errorString()));
        const QJsonObject light =
            host.client()->call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable("light tier unavailable here: " + light.value("reason").toString()));
        ApiResponse r = create(host, {{"isolation", "light"}, {"count", 3}});
        QCOMPARE(r.status, 201);
        QCOMPARE(r.json().value("workspaces").toArray().size(), 3); // positive control
        r = create(host, {{"isolation", "light"}, {"count", 4}});
        QCOMPARE(r.status, 201);
        QCOMPARE(r.json().value("workspaces").toArray().size(), 2);
        QCOMPARE(r.json().value("rejected").toInt(), 2);
        for (int bad : {0, 4097}) { // a bad count stays the tier's 400, never clamped
            r = create(host, {{"isolation", "light"}, {"count", bad}});
            QCOMPARE(r.status, 400);
            QCOMPARE(r.errorCode(), QStringLiteral("invalid_count"));
        }
        r = create(host, {}); // a strong one counts against the same capacity
        QCOMPARE(r.json().value("rejected").toInt(), 1);
        QCOMPARE(host.workspaceCount(), 5);
    }

    void testExitsWhenIdleButNotWhileInUse() {
        AgentProcess agent;
        AgentOptions options;
        options.extraArgs = {"--exit-when-idle", "2"};
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QJsonObject idle =
            agent.client()->call("GET", "/v1/health").json().value("idle").toObject();
        QCOMPARE(idle.value("exitWhenIdleS").toInt(), 2); // said whether pool host or not
        const QString ws = agent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        // Held workspace and a running execution: well past the idle time, it stays.
        const ExecOutcome slow = agent.shell(ws, "sleep 4; echo done");
        QCOMPARE(slow.exitCode(), 0);
        QTest::qWait(2500);
        QVERIFY2(agent.isRunning(), qPrintable(agent.log()));
        const ApiResponse del = agent.client()->call("DELETE", "/v1/workspaces/" + ws.toUtf8(), {});
        QCOMPARE(del.status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(!agent.isRunning(), 15000);
        QVERIFY2(agent.stop(), qPrintable(agent.log())); // exited by itself, status 0
        QVERIFY2(agent.log().contains("--exit-when-idle"), qPrintable(agent.log()));
    }

    void testEvictedLightWorkspacesLetTheHostExit() {
        // The pooled design's two idle levels: a light workspace is evicted after its own idle
        // timeout, then the empty host exits after its own.
        if (!AgentProcess::runningAsRoot())
            QSKIP("light workspaces need a root agent");
        AgentProcess host;
        AgentOptions options;
        options.runAsRoot = true;
        options.extraEnv = kRootUidRanges;
        options.extraArgs = {"--pool", "delta", "--exit-when-idle", "2"};
        QVERIFY2(host.start(options), qPrintable(host.errorString()));
        const QJsonObject light =
            host.client()->call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable("light tier unavailable here: " + light.value("reason").toString()));
        const ApiResponse r =
            create(host, {{"isolation", "light"}, {"count", 2}, {"idleTimeoutS", 1}});
        QCOMPARE(r.json().value("workspaces").toArray().size(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(!host.isRunning(), 20000);
        QVERIFY2(host.stop(), qPrintable(host.log()));
        QVERIFY2(host.log().contains("idle light workspace(s) evicted"), qPrintable(host.log()));
        QVERIFY2(host.log().contains("--exit-when-idle"), qPrintable(host.log()));
    }

    void testUnusedHostExitsToo() {
        AgentProcess agent;
        AgentOptions options;
        options.extraArgs = {"--exit-when-idle", "3"};
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(!agent.isRunning(), 15000);
        QVERIFY2(agent.stop(), qPrintable(agent.log()));
    }
};

QTEST_GUILESS_MAIN(PoolHostTest)
#include "test_pool_host.moc"
