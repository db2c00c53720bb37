// The unix socket reader of the memory bound (agent/bounds/UnixSocketDiag, UnixSocketMemory;
// docs/bounds.md "Unix socket buffers"), against sockets this test makes: a filled buffer shows
// in its sender's count (and an empty one does not: the positive control), what a closed writer
// left is charged as an upper bound, a listener's pending connection of a closed client too,
// sockets in flight in SCM_RIGHTS stay listed; as root, a network namespace of its own is listed
// only by a diag socket made inside it, and the watchdog counts a uid's sockets (in both
// namespaces) only for a watch that asks.
#include "ScriptHolder.h"
#include "agent/bounds/MemoryWatchdog.h"
#include "agent/bounds/UnixSocketMemory.h"

#include <QProcess>
#include <QtTest>

#include <cerrno>
#include <fcntl.h>
#include <sched.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <thread>

using namespace runbox::bounds;
using namespace runbox::testsupport;
using runbox::workspace::UniqueFd;

namespace {

constexpr qint64 kKiB = 1024;
constexpr qint64 kMiB = 1024 * kKiB;

struct Pair {
    UniqueFd a, b;
};

Pair makePair(int type = SOCK_STREAM) {
    int fds[2] = {-1, -1};
    if (::socketpair(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0)
        qFatal("socketpair: %s", std::strerror(errno));
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

quint32 inodeOf(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 ? quint32(st.st_ino) : 0;
}

/// Sends @p chunk-byte messages until the buffer is full (EAGAIN); returns the bytes sent.
qint64 fill(int fd, int chunk) {
    const QByteArray data(chunk, 'x');
    qint64 sent = 0;
    for (;;) {
        const ssize_t n = ::send(fd, data.constData(), std::size_t(chunk), MSG_DONTWAIT);
        if (n < 0)
            return sent;
        sent += n;
    }
}

/// The socket @p inode as a fresh dump of @p diag shows it; inode 0 when not listed.
UnixSocketInfo find(const UnixSocketDiag& diag, quint32 inode) {
    std::vector<UnixSocketInfo> sockets;
    runbox::Error error;
    if (!diag.dump(&sockets, &error))
        qFatal("dump: %s", qPrintable(error.message));
    for (const UnixSocketInfo& s : sockets)
        if (s.inode == inode)
            return s;
    return {};
}

/// Makes @p pairs socketpairs, fills both directions in 64 KiB sends, prints "ready", sleeps.
const char* kSocketHolder = "import socket, sys, time\n"
                            "keep = []\n"
                            "for i in range(int(sys.argv[1])):\n"
                            "    a, b = socket.socketpair()\n"
                            "    for s in (a, b):\n"
                            "        s.setblocking(False)\n"
                            "        try:\n"
                            "            while True: s.send(b'x' * 65536)\n"
                            "        except BlockingIOError: pass\n"
                            "    keep.append((a, b))\n"
                            "print('ready', flush=True)\n"
                            "time.sleep(120)\n";

} // namespace

class TestUnixSocketMemory final : public QObject {
    Q_OBJECT

    std::optional<UnixSocketDiag> m_diag;
    UnixSocketMemory::Calibration m_calibration;

private Q_SLOTS:
    void initTestCase() {
        UnixSocketMemory memory;
        QVERIFY2(memory.available(), qPrintable(memory.reason()));
        m_calibration = memory.calibration();
        qInfo("%s", qPrintable(memory.reason()));
        QVERIFY(m_calibration.oneByteTruesize > 1 && m_calibration.oneByteTruesize < 4096);
        runbox::Error error;
        m_diag = UnixSocketDiag::open(&error);
        QVERIFY2(m_diag, qPrintable(error.message));
    }

    /// Positive control, then the property: an empty pair holds nothing; a filled one shows
    /// what it holds at its sender, and both ends are listed with their owner and peer.
    void testFilledBufferCountsAtItsSender() {
        const Pair p = makePair();
        const quint32 a = inodeOf(p.a.get()), b = inodeOf(p.b.get());
        UnixSocketInfo before = find(*m_diag, a);
        QCOMPARE(before.inode, a);
        QCOMPARE(before.uid, ::geteuid());
        QVERIFY(before.hasPeer);
        QCOMPARE(before.peer, b);
        QCOMPARE(before.sendAlloc, 0u);

        const qint64 sent = fill(p.a.get(), 64 * kKiB);
        const UnixSocketInfo sender = find(*m_diag, a);
        const UnixSocketInfo receiver = find(*m_diag, b);
        qInfo("sent %lld bytes: sender's WMEM_ALLOC %u, receiver's queue %u", sent,
              sender.sendAlloc, receiver.receiveQueue);
        QVERIFY(sent >= 100 * kKiB);
        QVERIFY(qint64(sender.sendAlloc) >= sent);
        QCOMPARE(qint64(receiver.receiveQueue), sent);
        const UnixSocketMemory::Charge charge = UnixSocketMemory::chargeOf(sender, m_calibration);
        QCOMPARE(charge.exactBytes, qint64(sender.sendAlloc));
        QCOMPARE(charge.estimatedBytes, 0);
        // The receiver's queue is the sender's memory: not charged twice.
        QCOMPARE(UnixSocketMemory::chargeOf(receiver, m_calibration).total(), 0);
    }

    /// Tiny sends cost far more than their bytes (an skb each): counted at their truesize.
    void testTinySendsCountAtTheirTruesize() {
        const Pair p = makePair();
        const qint64 sent = fill(p.a.get(), 1);
        const UnixSocketInfo sender = find(*m_diag, inodeOf(p.a.get()));
        qInfo("%lld one-byte sends hold %u bytes", sent, sender.sendAlloc);
        QVERIFY(qint64(sender.sendAlloc) >= sent * m_calibration.oneByteTruesize);
    }

    /// A writer closed after filling: its memory is no longer listed, the receiver's charge is
    /// an upper bound of it (stream: by its queued bytes; datagram: the ceiling).
    void testClosedWriterIsChargedAtTheReceiver_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("chunk");
        QTest::newRow("stream, 1-byte sends") << int(SOCK_STREAM) << 1;
        QTest::newRow("stream, 64 KiB sends") << int(SOCK_STREAM) << int(64 * kKiB);
        QTest::newRow("seqpacket, 0-byte records") << int(SOCK_SEQPACKET) << 0;
        QTest::newRow("dgram, 0-byte datagrams") << int(SOCK_DGRAM) << 0;
    }

    void testClosedWriterIsChargedAtTheReceiver() {
        QFETCH(int, type);
        QFETCH(int, chunk);
        Pair p = makePair(type);
        const quint32 a = inodeOf(p.a.get()), b = inodeOf(p.b.get());
        if (chunk > 0)
            fill(p.a.get(), chunk);
        else
            while (::send(p.a.get(), "", 0, MSG_DONTWAIT) == 0) {
            }
        const qint64 held = find(*m_diag, a).sendAlloc;
        QVERIFY(held > 100 * kKiB);
        p.a.reset();
        QCOMPARE(find(*m_diag, a).inode, 0u); // the writer is not listed any more
        const UnixSocketInfo receiver = find(*m_diag, b);
        QVERIFY(receiver.hasPeer);
        QCOMPARE(receiver.peer, 0u);
        const UnixSocketMemory::Charge charge = UnixSocketMemory::chargeOf(receiver, m_calibration);
        qInfo("closed writer held %lld bytes; receiver's queue %u, charged %lld", held,
              receiver.receiveQueue, charge.estimatedBytes);
        QVERIFY(charge.estimatedBytes >= held);
        QVERIFY(charge.estimatedBytes <= UnixSocketMemory::ceilingOf(type, m_calibration));
        // Drained, a stream socket is charged nothing more.
        if (type == SOCK_STREAM) {
            char sink[65536];
            while (::recv(p.b.get(), sink, sizeof sink, MSG_DONTWAIT) > 0) {
            }
            QCOMPARE(UnixSocketMemory::chargeOf(find(*m_diag, b), m_calibration).total(), 0);
        }
    }

    /// A connection a listener has not accepted yet is listed nowhere; its client's writes
    /// count at the client while it lives, at the listener (the ceiling) once it is closed.
    void testPendingConnectionOfAClosedClientIsCharged() {
        const UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const QByteArray name = "runbox-test-" + QByteArray::number(::getpid());
        std::memcpy(address.sun_path + 1, name.constData(), std::size_t(name.size()));
        const socklen_t length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
        QVERIFY(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), length) == 0);
        QVERIFY(::listen(listener.get(), 16) == 0);
        UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        QVERIFY(::connect(client.get(), reinterpret_cast<sockaddr*>(&address), length) == 0);
        const qint64 sent = fill(client.get(), 64 * kKiB);
        const quint32 l = inodeOf(listener.get()), c = inodeOf(client.get());

        UnixSocketInfo pending = find(*m_diag, l);
        QCOMPARE(pending.pending, QList<quint32>{c});
        QCOMPARE(UnixSocketMemory::chargeOf(pending, m_calibration).total(), 0);
        QVERIFY(qint64(find(*m_diag, c).sendAlloc) >= sent);

        client.reset();
        pending = find(*m_diag, l);
        QCOMPARE(pending.pending, QList<quint32>{0u});
        const UnixSocketMemory::Charge charge = UnixSocketMemory::chargeOf(pending, m_calibration);
        QCOMPARE(charge.estimatedBytes, UnixSocketMemory::ceilingOf(SOCK_STREAM, m_calibration));
        QVERIFY(charge.estimatedBytes >= sent);
    }

    /// Sockets passed in SCM_RIGHTS and closed by their sender ("in flight", held only by the
    /// carrier's queue) are still listed, with what they hold.
    void testSocketsInFlightStayListed() {
        Pair filled = makePair();
        const qint64 sent = fill(filled.a.get(), 64 * kKiB);
        const quint32 a = inodeOf(filled.a.get());
        const Pair carrier = makePair();
        char byte = 'z';
        iovec io{&byte, 1};
        alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
        msghdr message{};
        message.msg_iov = &io;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&message);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(2 * sizeof(int));
        const int fds[2] = {filled.a.get(), filled.b.get()};
        std::memcpy(CMSG_DATA(c), fds, sizeof fds);
        QCOMPARE(::sendmsg(carrier.a.get(), &message, 0), ssize_t(1));
        filled.a.reset();
        filled.b.reset();
        const UnixSocketInfo inFlight = find(*m_diag, a);
        QCOMPARE(inFlight.inode, a);
        QVERIFY(qint64(inFlight.sendAlloc) >= sent);
    }

    /// As root: sockets of another network namespace are not in this namespace's dump; a diag
    /// socket made inside it (UnixSocketDiag::openIn) lists them.
    void testAnotherNetworkNamespaceNeedsItsOwnDiagSocket() {
        if (::geteuid() != 0)
            QSKIP("needs root: unshare(CLONE_NEWNET)");
        int a = -1, b = -1, ns = -1;
        std::thread maker([&] {
            int fds[2];
            if (::unshare(CLONE_NEWNET) != 0 ||
                ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0)
                return;
            a = fds[0];
            b = fds[1];
            ns = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        });
        maker.join();
        QVERIFY(a >= 0 && ns >= 0);
        const UniqueFd ua(a), ub(b), uns(ns);
        fill(a, 64 * kKiB);
        QCOMPARE(find(*m_diag, inodeOf(a)).inode, 0u);
        runbox::Error error;
        const std::optional<UnixSocketDiag> inside = UnixSocketDiag::openIn(ns, &error);
        QVERIFY2(inside, qPrintable(error.message));
        const UnixSocketInfo seen = find(*inside, inodeOf(a));
        QCOMPARE(seen.inode, inodeOf(a));
        QVERIFY(seen.sendAlloc > 100 * kKiB);
        // The agent's own thread is still in the host's namespace.
        struct stat own {
        }, other{};
        QVERIFY(::stat("/proc/thread-self/ns/net", &own) == 0 && ::fstat(ns, &other) == 0);
        QVERIFY(own.st_ino != other.st_ino);
    }

    /// The namespace's socket count (sockstat) moves with sockets made in it: the sign that lets
    /// an idle namespace skip its dump.
    void testSocketCountFollowsNewSockets() {
        const qint64 before = m_diag->socketsInUse();
        QVERIFY(before > 0);
        const Pair p = makePair();
        QCOMPARE(m_diag->socketsInUse(), before + 2);
    }

    /// As root: a namespace where the watched uid had no socket is dumped again only when its
    /// socket count moved (or every kIdleDumpCalls calls); the uid's first sockets are seen at
    /// the next call, and from then on at every call.
    void testIdleNamespaceStillSeesNewSockets() {
        if (::geteuid() != 0)
            QSKIP("needs root: setfsuid(2) to own sockets as another uid");
        constexpr uid_t kUid = 61103;
        UnixSocketMemory memory;
        const QHash<quint64, pid_t> host{{UnixSocketMemory::ownNetworkNamespace(), ::getpid()}};
        QVERIFY(memory.measure(host, {kUid}).isEmpty()); // no socket of the uid: idle from now
        QVERIFY(memory.measure(host, {kUid}).isEmpty());
        int a = -1, b = -1;
        std::thread maker([&] { // the fsuid is per thread; a socket's owner is its creator's
            ::setfsuid(kUid);
            int fds[2];
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) == 0) {
                a = fds[0];
                b = fds[1];
            }
        });
        maker.join();
        QVERIFY(a >= 0);
        const UniqueFd ua(a), ub(b);
        QCOMPARE(find(*m_diag, inodeOf(a)).uid, kUid);
        const qint64 sent = fill(a, 64 * kKiB);
        int calls = 0;
        qint64 seen = 0;
        while (seen == 0 && calls < UnixSocketMemory::kIdleDumpCalls) {
            seen = memory.measure(host, {kUid}).value(kUid).total();
            ++calls;
        }
        qInfo("seen after %d call(s): %lld bytes", calls, seen);
        QVERIFY(seen >= sent);
        QCOMPARE(calls, 1);         // the socket count moved (unless the host closed two meanwhile)
        for (int i = 0; i < 3; ++i) // from then on, every call
            QVERIFY(memory.measure(host, {kUid}).value(kUid).total() >= sent);
        // Each socket's own kernel objects count too, empty or not.
        const UnixSocketMemory::Charge charge = memory.measure(host, {kUid}).value(kUid);
        QCOMPARE(charge.sockets, 2);
        QCOMPARE(charge.objectBytes, 2 * UnixSocketMemory::kSocketObjectBytes);
    }

    /// As root: a process of uid 61101 holding 20 filled socketpairs (~9 MiB of kernel memory
    /// its RSS does not show), in the host's namespace and in one of its own: a watch that
    /// counts unix sockets sees them, one that does not (the old behaviour) does not.
    void testWatchdogCountsTheSocketsOfItsUid_data() {
        QTest::addColumn<bool>("ownNamespace");
        QTest::newRow("host network namespace") << false;
        QTest::newRow("a network namespace of its own") << true;
    }

    void testWatchdogCountsTheSocketsOfItsUid() {
        QFETCH(bool, ownNamespace);
        if (::geteuid() != 0)
            QSKIP("needs root: processes under uids of their own");
        const uid_t uid = ownNamespace ? 61102 : 61101;
        QStringList prefix = asUid(uid);
        if (ownNamespace)
            prefix = QStringList{"/usr/bin/unshare", "--net"} + prefix;
        ScriptHolder holder;
        QVERIFY(holder.start(prefix, kSocketHolder, {"20"}));
        MemoryWatchdog dog;
        MemoryWatchdog::Watch plain{{Membership::By::Uid, uid}, 1ll << 40, {}, {}};
        const int without = dog.watch(plain);
        const MemoryWatchdog::Usage u0 = settledUsage(dog, without);
        dog.unwatch(without);
        MemoryWatchdog::Watch counting = plain;
        counting.countUnixSockets = true;
        const int with = dog.watch(counting);
        const MemoryWatchdog::Usage u1 = settledUsage(dog, with);
        dog.unwatch(with);
        qInfo("without sockets %lld bytes, with %lld (%lld in socket buffers)", u0.currentBytes,
              u1.currentBytes, u1.unixSocketBytes);
        QCOMPARE(u0.unixSocketBytes, 0);
        QVERIFY2(u1.unixSocketBytes >= 40 * 200 * kKiB,
                 qPrintable(QString::number(u1.unixSocketBytes)));
        QVERIFY(u1.unixSocketBytes < 64 * kMiB);
        QVERIFY(u1.currentBytes >= u0.currentBytes + u1.unixSocketBytes - 4 * kMiB);
    }
};

QTEST_GUILESS_MAIN(TestUnixSocketMemory)
#include "test_unix_socket_memory.moc"
