#pragma once
// The set-up shared by the egress gateway attacks (test_egress_gateway, test_egress_handover):
// a fake resolver that maps the test names, the canary HTTP server on 127.0.0.1 that counts
// every connection (a refusal must leave it at zero), the policies, and a gateway run beside a
// blocking client on its real unix socket.

#include "agent/egress/EgressGateway.h"
#include "agent/egress/NetworkPolicy.h"
#include "egress/EgressTestSupport.h"

#include <QJsonArray>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace runbox::egress::testing {

/// Base of the gateway test classes: owns the canary, the resolver and a scratch directory for
/// sockets. The test class calls prepareGatewayFixture() from initTestCase() and
/// resetGatewayFixture() from init().
class EgressGatewayFixture : public QObject {
protected:
    /// What a client sent through a gateway got back, and the decisions the gateway made.
    struct Result {
        QByteArray response;
        QList<EgressDecision> decisions;
    };

    /// A domain-allowlist policy of @p domains with @p cidrs allowed as private ranges.
    static NetworkPolicy policyFrom(const QStringList& domains, const QStringList& cidrs) {
        Error error;
        const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(
            QJsonObject{{"mode", "domain-allowlist"},
                        {"allowedDomains", QJsonArray::fromStringList(domains)},
                        {"allowPrivateCidrs", QJsonArray::fromStringList(cidrs)}},
            &error);
        if (!policy)
            qFatal("%s", qPrintable(error.message));
        return *policy;
    }

    static QStringList allowedDomains() {
        return {"mirror.test",   "example.test", "*.wild.test", "mapped.test", "metadata.test",
                "mixed.test",    "rebind.test",  "multi.test",  "down.test",   "nowhere.test",
                "ported.test:1", "slow.test",    "idle.test",   "half.test"};
    }

    static QByteArray statusLine(const QByteArray& response) {
        return response.left(response.indexOf("\r\n"));
    }

    /// The value of `X-Runbox-Egress-Reason` in @p response; empty when absent.
    static QByteArray reasonHeader(const QByteArray& response) {
        const qsizetype at = response.indexOf("X-Runbox-Egress-Reason: ");
        if (at < 0)
            return {};
        const qsizetype start = at + 24;
        return response.mid(start, response.indexOf("\r\n", start) - start);
    }

    static QByteArray connectTo(const QByteArray& authority) {
        return "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    }

    NetworkPolicy allowLoopback() const { return policyFrom(allowedDomains(), {"127.0.0.0/8"}); }
    NetworkPolicy strict() const { return policyFrom(allowedDomains(), {}); }

    /// Maps the test names in the resolver; false when the directory or the canary is missing.
    bool prepareGatewayFixture() {
        if (!m_dir.isValid() || m_canary.port() == 0)
            return false;
        m_port = QString::number(m_canary.port());
        for (const char* name :
             {"mirror.test", "example.test", "a.wild.test", "wild.test", "evilexample.test",
              "example.test.evil.test", "other.test", "ported.test", "localhost", "evil.test"})
            m_resolver->map(QString::fromLatin1(name), {"127.0.0.1"});
        m_resolver->map("mapped.test", {"::ffff:127.0.0.1"});
        m_resolver->map("metadata.test", {"169.254.169.254"});
        m_resolver->map("mixed.test", {"127.0.0.1", "93.184.216.34"});
        m_resolver->map("rebind.test", {"93.184.216.34", "127.0.0.1"});
        m_resolver->map("multi.test", {"127.0.0.3", "127.0.0.1"});
        m_resolver->map("nowhere.test", {});
        return true;
    }

    /// Forgets the canary's connections and the resolver's lookups (before each test).
    void resetGatewayFixture() {
        m_canary.reset();
        m_resolver->lookups.clear();
    }

    /// Runs @p client on a thread beside a gateway for @p policy listening on a fresh socket
    /// (execution "exec-1"; the client gets its path), then serves the gateway until
    /// @p waitForDecision ? a decision was made (10 s at most) : its connections are closed
    /// (2 s at most). The decisions made by then.
    QList<EgressDecision> runGateway(const NetworkPolicy& policy,
                                     const EgressGatewayOptions& options,
                                     const std::function<void(const QString& path)>& client,
                                     bool waitForDecision) {
        QList<EgressDecision> decisions; // outlives the gateway, whose closing still reports
        EgressGateway gateway(policy, m_resolver, options);
        const QString path = m_dir.filePath(QStringLiteral("gw.sock"));
        QString error;
        if (!gateway.listen(path, QStringLiteral("exec-1"), &error))
            qFatal("%s", qPrintable(error));
        connect(&gateway, &EgressGateway::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });
        if (!runBeside([&] { client(path); }))
            qWarning("client did not finish");
        // Decisions come as the connection closes.
        QDeadlineTimer deadline(waitForDecision ? 10000 : 2000);
        while (!deadline.hasExpired() &&
               (waitForDecision ? decisions.isEmpty() : gateway.activeConnectionCount() > 0))
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QCoreApplication::processEvents();
        return decisions;
    }

    /// Starts a gateway for @p policy on a fresh socket and runs @p request through it.
    Result exchange(const NetworkPolicy& policy, const QByteArray& request,
                    const EgressGatewayOptions& options = {}, bool halfClose = true) {
        Result result;
        result.decisions = runGateway(
            policy, options,
            [&](const QString& path) { result.response = unixExchange(path, request, halfClose); },
            true);
        return result;
    }

    QTemporaryDir m_dir;
    CanaryHttpServer m_canary;
    std::shared_ptr<FakeResolver> m_resolver = std::make_shared<FakeResolver>();
    QString m_port; ///< the canary's port, as text
};

} // namespace runbox::egress::testing
