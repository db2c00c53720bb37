// The egress gateway's unix socket (docs/contracts.md "Egress gateway"): owner-only, and the
// hand-over of a connected stream socket by runbox-egress-bridge --hand-over (SCM_RIGHTS), where
// anything else handed over (a seqpacket socket, a pipe, a listener, a file) must end the
// connection and reach nobody. Decisions and refusals: test_egress_gateway.

#include "EgressGatewayFixture.h"

#include <QTest>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::egress;
using namespace runbox::egress::testing;

namespace {

/// Connects to the gateway at @p path and hands @p passed over as runbox-egress-bridge
/// --hand-over does (one NUL byte with SCM_RIGHTS). Returns the unix connection, or -1.
int handOver(const QString& path, int passed) {
    const int fd = connectUnix(path);
    if (fd < 0)
        return -1;
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

} // namespace

class TestEgressHandover final : public EgressGatewayFixture {
    Q_OBJECT

    /// Runs @p client beside a gateway for allowLoopback() and collects its decisions.
    QList<EgressDecision> withGateway(const std::function<void(const QString& path)>& client) {
        return runGateway(allowLoopback(), {}, client, false);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(prepareGatewayFixture()); }
    void init() { resetGatewayFixture(); }

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
};

QTEST_GUILESS_MAIN(TestEgressHandover)
#include "test_egress_handover.moc"
