// The egress gateway attacked over its real unix socket, with a canary TCP server on 127.0.0.1
// that counts every connection: a refusal must leave it at zero.

#include "agent/egress/AddressClassifier.h"
#include "agent/egress/EgressGateway.h"
#include "agent/egress/NetworkPolicy.h"
#include "agent/egress/Resolver.h"
#include "egress/EgressTestSupport.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::egress::testing;

namespace {

NetworkPolicy policyFrom(const QStringList& domains, const QStringList& cidrs) {
    ApiError error;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(
        QJsonObject{{"mode", "domain-allowlist"},
                    {"allowedDomains", QJsonArray::fromStringList(domains)},
                    {"allowPrivateCidrs", QJsonArray::fromStringList(cidrs)}},
        &error);
    if (!policy)
        qFatal("%s", qPrintable(error.message));
    return *policy;
}

const QStringList kDomains{"mirror.test",   "example.test", "*.wild.test",   "mapped.test",
                           "metadata.test", "mixed.test",   "rebind.test",   "multi.test",
                           "down.test",     "nowhere.test", "ported.test:1", "slow.test",
                           "idle.test",     "half.test"};

QByteArray statusLine(const QByteArray& response) {
    return response.left(response.indexOf("\r\n"));
}

QByteArray reasonHeader(const QByteArray& response) {
    const qsizetype at = response.indexOf("X-Runbox-Egress-Reason: ");
    if (at < 0)
        return {};
    const qsizetype start = at + 24;
    return response.mid(start, response.indexOf("\r\n", start) - start);
}

/// Connects to the gateway at @p path and hands @p passed over as runbox-egress-bridge
/// --hand-over does (one NUL byte with SCM_RIGHTS). Returns the unix connection, or -1.
int handOver(const QString& path, int passed) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray native = path.toLocal8Bit();
    std::memcpy(address.sun_path, native.constData(), size_t(native.size()));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
        ::close(fd);
        return -1;
    }
    char marker = '\0';
    iovec iov{&marker, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &passed, sizeof passed);
    if (::sendmsg(fd, &msg, MSG_NOSIGNAL) != 1) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Sends @p request on @p fd, half-closes, and reads until EOF (bounded by 10 s of silence).
QByteArray exchangeOn(int fd, const QByteArray& request) {
    qsizetype sent = 0;
    while (sent < request.size()) {
        const ssize_t n =
            ::send(fd, request.constData() + sent, size_t(request.size() - sent), MSG_NOSIGNAL);
        if (n <= 0)
            break;
        sent += n;
    }
    ::shutdown(fd, SHUT_WR);
    QByteArray response;
    char buffer[65536];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 10000) <= 0)
            break;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            break;
        response.append(buffer, n);
    }
    return response;
}

} // namespace

class TestEgressGateway final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    CanaryHttpServer m_canary;
    std::shared_ptr<FakeResolver> m_resolver = std::make_shared<FakeResolver>();
    QString m_port;

    /// Starts a gateway for @p policy on a fresh socket and runs @p request through it.
    struct Result {
        QByteArray response;
        QList<EgressDecision> decisions;
    };
    Result exchange(const NetworkPolicy& policy, const QByteArray& request,
                    const EgressGatewayOptions& options = {}, bool halfClose = true) {
        EgressGateway gateway(policy, m_resolver, options);
        const QString path = m_dir.filePath(QStringLiteral("gw.sock"));
        QString error;
        if (!gateway.listen(path, QStringLiteral("exec-1"), &error))
            qFatal("%s", qPrintable(error));
        QList<EgressDecision> decisions;
        connect(&gateway, &EgressGateway::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });
        Result result;
        const bool finished =
            runBeside([&] { result.response = unixExchange(path, request, halfClose); });
        if (!finished)
            qWarning("client did not finish");
        QDeadlineTimer deadline(10000);
        while (decisions.isEmpty() && !deadline.hasExpired())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        result.decisions = decisions;
        return result;
    }

    NetworkPolicy allowLoopback() const { return policyFrom(kDomains, {"127.0.0.0/8"}); }
    NetworkPolicy strict() const { return policyFrom(kDomains, {}); }
    QByteArray connectTo(const QByteArray& authority) const {
        return "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    }

    /// Runs @p client beside a gateway for allowLoopback() and collects its decisions.
    QList<EgressDecision> withGateway(const std::function<void(const QString& path)>& client) {
        EgressGateway gateway(allowLoopback(), m_resolver);
        const QString path = m_dir.filePath(QStringLiteral("handover.sock"));
        QString error;
        if (!gateway.listen(path, QStringLiteral("exec-1"), &error))
            qFatal("%s", qPrintable(error));
        QList<EgressDecision> decisions;
        connect(&gateway, &EgressGateway::decisionMade, this,
                [&decisions](const EgressDecision& d) { decisions.append(d); });
        if (!runBeside([&] { client(path); }))
            qWarning("client did not finish");
        QDeadlineTimer deadline(2000); // decisions come as the connection closes
        while (!deadline.hasExpired() && gateway.activeConnectionCount() > 0)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QCoreApplication::processEvents();
        return decisions;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(m_canary.port() != 0);
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
    }
    void init() {
        m_canary.reset();
        m_resolver->lookups.clear();
    }

    void testSocketIsOwnerOnly() {
        EgressGateway gateway(allowLoopback(), m_resolver);
        const QString path = m_dir.filePath(QStringLiteral("mode.sock"));
        QString error;
        QVERIFY2(gateway.listen(path, QStringLiteral("e"), &error), qPrintable(error));
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        gateway.closeListener(QStringLiteral("e"));
        QVERIFY(!QFile::exists(path));
    }

    void testHandedOverSocketIsServedAndDecidedLikeAPlainClient() {
        // Positive control for the refusals below: a connected stream socket handed over
        // (runbox-egress-bridge --hand-over) becomes the client; the unix connection ends.
        HalfCloseEchoServer upstream;
        m_resolver->map("half.test", {"127.0.0.1"});
        const QByteArray authority = "half.test:" + QByteArray::number(upstream.port());
        QByteArray response;
        QByteArray onUnix = "not read";
        const QList<EgressDecision> decisions = withGateway([&](const QString& path) {
            int pair[2];
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
                return;
            const int unixFd = handOver(path, pair[1]);
            ::close(pair[1]);
            if (unixFd < 0)
                return;
            response = exchangeOn(pair[0], connectTo(authority) + "payload");
            onUnix = exchangeOn(unixFd, "CONNECT ignored:1 HTTP/1.1\r\n\r\n");
            ::close(unixFd);
            ::close(pair[0]);
        });
        QCOMPARE(statusLine(response), QByteArray("HTTP/1.1 200 Connection Established"));
        QCOMPARE(response.mid(response.indexOf("\r\n\r\n") + 4), QByteArray("ECHO:payload"));
        QCOMPARE(onUnix, QByteArray()); // the bridge's connection carried nothing else
        QCOMPARE(decisions.size(), 1);
        QVERIFY(decisions.first().allowed);
        QCOMPARE(decisions.first().executionId, QStringLiteral("exec-1"));
        QCOMPARE(decisions.first().bytesUp, qint64(7));
    }

    void testHandingOverAnythingButAConnectedStreamSocketEndsTheConnection_data() {
        QTest::addColumn<QString>("kind");
        // seqpacket: recv(2) would read requests from it, so only the check keeps it out.
        QTest::newRow("seqpacket socket") << QStringLiteral("seqpacket");
        QTest::newRow("pipe") << QStringLiteral("pipe");
        QTest::newRow("listening socket") << QStringLiteral("listener");
        QTest::newRow("regular file") << QStringLiteral("file");
    }
    void testHandingOverAnythingButAConnectedStreamSocketEndsTheConnection() {
        QFETCH(QString, kind);
        QByteArray onUnix = "not read";
        QByteArray onKept = "not read";
        const QByteArray request = connectTo("mirror.test:" + m_port.toLatin1());
        const QList<EgressDecision> decisions = withGateway([&](const QString& path) {
            int fds[2] = {-1, -1}; // fds[1] is handed over, fds[0] kept
            if (kind == QLatin1String("seqpacket")) {
                if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
                    return;
            } else if (kind == QLatin1String("pipe")) {
                if (::pipe2(fds, O_CLOEXEC) != 0)
                    return;
                std::swap(fds[0], fds[1]); // hand over the read end, keep the write end
            } else if (kind == QLatin1String("listener")) {
                fds[1] = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                sockaddr_un address{};
                address.sun_family = AF_UNIX; // autobind to an abstract name (unix(7))
                ::bind(fds[1], reinterpret_cast<sockaddr*>(&address), sizeof(sa_family_t));
                ::listen(fds[1], 1);
            } else {
                fds[1] = ::open(QFile::encodeName(m_dir.filePath("plain")).constData(),
                                O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                (void)!::write(fds[1], request.constData(), size_t(request.size()));
                ::lseek(fds[1], 0, SEEK_SET);
            }
            const int unixFd = handOver(path, fds[1]);
            ::close(fds[1]);
            if (unixFd < 0)
                return;
            if (fds[0] >= 0) { // a request on the kept end must reach nobody
                if (kind == QLatin1String("pipe")) {
                    (void)!::write(fds[0], request.constData(), size_t(request.size()));
                    onKept = QByteArray();
                } else {
                    onKept = exchangeOn(fds[0], request);
                }
                ::close(fds[0]);
            } else {
                onKept = QByteArray();
            }
            onUnix = exchangeOn(unixFd, request); // nor one on the unix connection
            ::close(unixFd);
        });
        QCOMPARE(onKept, QByteArray());
        QCOMPARE(onUnix, QByteArray()); // closed without an answer
        QVERIFY(decisions.isEmpty() || !decisions.first().allowed);
        QCOMPARE(m_canary.connections, 0);
    }

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
