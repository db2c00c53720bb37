#include "agent/egress/EgressGateway.h"
#include "agent/egress/EgressGatewayPool.h"
#include "egress/EgressTestSupport.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::egress::testing;

namespace {

NetworkPolicy allowlist(const QStringList& domains) {
    ApiError error;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(
        QJsonObject{{"mode", "domain-allowlist"},
                    {"allowedDomains", QJsonArray::fromStringList(domains)}},
        &error);
    if (!policy)
        qFatal("%s", qPrintable(error.message));
    return *policy;
}

mode_t modeOf(const QString& path) {
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode;
}

} // namespace

class TestEgressGatewayPool final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<FakeResolver> m_resolver = std::make_shared<FakeResolver>();
    QString runtimeDir() const { return m_dir.filePath(QStringLiteral("egress")); }

private Q_SLOTS:
    void testAcquireCreatesOwnerOnlySocketsInASearchOnlyDirectory() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        const NetworkPolicy policy = allowlist({"pypi.org"});
        pool.setCurrentRevision(policy.revision());
        ApiError error;
        const std::optional<QString> path = pool.acquire(policy, QStringLiteral("exec-1"), &error);
        QVERIFY2(path, qPrintable(error.message));
        QVERIFY(path->startsWith(runtimeDir() + "/" + policy.revision().left(16) + "-"));
        QVERIFY(path->endsWith(".sock"));
        QVERIFY(S_ISSOCK(modeOf(*path)));
        QCOMPARE(modeOf(*path) & 0777, mode_t(0600));
        // Searchable, not listable: a sandbox user reaches its own socket by path, no other.
        QCOMPARE(modeOf(runtimeDir()) & 0777, mode_t(0711));
        QCOMPARE(pool.gatewayCount(), 1);
    }

    void testOneGatewayPerRevisionAndOneSocketPerExecution() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        const NetworkPolicy policy = allowlist({"pypi.org"});
        ApiError error;
        const std::optional<QString> a = pool.acquire(policy, QStringLiteral("a"), &error);
        const std::optional<QString> b = pool.acquire(policy, QStringLiteral("b"), &error);
        QVERIFY(a && b);
        QVERIFY(*a != *b);
        QCOMPARE(pool.gatewayCount(), 1);
        QCOMPARE(pool.gateway(policy.revision())->executionIds().size(), 2);
        QCOMPARE(*pool.acquire(policy, QStringLiteral("a"), &error), *a); // idempotent
    }

    void testModeNoneIsRefused() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        ApiError error;
        QVERIFY(!pool.acquire(NetworkPolicy(), QStringLiteral("x"), &error));
        QCOMPARE(error.httpStatus, 400);
        QCOMPARE(error.code, QStringLiteral("egress_policy_none"));
        QCOMPARE(pool.gatewayCount(), 0);
    }

    void testAnExecutionCannotSwitchRevision() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        ApiError error;
        QVERIFY(pool.acquire(allowlist({"a.example"}), QStringLiteral("x"), &error));
        QVERIFY(!pool.acquire(allowlist({"b.example"}), QStringLiteral("x"), &error));
        QCOMPARE(error.httpStatus, 409);
        QCOMPARE(error.code, QStringLiteral("egress_revision_conflict"));
    }

    void testOldRevisionLivesWhileUsedAndClosesAfterwards() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        const NetworkPolicy oldPolicy = allowlist({"a.example"});
        const NetworkPolicy newPolicy = allowlist({"b.example"});
        pool.setCurrentRevision(oldPolicy.revision());
        ApiError error;
        const std::optional<QString> oldSocket =
            pool.acquire(oldPolicy, QStringLiteral("running"), &error);
        QVERIFY(oldSocket);
        pool.setCurrentRevision(newPolicy.revision());
        QVERIFY(pool.hasGateway(oldPolicy.revision())); // still used by "running"
        QVERIFY(QFile::exists(*oldSocket));
        QVERIFY(pool.acquire(newPolicy, QStringLiteral("later"), &error));
        QCOMPARE(pool.gatewayCount(), 2);
        pool.release(QStringLiteral("running"));
        QVERIFY(!QFile::exists(*oldSocket));
        QVERIFY(!pool.hasGateway(oldPolicy.revision()));
        pool.release(QStringLiteral("later"));
        QVERIFY(pool.hasGateway(newPolicy.revision())); // current: kept for the next execution
        QCOMPARE(pool.gatewayCount(), 1);
        QCOMPARE(pool.gateway(newPolicy.revision())->executionIds().size(), 0);
    }

    void testIdleGatewayOfAReplacedRevisionIsClosedOnChange() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        const NetworkPolicy first = allowlist({"a.example"});
        pool.setCurrentRevision(first.revision());
        ApiError error;
        QVERIFY(pool.acquire(first, QStringLiteral("e"), &error));
        pool.release(QStringLiteral("e"));
        QVERIFY(pool.hasGateway(first.revision()));
        pool.setCurrentRevision(allowlist({"b.example"}).revision());
        QCOMPARE(pool.gatewayCount(), 0);
    }

    void testReleaseOfUnknownExecutionIsHarmless() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        pool.release(QStringLiteral("never-acquired"));
        QCOMPARE(pool.gatewayCount(), 0);
    }

    void testTooLongSocketPathIsAClearError() {
        EgressGatewayPool pool(m_dir.filePath(QString(120, QLatin1Char('d'))), m_resolver);
        ApiError error;
        QVERIFY(!pool.acquire(allowlist({"a.example"}), QStringLiteral("e"), &error));
        QCOMPARE(error.httpStatus, 503);
        QCOMPARE(error.code, QStringLiteral("egress_unavailable"));
        QVERIFY2(error.message.contains("shorten"), qPrintable(error.message));
        QCOMPARE(pool.gatewayCount(), 0);
    }

    void testDecisionsOfEveryGatewayReachThePool() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        QList<EgressDecision> decisions;
        connect(&pool, &EgressGatewayPool::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });
        ApiError error;
        const std::optional<QString> path =
            pool.acquire(allowlist({"a.example"}), QStringLiteral("exec-7"), &error);
        QVERIFY(path);
        QByteArray response;
        QVERIFY(runBeside(
            [&] { response = unixExchange(*path, "CONNECT other.example:443 HTTP/1.1\r\n\r\n"); }));
        QVERIFY(response.startsWith("HTTP/1.1 403"));
        QTRY_COMPARE(decisions.size(), 1);
        QCOMPARE(decisions.first().executionId, QStringLiteral("exec-7"));
        QCOMPARE(decisions.first().reason, QStringLiteral("not_in_allowlist"));
        const QJsonObject json = decisions.first().toJson();
        QCOMPARE(json.value("host").toString(), QStringLiteral("other.example"));
        QCOMPARE(json.value("port").toInt(), 443);
        QCOMPARE(json.value("allowed").toBool(), false);
        QVERIFY(json.value("at").toString().endsWith("Z"));
    }
};

QTEST_GUILESS_MAIN(TestEgressGatewayPool)
#include "test_egress_gateway_pool.moc"
