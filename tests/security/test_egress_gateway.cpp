// The egress gateway's decisions, attacked over its real unix socket (docs/contracts.md "Egress
// gateway"): allowed tunnels and forwards, and every refusal (IP literals, private answers, names
// outside the allowlist, Host disagreements, malformed requests) with a canary TCP server on
// 127.0.0.1 that counts every connection: a refusal must leave it at zero. Sockets handed over by
// the bridge: test_egress_handover.

#include "EgressGatewayFixture.h"
#include "agent/egress/AddressClassifier.h"
#include "agent/egress/Resolver.h"

#include <QSignalSpy>
#include <QTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::egress::testing;

class TestEgressGateway final : public EgressGatewayFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(prepareGatewayFixture()); }
    void init() { resetGatewayFixture(); }

    void testConnectTunnelCarriesBytesBothWaysWithHalfClose() {
        HalfCloseEchoServer upstream;
        m_resolver->map("half.test", {"127.0.0.1"});
        const QByteArray authority = "half.test:" + QByteArray::number(upstream.port());
        const QByteArray payload(300 * 1024, 'x'); // larger than any one buffer on the way
        const Result r = exchange(allowLoopback(), connectTo(authority) + payload);
        QCOMPARE(statusLine(r.response), QByteArray("HTTP/1.1 200 Connection Established"));
        const QByteArray tunnelled = r.response.mid(r.response.indexOf("\r\n\r\n") + 4);
        QCOMPARE(tunnelled.size(), payload.size() + 5);
        QVERIFY(tunnelled == "ECHO:" + payload);
        QCOMPARE(upstream.connections.load(), 1);
        QCOMPARE(r.decisions.size(), 1);
        const EgressDecision& d = r.decisions.first();
        QVERIFY(d.allowed);
        QCOMPARE(d.reason, QStringLiteral("allowed"));
        QCOMPARE(d.executionId, QStringLiteral("exec-1"));
        QCOMPARE(d.host, QStringLiteral("half.test"));
        QCOMPARE(d.port, int(upstream.port()));
        QCOMPARE(d.bytesUp, qint64(payload.size()));
        QCOMPARE(d.bytesDown, qint64(payload.size() + 5));
        QVERIFY(d.at.isValid());
        QCOMPARE(m_resolver->lookups.value("half.test"), 1);
    }

    void testAbsoluteFormGetIsForwardedWithHostRebuiltAndProxyHeadersRemoved() {
        const QByteArray request = "GET http://mirror.test:" + m_port.toLatin1() +
                                   "/simple/pkg?x=1 HTTP/1.1\r\n"
                                   "Host: mirror.test:" +
                                   m_port.toLatin1() +
                                   "\r\n"
                                   "Proxy-Authorization: Basic Zm9vOmJhcg==\r\n"
                                   "Proxy-Connection: keep-alive\r\n"
                                   "Connection: keep-alive, X-Hop\r\n"
                                   "X-Hop: secret\r\n"
                                   "Keep-Alive: timeout=5\r\n"
                                   "TE: trailers\r\n"
                                   "User-Agent: runbox-test\r\n\r\n";
        const Result r = exchange(allowLoopback(), request);
        QCOMPARE(statusLine(r.response), QByteArray("HTTP/1.1 200 OK"));
        QVERIFY(r.response.endsWith("\r\n\r\nhello"));
        QCOMPARE(m_canary.connections, 1);
        const QByteArray upstream = m_canary.requests.value(0);
        QVERIFY2(upstream.startsWith("GET /simple/pkg?x=1 HTTP/1.1\r\nHost: mirror.test:" +
                                     m_port.toLatin1() + "\r\n"),
                 upstream.constData());
        QVERIFY(upstream.contains("User-Agent: runbox-test\r\n"));
        QVERIFY(upstream.contains("Connection: close\r\n"));
        for (const char* gone : {"Proxy-", "X-Hop", "Keep-Alive", "TE:", "keep-alive"})
            QVERIFY2(!upstream.contains(gone), gone);
        QCOMPARE(upstream.count("Host:"), 1);
        QCOMPARE(r.decisions.size(), 1);
        QVERIFY(r.decisions.first().allowed);
        QCOMPARE(r.decisions.first().bytesUp, qint64(upstream.size()));
        QCOMPARE(r.decisions.first().bytesDown, qint64(r.response.size()));
    }

    void testRequestBodiesAreForwarded_data() {
        QTest::addColumn<QByteArray>("framing");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("expectedUpstreamBody");
        QTest::newRow("content-length") << QByteArray("Content-Length: 11\r\n")
                                        << QByteArray("hello world") << QByteArray("hello world");
        QTest::newRow("chunked") << QByteArray("Transfer-Encoding: chunked\r\n")
                                 << QByteArray("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
                                 << QByteArray("hello world");
    }

    void testRequestBodiesAreForwarded() {
        QFETCH(QByteArray, framing);
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, expectedUpstreamBody);
        const QByteArray request = "POST http://mirror.test:" + m_port.toLatin1() +
                                   "/upload HTTP/1.1\r\n" + framing + "\r\n" + body;
        const Result r = exchange(allowLoopback(), request);
        QCOMPARE(statusLine(r.response), QByteArray("HTTP/1.1 200 OK"));
        const QByteArray upstream = m_canary.requests.value(0);
        const QByteArray upstreamBody = upstream.mid(upstream.indexOf("\r\n\r\n") + 4);
        if (framing.contains("chunked"))
            QVERIFY(upstreamBody.endsWith("0\r\n\r\n") && upstreamBody.contains("hello") &&
                    upstreamBody.contains(" world"));
        else
            QCOMPARE(upstreamBody, expectedUpstreamBody);
    }

    void testUpperCaseNameIsFoldedAndAllowed() {
        HalfCloseEchoServer upstream;
        const Result r =
            exchange(allowLoopback(),
                     connectTo("EXAMPLE.TEST:" + QByteArray::number(upstream.port())) + "ping");
        QCOMPARE(statusLine(r.response), QByteArray("HTTP/1.1 200 Connection Established"));
        QVERIFY(r.response.endsWith("ECHO:ping"));
        QCOMPARE(r.decisions.value(0).host, QStringLiteral("example.test"));
    }

    void testNextCheckedAddressIsTriedWithoutResolvingAgain() {
        const QByteArray request =
            "GET http://multi.test:" + m_port.toLatin1() + "/ HTTP/1.1\r\n\r\n";
        const Result r = exchange(allowLoopback(), request);
        QCOMPARE(statusLine(r.response), QByteArray("HTTP/1.1 200 OK"));
        QCOMPARE(m_canary.connections, 1);
        QCOMPARE(m_resolver->lookups.value("multi.test"), 1);
    }

    void testRefusals_data() {
        QTest::addColumn<bool>("strictPolicy");
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<QByteArray>("status");
        QTest::addColumn<QByteArray>("reason");
        const QByteArray port = m_port.toLatin1();
        const auto connectRow = [&](const char* name, bool strictPolicy, const QByteArray& host,
                                    const char* status, const char* reason) {
            QTest::addRow("CONNECT %s", name)
                << strictPolicy << "CONNECT " + host + ":" + port + " HTTP/1.1\r\n\r\n"
                << QByteArray(status) << QByteArray(reason);
            QTest::addRow("GET %s", name)
                << strictPolicy << "GET http://" + host + ":" + port + "/ HTTP/1.1\r\n\r\n"
                << QByteArray(status) << QByteArray(reason);
        };
        for (const char* ip : {"127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::1]",
                               "[::ffff:7f00:1]", "0", "0x7f000001", "127.0.0.1."})
            connectRow(ip, false, ip, "403", "ip_literal");
        connectRow("name to 127.0.0.1 without allowPrivateCidrs", true, "mirror.test", "403",
                   "address_refused");
        connectRow("name to ::ffff:127.0.0.1", true, "mapped.test", "403", "address_refused");
        connectRow("name to 169.254.169.254", false, "metadata.test", "403", "address_refused");
        connectRow("name to public and private", true, "mixed.test", "403", "address_refused");
        connectRow("name to nothing", false, "nowhere.test", "403", "no_addresses");
        connectRow("evilexample.test", false, "evilexample.test", "403", "not_in_allowlist");
        connectRow("example.test.evil.test", false, "example.test.evil.test", "403",
                   "not_in_allowlist");
        connectRow("wildcard apex", false, "wild.test", "403", "not_in_allowlist");
        connectRow("wrong port", false, "ported.test", "403", "not_in_allowlist");
        connectRow("localhost", false, "localhost", "403", "not_in_allowlist");
        connectRow("EXAMPLE.TEST.", false, "EXAMPLE.TEST.", "400", "malformed_target");
        connectRow("percent-encoded", false, "exa%6dple.test", "400", "malformed_target");
        connectRow("userinfo", false, "example.test@evil.test", "400", "malformed_target");
        connectRow("bracketed name", false, "[example.test]", "400", "malformed_target");
        QTest::newRow("Host disagrees with absolute URI")
            << false << "GET http://example.test:" + port + "/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
            << QByteArray("400") << QByteArray("host_mismatch");
        QTest::newRow("Host port disagrees")
            << false
            << "GET http://example.test:" + port + "/ HTTP/1.1\r\nHost: example.test:1\r\n\r\n"
            << QByteArray("400") << QByteArray("host_mismatch");
        QTest::newRow("Host is an IP") << false
                                       << "GET http://example.test:" + port +
                                              "/ HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n"
                                       << QByteArray("400") << QByteArray("host_mismatch");
        QTest::newRow("CONNECT Host disagrees")
            << false
            << "CONNECT example.test:" + port + " HTTP/1.1\r\nHost: evil.test:" + port + "\r\n\r\n"
            << QByteArray("400") << QByteArray("host_mismatch");
        QTest::newRow("two Host headers")
            << false
            << "GET http://example.test:" + port + "/ HTTP/1.1\r\nHost: example.test:" + port +
                   "\r\nHost: evil.test\r\n\r\n"
            << QByteArray("400") << QByteArray("host_mismatch");
        QTest::newRow("origin-form")
            << false << "GET / HTTP/1.1\r\nHost: example.test:" + port + "\r\n\r\n"
            << QByteArray("400") << QByteArray("malformed_request");
        QTest::newRow("https in absolute form")
            << false << "GET https://example.test:" + port + "/ HTTP/1.1\r\n\r\n"
            << QByteArray("400") << QByteArray("malformed_target");
        QTest::newRow("upgrade") << false
                                 << "GET http://example.test:" + port +
                                        "/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: "
                                        "websocket\r\n\r\n"
                                 << QByteArray("400") << QByteArray("malformed_request");
        QTest::newRow("not HTTP") << false << QByteArray("hello\r\n\r\n") << QByteArray("400")
                                  << QByteArray("malformed_request");
        QTest::newRow("head too large")
            << false
            << "GET http://example.test:" + port +
                   "/ HTTP/1.1\r\nX-Big: " + QByteArray(70 * 1024, 'a') + "\r\n\r\n"
            << QByteArray("431") << QByteArray("request_too_large");
    }

    void testRefusals() {
        QFETCH(bool, strictPolicy);
        QFETCH(QByteArray, request);
        QFETCH(QByteArray, status);
        QFETCH(QByteArray, reason);
        const Result r = exchange(strictPolicy ? strict() : allowLoopback(), request);
        QVERIFY2(statusLine(r.response).startsWith("HTTP/1.1 " + status),
                 r.response.left(300).constData());
        QCOMPARE(reasonHeader(r.response), reason);
        QCOMPARE(m_canary.connections, 0);
        QCOMPARE(r.decisions.size(), 1);
        QVERIFY(!r.decisions.first().allowed);
        QCOMPARE(r.decisions.first().reason.toLatin1(), reason);
        QCOMPARE(r.decisions.first().bytesUp, qint64(0));
        QCOMPARE(r.decisions.first().bytesDown, qint64(0));
        QVERIFY(m_resolver->totalLookups() <= 1);
    }

    void testPublicThenLoopbackAnswerIsRefusedAfterOneLookup() {
        const Result r = exchange(strict(), connectTo("rebind.test:" + m_port.toLatin1()));
        QVERIFY(statusLine(r.response).startsWith("HTTP/1.1 403"));
        QCOMPARE(reasonHeader(r.response), QByteArray("address_refused"));
        QVERIFY(r.response.contains("127.0.0.1"));
        QCOMPARE(m_resolver->lookups.value("rebind.test"), 1);
        QCOMPARE(m_resolver->totalLookups(), 1);
        QCOMPARE(m_canary.connections, 0);
    }

    void testModeNoneRefusesEverything() {
        const Result r = exchange(NetworkPolicy(), connectTo("mirror.test:" + m_port.toLatin1()));
        QCOMPARE(reasonHeader(r.response), QByteArray("policy_none"));
        QCOMPARE(m_canary.connections, 0);
        QCOMPARE(m_resolver->totalLookups(), 0);
    }

    void testUnreachableUpstreamGives502() {
        quint16 closedPort = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            closedPort = probe.serverPort();
        }
        m_resolver->map("down.test", {"127.0.0.1"});
        const Result r =
            exchange(allowLoopback(), connectTo("down.test:" + QByteArray::number(closedPort)));
        QVERIFY(statusLine(r.response).startsWith("HTTP/1.1 502"));
        QCOMPARE(reasonHeader(r.response), QByteArray("upstream_unreachable"));
        QVERIFY(r.decisions.value(0).allowed);
        QCOMPARE(r.decisions.value(0).reason, QStringLiteral("upstream_unreachable"));
    }

    void testConnectTimeoutGives502() {
        // A listener whose accept queue is full drops further SYNs, so connect() hangs.
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        QCOMPARE(::listen(fd, 0), 0);
        socklen_t length = sizeof address;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
        QList<int> fillers;
        for (int i = 0; i < 4; ++i) {
            const int filler = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            ::connect(filler, reinterpret_cast<sockaddr*>(&address), sizeof address);
            fillers.append(filler);
        }
        m_resolver->map("slow.test", {"127.0.0.1"});
        EgressGatewayOptions options;
        options.connectTimeoutMs = 300;
        const Result r = exchange(
            allowLoopback(), connectTo("slow.test:" + QByteArray::number(ntohs(address.sin_port))),
            options);
        for (int filler : fillers)
            ::close(filler);
        ::close(fd);
        QVERIFY2(statusLine(r.response).startsWith("HTTP/1.1 502"), r.response.constData());
        QCOMPARE(reasonHeader(r.response), QByteArray("upstream_connect_timeout"));
    }

    void testIdleTunnelIsClosed() {
        m_resolver->map("idle.test", {"127.0.0.1"});
        EgressGatewayOptions options;
        options.idleTimeoutMs = 200;
        // The canary answers only once it has a request head; an idle tunnel sends none.
        const Result r = exchange(allowLoopback(), connectTo("idle.test:" + m_port.toLatin1()),
                                  options, /*halfClose=*/false);
        QCOMPARE(statusLine(r.response), QByteArray("HTTP/1.1 200 Connection Established"));
        QCOMPARE(r.decisions.size(), 1);
        QCOMPARE(r.decisions.first().reason, QStringLiteral("idle_timeout"));
        QVERIFY(r.decisions.first().allowed);
    }

    void testClosingAListenerAbortsItsConnections() {
        m_resolver->map("idle.test", {"127.0.0.1"});
        EgressGateway gateway(allowLoopback(), m_resolver);
        const QString path = m_dir.filePath(QStringLiteral("abort.sock"));
        QString error;
        QVERIFY(gateway.listen(path, QStringLiteral("exec-9"), &error));
        QSignalSpy decisions(&gateway, &EgressGateway::decisionMade);
        QByteArray response;
        std::atomic<bool> started{false};
        std::thread client([&] {
            started = true;
            response = unixExchange(path, connectTo("idle.test:" + m_port.toLatin1()), false);
        });
        QTRY_COMPARE(gateway.activeConnectionCount(), 1);
        QTRY_COMPARE(m_canary.connections, 1); // the tunnel is up
        gateway.closeListener(QStringLiteral("exec-9"));
        QTRY_COMPARE(decisions.size(), 1);
        client.join();
        QCOMPARE(decisions.first().first().value<EgressDecision>().executionId,
                 QStringLiteral("exec-9"));
        QVERIFY(!QFile::exists(path));
    }

    void testSystemResolverFindsLocalhostAndItIsRefused() {
        SystemResolver resolver;
        QObject context;
        std::optional<ResolveResult> result;
        resolver.resolve(QStringLiteral("localhost"), &context,
                         [&result](const ResolveResult& r) { result = r; });
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
        QVERIFY2(result->error.isEmpty(), qPrintable(result->error));
        QVERIFY(!result->addresses.isEmpty());
        const AddressCheck check =
            AddressClassifier::check(QStringLiteral("localhost"), result->addresses, {});
        QVERIFY(!check.allowed);
        QCOMPARE(check.reason, QStringLiteral("address_refused"));
    }
};

QTEST_GUILESS_MAIN(TestEgressGateway)
#include "test_egress_gateway.moc"
