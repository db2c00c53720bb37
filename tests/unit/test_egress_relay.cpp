#include "agent/egress/EgressRelay.h"

#include <QCryptographicHash>
#include <QSemaphore>
#include <QTest>

#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace runbox::egress;

namespace {

constexpr int kWaitMs = 30'000; // a bound against hangs, not a timing assertion

/// A connected pair of stream sockets: `near` is what the test drives, `far` goes to the relay.
struct Pair {
    int near = -1;
    int far = -1;
    ~Pair() {
        if (near >= 0)
            ::close(near);
    }
};

Pair unixPair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        qFatal("socketpair: %s", strerror(errno));
    return Pair{fds[0], fds[1]};
}

/// A loopback TCP connection (the relay's upstream side is TCP in the agent).
Pair tcpPair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        qFatal("listen: %s", strerror(errno));
    const int near = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(near, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
        qFatal("connect: %s", strerror(errno));
    const int far = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listener);
    return Pair{near, far};
}

RelaySide side(int fd, const QByteArray& queued = {}) {
    RelaySide s;
    s.fd = fd;
    s.queued = queued;
    return s;
}

void sendAll(int fd, const QByteArray& data) {
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n =
            ::send(fd, data.constData() + done, size_t(data.size() - done), MSG_NOSIGNAL);
        if (n <= 0)
            qFatal("send: %s", strerror(errno));
        done += n;
    }
}

/// Reads until EOF (or the bound passes: then the result is short and the test fails).
QByteArray readToEof(int fd) {
    QByteArray out;
    char buffer[64 * 1024];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, kWaitMs) <= 0)
            return out;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            return out;
        out.append(buffer, n);
    }
}

QByteArray pattern(qsizetype size) {
    QByteArray out(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        out[i] = char((i * 131 + i / 4099) & 0xff);
    return out;
}

/// Collects `done` calls (relay thread) for the test thread.
struct DoneProbe {
    QSemaphore calls;
    QString error;
    EgressRelay::Done callback() {
        return [this](const QString& e) {
            error = e;
            calls.release();
        };
    }
};

} // namespace

class TestEgressRelay final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testTunnelMovesBytesBothWaysWithHalfCloseAndCountsThem() {
        EgressRelay relay;
        QVERIFY(relay.available());
        Pair client = unixPair();
        Pair upstream = tcpPair();
        DoneProbe probe;
        const auto tunnel =
            relay.add(side(client.far, "HTTP/1.1 200 OK\r\n\r\n"), side(upstream.far, "early"),
                      EgressRelay::Mode::Tunnel, probe.callback());
        QVERIFY(tunnel);
        const QByteArray up = pattern(3 * 1024 * 1024 + 17);
        const QByteArray down = pattern(5 * 1024 * 1024 + 3);
        std::thread clientWriter([&] {
            sendAll(client.near, up);
            ::shutdown(client.near, SHUT_WR);
        });
        std::thread upstreamWriter([&] {
            sendAll(upstream.near, down);
            ::shutdown(upstream.near, SHUT_WR);
        });
        const QByteArray atUpstream = readToEof(upstream.near);
        const QByteArray atClient = readToEof(client.near);
        clientWriter.join();
        upstreamWriter.join();
        QCOMPARE(atUpstream.size(), up.size() + 5);
        QVERIFY(atUpstream == "early" + up);
        QCOMPARE(atClient.size(), down.size() + 19);
        QVERIFY(atClient == "HTTP/1.1 200 OK\r\n\r\n" + down);
        QVERIFY(probe.calls.tryAcquire(1, kWaitMs));
        QVERIFY(probe.error.isEmpty());
        QCOMPARE(tunnel->bytesUp.load(), qint64(up.size()));
        QCOMPARE(tunnel->bytesDown.load(), qint64(down.size()));
        QVERIFY(!probe.calls.tryAcquire(1, 100)); // done exactly once
    }

    void testHalfCloseKeepsTheOtherDirectionOpen() {
        EgressRelay relay;
        Pair client = unixPair();
        Pair upstream = tcpPair();
        DoneProbe probe;
        relay.add(side(client.far), side(upstream.far), EgressRelay::Mode::Tunnel,
                  probe.callback());
        sendAll(client.near, "request");
        ::shutdown(client.near, SHUT_WR);
        QCOMPARE(readToEof(upstream.near), QByteArray("request")); // EOF travelled on
        sendAll(upstream.near, "answer after the client's EOF");
        ::shutdown(upstream.near, SHUT_WR);
        QCOMPARE(readToEof(client.near), QByteArray("answer after the client's EOF"));
        QVERIFY(probe.calls.tryAcquire(1, kWaitMs));
    }

    void testResponseModeDropsClientBytesAndEndsWithTheResponse() {
        EgressRelay relay;
        Pair client = unixPair();
        Pair upstream = tcpPair();
        DoneProbe probe;
        const auto tunnel =
            relay.add(side(client.far), side(upstream.far, "GET / HTTP/1.1\r\n\r\n"),
                      EgressRelay::Mode::Response, probe.callback());
        sendAll(client.near, "pipelined extra request, not served");
        char head[64] = {};
        pollfd p{upstream.near, POLLIN, 0};
        QVERIFY(::poll(&p, 1, kWaitMs) == 1);
        QCOMPARE(::recv(upstream.near, head, sizeof head, 0), ssize_t(18));
        QCOMPARE(QByteArray(head), QByteArray("GET / HTTP/1.1\r\n\r\n"));
        sendAll(upstream.near, "response");
        ::shutdown(upstream.near, SHUT_WR);
        QCOMPARE(readToEof(client.near), QByteArray("response"));
        QVERIFY(probe.calls.tryAcquire(1, kWaitMs));
        QCOMPARE(tunnel->bytesDown.load(), qint64(8));
        QCOMPARE(tunnel->bytesUp.load(), qint64(0)); // dropped bytes are not counted
        // The relay closed the upstream socket; the extra request never reached it.
        QCOMPARE(readToEof(upstream.near), QByteArray());
    }

    void testRemoveClosesBothSocketsWithoutCallingDone() {
        EgressRelay relay;
        Pair client = unixPair();
        Pair upstream = tcpPair();
        DoneProbe probe;
        const auto tunnel = relay.add(side(client.far), side(upstream.far),
                                      EgressRelay::Mode::Tunnel, probe.callback());
        sendAll(client.near, "x");
        pollfd p{upstream.near, POLLIN, 0};
        QVERIFY(::poll(&p, 1, kWaitMs) == 1); // relaying
        relay.remove(tunnel);
        QCOMPARE(readToEof(client.near), QByteArray());
        QCOMPARE(readToEof(upstream.near), QByteArray("x"));
        QCOMPARE(tunnel->bytesUp.load(), qint64(1));
        QVERIFY(!probe.calls.tryAcquire(1, 100));
        relay.remove(tunnel); // a second time: no-op
    }

    void testResetByThePeerEndsTheTunnelWithAnError() {
        EgressRelay relay;
        Pair client = unixPair();
        Pair upstream = tcpPair();
        DoneProbe probe;
        relay.add(side(client.far), side(upstream.far), EgressRelay::Mode::Tunnel,
                  probe.callback());
        ::close(client.near); // unix peer gone: writing to it fails (EPIPE)
        client.near = -1;
        sendAll(upstream.near, "to nobody");
        QVERIFY(probe.calls.tryAcquire(1, kWaitMs));
        QVERIFY(!probe.error.isEmpty());
    }

    void testTunnelsAreIndependent() {
        EgressRelay relay;
        Pair c1 = unixPair(), u1 = tcpPair(), c2 = unixPair(), u2 = tcpPair();
        DoneProbe p1, p2;
        relay.add(side(c1.far), side(u1.far), EgressRelay::Mode::Tunnel, p1.callback());
        relay.add(side(c2.far), side(u2.far), EgressRelay::Mode::Tunnel, p2.callback());
        // The first tunnel stays idle and open while the second one is used and ends.
        sendAll(u2.near, "second");
        ::shutdown(u2.near, SHUT_WR);
        ::shutdown(c2.near, SHUT_WR);
        QCOMPARE(readToEof(c2.near), QByteArray("second"));
        QVERIFY(p2.calls.tryAcquire(1, kWaitMs));
        QVERIFY(!p1.calls.tryAcquire(1, 100));
        sendAll(c1.near, "first");
        char buffer[16] = {};
        pollfd p{u1.near, POLLIN, 0};
        QVERIFY(::poll(&p, 1, kWaitMs) == 1);
        QCOMPARE(::recv(u1.near, buffer, sizeof buffer, 0), ssize_t(5));
    }
};

QTEST_GUILESS_MAIN(TestEgressRelay)
#include "test_egress_relay.moc"
