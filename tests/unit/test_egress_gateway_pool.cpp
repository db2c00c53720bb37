#include "agent/egress/EgressGateway.h"
#include "agent/egress/EgressGatewayPool.h"
#include "agent/http/ErrorStatus.h"
#include "egress/EgressTestSupport.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::egress::testing;

namespace {

NetworkPolicy allowlist(const QStringList& domains) {
    Error error;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(
        QJsonObject{{"mode", "domain-allowlist"},
                    {"allowedDomains", QJsonArray::fromStringList(domains)}},
        &error);
    if (!policy)
        qFatal("%s", qPrintable(error.message));
    return *policy;
}

/// A listening TCP socket on 127.0.0.1 (what a light supervisor hands over, made here in the
/// test's own namespace); its port in @p port.
int tcpListener(quint16* port, bool listening = true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        (listening && ::listen(fd, 16) != 0) ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        qFatal("cannot make a TCP listener");
    *port = ntohs(address.sin_port);
    return fd;
}

QByteArray tcpExchange(quint16 port, const QByteArray& request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return {};
    }
    return exchangeOn(fd, request);
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
        Error error;
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
        Error error;
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
        Error error;
        QVERIFY(!pool.acquire(NetworkPolicy(), QStringLiteral("x"), &error));
        QCOMPARE(http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("egress_policy_none"));
        QCOMPARE(pool.gatewayCount(), 0);
    }

    void testAnExecutionCannotSwitchRevision() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        Error error;
        QVERIFY(pool.acquire(allowlist({"a.example"}), QStringLiteral("x"), &error));
        QVERIFY(!pool.acquire(allowlist({"b.example"}), QStringLiteral("x"), &error));
        QCOMPARE(http::httpStatus(error.kind), 409);
        QCOMPARE(error.code, QStringLiteral("egress_revision_conflict"));
    }

    void testOldRevisionLivesWhileUsedAndClosesAfterwards() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        const NetworkPolicy oldPolicy = allowlist({"a.example"});
        const NetworkPolicy newPolicy = allowlist({"b.example"});
        pool.setCurrentRevision(oldPolicy.revision());
        Error error;
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
        Error error;
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
        Error error;
        QVERIFY(!pool.acquire(allowlist({"a.example"}), QStringLiteral("e"), &error));
        QCOMPARE(http::httpStatus(error.kind), 503);
        QCOMPARE(error.code, QStringLiteral("egress_unavailable"));
        QVERIFY2(error.message.contains("shorten"), qPrintable(error.message));
        QCOMPARE(pool.gatewayCount(), 0);
    }

    void testWorkspaceListenerDecisionsCarryTheWorkspace() {
        QList<EgressDecision> decisions; // outlives the pool, whose closing still reports
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        connect(&pool, &EgressGatewayPool::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });
        const NetworkPolicy policy = allowlist({"a.example"});
        quint16 port = 0;
        QVERIFY(!pool.adoptWorkspaceListener(policy, QStringLiteral("ws-1"), tcpListener(&port)));
        QVERIFY(pool.gateway(policy.revision())->workspaceIds().contains("ws-1"));
        QByteArray response;
        QVERIFY(runBeside(
            [&] { response = tcpExchange(port, "CONNECT other.example:443 HTTP/1.1\r\n\r\n"); }));
        QVERIFY2(response.startsWith("HTTP/1.1 403"), response.constData());
        QTRY_COMPARE(decisions.size(), 1);
        QCOMPARE(decisions.first().workspaceId, QStringLiteral("ws-1"));
        QCOMPARE(decisions.first().executionId, QString());
        QCOMPARE(decisions.first().toJson().value("workspaceId").toString(),
                 QStringLiteral("ws-1"));
        // Released: the listener is closed and the idle, non-current gateway goes.
        pool.releaseWorkspace(QStringLiteral("ws-1"));
        QVERIFY(!pool.hasGateway(policy.revision()));
        QVERIFY(runBeside([&] { response = tcpExchange(port, "GET / HTTP/1.1\r\n\r\n"); }));
        QVERIFY(response.isEmpty());
    }

    void testOneSandboxCannotHoldMoreThanItsConnections() {
        EgressGatewayOptions options;
        options.maxConnectionsPerSandbox = 2;
        EgressGatewayPool pool(runtimeDir(), m_resolver, options);
        quint16 port = 0;
        QVERIFY(!pool.adoptWorkspaceListener(allowlist({"a.example"}), QStringLiteral("ws"),
                                             tcpListener(&port)));
        // Three stalled clients (no head): the first two are held, the third is closed.
        QList<int> clients;
        for (int i = 0; i < 3; ++i) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_port = htons(port);
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            QCOMPARE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
            clients << fd;
            QTest::qWait(100); // accepted in order
        }
        const auto closedByGateway = [](int fd) {
            char byte;
            return ::recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
        };
        QTRY_VERIFY(closedByGateway(clients[2]));
        QVERIFY(!closedByGateway(clients[0]));
        QVERIFY(!closedByGateway(clients[1]));
        // One ends: room for the next.
        ::close(clients[0]);
        QTest::qWait(200);
        const int next = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::connect(next, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        QTest::qWait(300);
        QVERIFY(!closedByGateway(next));
        for (int fd : {clients[1], clients[2], next})
            ::close(fd);
    }

    void testOnlyAListeningTcpSocketIsAdopted() {
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        quint16 port = 0;
        const int bound = tcpListener(&port, false);
        const std::optional<Error> error =
            pool.adoptWorkspaceListener(allowlist({"a.example"}), QStringLiteral("ws"), bound);
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("egress_unavailable"));
        QCOMPARE(::fcntl(bound, F_GETFD), -1); // taken and closed, not leaked
        QCOMPARE(pool.gatewayCount(), 0);
        const int mode = tcpListener(&port);
        QCOMPARE(pool.adoptWorkspaceListener(NetworkPolicy(), QStringLiteral("ws"), mode)->code,
                 QStringLiteral("egress_policy_none"));
    }

    void testDecisionsOfEveryGatewayReachThePool() {
        QList<EgressDecision> decisions; // outlives the pool, whose closing still reports
        EgressGatewayPool pool(runtimeDir(), m_resolver);
        connect(&pool, &EgressGatewayPool::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });
        Error error;
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
