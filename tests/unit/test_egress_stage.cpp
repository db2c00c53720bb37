// EgressStage in the LaunchPlanner: mode none leaves the launch exactly as without egress; an
// allowlist epoch gets its own socket, the binds, the proxy variables, the Network profile and
// the bridge prefix, and releasing the plan closes the socket.
#include "agent/egress/EgressDecisionStore.h"
#include "agent/egress/EgressGateway.h"
#include "agent/egress/EgressGatewayPool.h"
#include "agent/egress/EgressService.h"
#include "agent/egress/EgressStage.h"
#include "agent/egress/NetworkEpoch.h"
#include "agent/egress/NetworkPolicyStore.h"
#include "agent/egress/Resolver.h"
#include "agent/store/Database.h"
#include "support/LaunchFds.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::execution;

class TestEgressStage final : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    SandboxHost m_host;
    std::unique_ptr<store::Database> m_db;
    std::unique_ptr<NetworkPolicyStore> m_policies;
    std::unique_ptr<EgressDecisionStore> m_decisions;
    std::unique_ptr<EgressService> m_service;
    std::unique_ptr<EgressStage> m_stage;

    LaunchContext context(const QString& id) const {
        LaunchContext c;
        c.executionId = id;
        c.workspaceId = QStringLiteral("w1");
        c.workspaceDir = m_dir.filePath("ws");
        c.request.kind = QStringLiteral("argv");
        c.request.argv = QStringList{QStringLiteral("python3"), QStringLiteral("x.py")};
        return c;
    }
    /// Plans @p c with @p planner; the planner answers synchronously (no stage waits).
    static std::shared_ptr<LaunchPlan> plan(const LaunchPlanner& planner, const LaunchContext& c,
                                            std::optional<Error>* error = nullptr) {
        std::shared_ptr<LaunchPlan> result;
        planner.plan(c, [&](std::optional<Error> err, std::shared_ptr<LaunchPlan> p) {
            if (error)
                *error = err;
            result = p;
        });
        return result;
    }
    void snapshot(LaunchContext* c) const { m_service->snapshotInto(&c->epoch); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_host.capability.usable = true;
        m_host.capability.bwrapPath = QStringLiteral("/usr/bin/bwrap");
        m_host.capability.usernsBlocking = sandbox::UsernsBlocking::Supported;
        m_host.seccompPaths = {{sandbox::SeccompProfileKind::Baseline, "/s/baseline.bpf"},
                               {sandbox::SeccompProfileKind::Network, "/s/network.bpf"}};
        m_host.stateDir = m_dir.path();
        QString error;
        m_db = store::Database::open(m_dir.filePath("state"), &error);
        QVERIFY2(m_db, qPrintable(error));
        m_policies = std::make_unique<NetworkPolicyStore>(*m_db);
        QVERIFY(!m_policies->initialize());
        m_decisions = std::make_unique<EgressDecisionStore>(*m_db);
        const QString bridge = m_dir.filePath("runbox-egress-bridge");
        QFile file(bridge);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.setPermissions(QFile::ReadOwner | QFile::ExeOwner);
        file.close();
        m_service = std::make_unique<EgressService>(
            EgressService::Options{
                m_dir.filePath("egress"), bridge, std::make_shared<SystemResolver>(), {}},
            m_policies.get(), m_decisions.get());
        m_stage = std::make_unique<EgressStage>(m_service.get());
    }

    void testModeNoneLeavesTheLaunchAsWithoutEgress() {
        LaunchPlanner bare(&m_host);
        LaunchPlanner withEgress(&m_host);
        withEgress.addStage(m_stage.get());
        LaunchContext c = context("e-none");
        snapshot(&c);
        QCOMPARE(NetworkEpoch::readFrom(c.epoch).mode, QStringLiteral("none"));
        const auto a = plan(bare, c), b = plan(withEgress, c);
        QVERIFY(a && b);
        QCOMPARE(b->launch.arguments, a->launch.arguments);
        QCOMPARE(b->launch.sandboxEnvironment, a->launch.sandboxEnvironment);
        QCOMPARE(b->launch.fds.size(), a->launch.fds.size());
        QCOMPARE(testsupport::fdPath(b->launch, sandbox::LaunchFd::kSeccomp),
                 QStringLiteral("/s/baseline.bpf"));
        QCOMPARE(b->launch.setupStatusFd, -1);
        QCOMPARE(b->launch.toJson(), a->launch.toJson());
        QVERIFY(b->releases.empty());
        QCOMPARE(m_service->pool()->gatewayCount(), 0);
    }

    void testAllowlistEpochGetsSocketBindsEnvProfileAndBridge() {
        NetworkPolicy applied;
        QVERIFY(!m_service->updatePolicy(
            QJsonObject{{"mode", "domain-allowlist"}, {"allowedDomains", QJsonArray{"pypi.org"}}},
            "agent", &applied));
        LaunchPlanner planner(&m_host);
        planner.addStage(m_stage.get());
        LaunchContext c = context("e-allow");
        snapshot(&c);
        QCOMPARE(NetworkEpoch::readFrom(c.epoch).revision, applied.revision());
        std::optional<Error> error;
        const auto p = plan(planner, c, &error);
        QVERIFY2(p, error ? qPrintable(error->message) : "no plan");
        const QStringList& args = p->launch.arguments;
        const QString socket =
            m_service->pool()->gateway(applied.revision())->socketPath("e-allow");
        QVERIFY(QFile::exists(socket));
        const qsizetype bind = args.indexOf("--bind");
        QVERIFY(bind > 0);
        QCOMPARE(args.mid(bind, 3), (QStringList{"--bind", socket, "/run/runbox/egress.sock"}));
        QVERIFY(args.join(' ').contains("--ro-bind " + m_dir.filePath("runbox-egress-bridge") +
                                        " /run/runbox/egress-bridge"));
        QVERIFY(!args.contains("--share-net"));
        QVERIFY(args.contains("--unshare-all"));
        QCOMPARE(testsupport::fdPath(p->launch, sandbox::LaunchFd::kSeccomp),
                 QStringLiteral("/s/network.bpf"));
        QCOMPARE(p->launch.setupStatusFd, 5);
        QCOMPARE(p->launch.sandboxEnvironment.value("https_proxy"),
                 QStringLiteral("http://127.0.0.1:18118"));
        QCOMPARE(p->launch.sandboxEnvironment.value("NO_PROXY"),
                 QStringLiteral("localhost,127.0.0.1"));
        const QStringList tail{"--",          "/run/runbox/egress-bridge",
                               "--socket",    "/run/runbox/egress.sock",
                               "--listen",    "127.0.0.1:18118",
                               "--status-fd", "5",
                               "--hand-over", "--",
                               "python3",     "x.py"};
        QCOMPARE(args.mid(args.size() - tail.size()), tail);
        // Provenance keeps the user's command, not the agent's prefix.
        QCOMPARE(p->launch.command, (QStringList{"python3", "x.py"}));
        p->release();
        QVERIFY(!QFile::exists(socket));
        QVERIFY(
            !m_service->pool()->gateway(applied.revision())->executionIds().contains("e-allow"));
    }

    void testEpochKeepsItsPolicyWhenTheSettingChanges() {
        QVERIFY(!m_service->updatePolicy(
            QJsonObject{{"mode", "domain-allowlist"}, {"allowedDomains", QJsonArray{"a.test"}}},
            "agent", nullptr));
        LaunchContext c = context("e-keep");
        snapshot(&c);
        const QString snapshotRevision = NetworkEpoch::readFrom(c.epoch).revision;
        QVERIFY(!m_service->updatePolicy(QJsonObject{{"mode", "none"}}, "agent", nullptr));
        LaunchPlanner planner(&m_host);
        planner.addStage(m_stage.get());
        const auto p = plan(planner, c);
        QVERIFY(p);
        QVERIFY(m_service->pool()->hasGateway(snapshotRevision)); // the old revision serves it
        QVERIFY(m_service->pool()->gateway(snapshotRevision)->policy().allows("a.test", 443));
        p->release();
        QVERIFY(!m_service->pool()->hasGateway(snapshotRevision)); // idle, not current: closed
    }

    void testTamperedSnapshotIsRefused() {
        LaunchContext c = context("e-bad");
        NetworkEpoch tampered;
        tampered.mode = QStringLiteral("domain-allowlist");
        tampered.policy =
            QJsonObject{{"mode", "domain-allowlist"}, {"allowedDomains", QJsonArray{"pypi.org"}}};
        tampered.revision = QStringLiteral("0123");
        tampered.writeInto(&c.epoch);
        LaunchPlanner planner(&m_host);
        planner.addStage(m_stage.get());
        std::optional<Error> error;
        QVERIFY(!plan(planner, c, &error));
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("invalid_network_snapshot"));
    }

    void testMissingBridgeIsEgressUnavailable() {
        EgressService service(EgressService::Options{m_dir.filePath("egress2"),
                                                     m_dir.filePath("no-such-bridge"),
                                                     std::make_shared<SystemResolver>(),
                                                     {}},
                              m_policies.get(), m_decisions.get());
        EgressStage stage(&service);
        QVERIFY(!m_service->updatePolicy(
            QJsonObject{{"mode", "domain-allowlist"}, {"allowedDomains", QJsonArray{"pypi.org"}}},
            "agent", nullptr));
        LaunchContext c = context("e-nobridge");
        service.snapshotInto(&c.epoch);
        LaunchPlanner planner(&m_host);
        planner.addStage(&stage);
        std::optional<Error> error;
        QVERIFY(!plan(planner, c, &error));
        QCOMPARE(error->code, QStringLiteral("egress_unavailable"));
        QVERIFY(error->message.contains("no-such-bridge"));
        QCOMPARE(service.healthJson().value("available").toBool(), false);
        QCOMPARE(service.healthJson().value("modes").toArray(), QJsonArray{"none"});
    }
};

QTEST_GUILESS_MAIN(TestEgressStage)
#include "test_egress_stage.moc"
