// The agents list shows a pool host's pool, capacity and free slots under its name (the fleet
// issue's console part; docs/contracts.md "Pool hosts"), read from the real agent's /v1/health
// and moving with it; an agent that carries no pool shows its name only.
#include "console/api/HealthReport.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/models/ProfileListModel.h"
#include "support/AgentProcess.h"

#include <QJsonObject>
#include <QTest>

using namespace runbox::console;
using namespace runbox::testsupport;

class TestAgentListPool final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testPoolSummaryReadsTheHealthAnswer() {
        const QJsonObject host{
            {"pool",
             QJsonObject{{"name", "team-a"}, {"capacity", 100}, {"workspaces", 40}, {"free", 60}}}};
        QCOMPARE(HealthReport(host).poolSummary(),
                 QStringLiteral("Pool team-a: 40 workspaces, capacity 100, 60 free"));
        QCOMPARE(HealthReport(QJsonObject{{"pool", QJsonObject{{"name", "b"}, {"capacity", 0}}}})
                     .poolSummary(),
                 QStringLiteral("Pool b: 0 workspaces, capacity 0, ? free"));
        QCOMPARE(HealthReport(QJsonObject{{"pool", QJsonValue::Null}}).poolSummary(), QString());
        QCOMPARE(HealthReport(QJsonObject{}).poolSummary(), QString());
    }

    void testAPoolHostShowsItsFreeSlots() {
        AgentProcess host;
        AgentOptions options;
        options.extraArgs = {"--pool", "team-a", "--pool-capacity", "3"};
        QVERIFY2(host.start(options), qPrintable(host.errorString() + host.log()));
        AgentProcess plain;
        QVERIFY2(plain.start(), qPrintable(plain.errorString()));

        TokenVault vault(QStringLiteral("runbox-console-test"), TokenVault::Backend::SessionOnly);
        ConnectionManager manager(&vault);
        ProfileListModel model(&manager);
        const AgentProfile hostProfile{AgentProfile::newId(), QStringLiteral("pool-1"),
                                       host.baseUrl()};
        const AgentProfile plainProfile{AgentProfile::newId(), QStringLiteral("plain"),
                                        plain.baseUrl()};
        model.setProfiles({hostProfile, plainProfile});
        manager.connectProfile(hostProfile, host.token());
        manager.connectProfile(plainProfile, plain.token());
        auto shown = [&](int row) { return model.index(row).data(Qt::DisplayRole).toString(); };
        QTRY_COMPARE_WITH_TIMEOUT(
            shown(0), QStringLiteral("pool-1\nPool team-a: 0 workspaces, capacity 3, 3 free"),
            20000);
        QTRY_COMPARE_WITH_TIMEOUT(manager.connection(plainProfile.id)->state(),
                                  AgentConnection::State::Connected, 20000);
        QCOMPARE(shown(1), QStringLiteral("plain"));

        // A workspace taken on the host: the next health poll moves the line.
        QVERIFY(!host.createWorkspace().isEmpty());
        manager.connection(hostProfile.id)->refreshHealth();
        QTRY_COMPARE_WITH_TIMEOUT(
            shown(0), QStringLiteral("pool-1\nPool team-a: 1 workspaces, capacity 3, 2 free"),
            20000);
        // Disconnected, it is a name again.
        manager.disconnectProfile(hostProfile.id);
        QTRY_COMPARE_WITH_TIMEOUT(shown(0), QStringLiteral("pool-1"), 5000);
    }
};

QTEST_MAIN(TestAgentListPool)
#include "test_agent_list_pool.moc"
