// Light workspaces against the network, through the real agent run as root (docs/contracts.md
// "Light workspace network"): MPTCP (also made by io_uring), SCTP, raw, packet, netlink and UDP
// sockets aimed at listeners this test opens on the host, the agent's own port, and the i386
// syscall ABI. Every refusal comes after a positive control: the same light_attack command run
// outside (as this test, on the host) reaches the listener, and a workspace whose grant allows it
// gets through; then each listener must have seen zero connections and zero datagrams.
#include "LightAgentFixture.h"

#include <QtTest>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace lightagent;

namespace {

/// A loopback listener (TCP, or UDP) that counts what reached it, without blocking.
struct HostListener {
    int fd = -1;
    quint16 port = 0;
    bool udp = false;

    bool open(bool datagram) {
        udp = datagram;
        fd = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof(address);
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            (!udp && ::listen(fd, 64) != 0) ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            return false;
        port = ntohs(address.sin_port);
        return true;
    }
    /// Connections accepted (TCP) or datagrams received (UDP) since the last call.
    int drain() {
        int count = 0;
        for (;;) {
            char byte[64];
            const int got = udp ? int(::recv(fd, byte, sizeof(byte), 0))
                                : ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (got < 0)
                return count;
            if (!udp)
                ::close(got);
            ++count;
        }
    }
    QString portText() const { return QString::number(port); }
    ~HostListener() {
        if (fd >= 0)
            ::close(fd);
    }
};

const QString kAttack = QStringLiteral(RUNBOX_BINARY_DIR "/tests/security/light_attack");

} // namespace

class TestLightNetwork final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    quint16 m_agentPort = 0;
    HostListener m_tcp, m_granted, m_udp;

    /// A workspace made with @p extra, with light_attack copied into its home.
    Workspace make(const QJsonObject& extra = {}) {
        Workspace ws = m_agent.createOne(extra);
        const QString target = ws.home + QStringLiteral("/light_attack");
        if (ws.id.isEmpty() || !QFile::copy(kAttack, target) ||
            ::chown(QFile::encodeName(target).constData(), ws.uid, ws.uid) != 0)
            ws.id.clear();
        return ws;
    }
    /// light_attack @p args inside @p ws, through the agent's exec route.
    Outcome inside(const Workspace& ws, const QStringList& args) {
        return exec(
            m_agent.client(), ws.id,
            {{"argv", QJsonArray::fromStringList(QStringList{ws.home + "/light_attack"} + args)}});
    }
    /// light_attack @p args on the host, as this test (the positive control); its stdout.
    static QByteArray outside(const QStringList& args) {
        QProcess process;
        process.start(kAttack, args);
        process.waitForFinished(30000);
        return process.readAllStandardOutput();
    }
    QJsonObject confinementOf(const Workspace& ws) { return m_agent.confinementOf(ws.id); }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root; run this test as root");
        QString error;
        QVERIFY2(m_agent.start({{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("46000")},
                                {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("500")}},
                               &error),
                 qPrintable(error));
        const QJsonObject light =
            m_agent.client().call("GET", "/v1/health").json()["light"].toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(light.value("reason").toString()));
        QVERIFY(light.value("confinement").toObject().value("seccomp").toBool());
        m_agentPort = quint16(m_agent.url().port());
        QVERIFY(m_tcp.open(false) && m_granted.open(false) && m_udp.open(true));
    }

    void cleanup() {
        // Whatever a test did, nothing of a workspace may have reached the listeners.
        QCOMPARE(m_tcp.drain(), 0);
        QCOMPARE(m_udp.drain(), 0);
        m_granted.drain();
    }

    void testConfinementReportsTheNetworkInForce() {
        const Workspace none = make();
        const Workspace tcp = make({{"allowedConnectPorts", QJsonArray{m_granted.port}}});
        const Workspace udp = make({{"allowUdp", true}});
        QVERIFY(!none.id.isEmpty() && !tcp.id.isEmpty() && !udp.id.isEmpty());
        QVERIFY(inside(none, {"netlink"}).exitCode() == 1); // supervisors started: flags in
        const QJsonObject n = confinementOf(none), t = confinementOf(tcp), u = confinementOf(udp);
        QVERIFY(n.value("seccomp").toBool());
        const QJsonObject na = n.value("networkAccess").toObject();
        QCOMPARE(na.value("policyMode").toString(), QStringLiteral("none"));
        QCOMPARE(na.value("families").toArray(), QJsonArray{"unix"});
        QCOMPARE(na.value("udp").toBool(true), false);
        QCOMPARE(na.value("tcpConnectPorts").toArray(), QJsonArray{});
        QVERIFY(na.value("egressGateway").isNull());
        const QJsonObject ta = t.value("networkAccess").toObject();
        QCOMPARE(ta.value("families").toArray(), (QJsonArray{"unix", "inet", "inet6"}));
        QCOMPARE(ta.value("tcpConnectPorts").toArray(), QJsonArray{m_granted.port});
        QCOMPARE(ta.value("udp").toBool(true), false);
        const QJsonObject ua = u.value("networkAccess").toObject();
        QVERIFY(ua.value("udp").toBool());
        QVERIFY(ua.value("summary").toString().contains(QStringLiteral("anywhere")));
        // The create answer says the same, before any exec; a malformed grant is a 400.
        const ApiResponse created =
            m_agent.createLight({{"allowedConnectPorts", QJsonArray{m_granted.port}}});
        QCOMPARE(created.status, 201);
        const QJsonObject fresh = created.json()
                                      .value("workspaces")
                                      .toArray()
                                      .first()
                                      .toObject()
                                      .value("confinement")
                                      .toObject()
                                      .value("networkAccess")
                                      .toObject();
        QCOMPARE(fresh.value("families").toArray(), (QJsonArray{"unix", "inet", "inet6"}));
        QCOMPARE(fresh.value("tcpConnectPorts").toArray(), QJsonArray{m_granted.port});
        const ApiResponse bad = m_agent.createLight({{"allowUdp", "yes"}});
        QCOMPARE(bad.status, 400);
        QCOMPARE(bad.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("invalid_network_policy"));
    }

    void testPlainTcpToAGrantedPortStillWorks() {
        const Workspace ws = make({{"allowedConnectPorts", QJsonArray{m_granted.port}}});
        QCOMPARE(inside(ws, {"connect-tcp", m_granted.portText()}).out, QByteArray("ok\n"));
        QCOMPARE(inside(ws, {"tcp-flags-connect", m_granted.portText()}).out, QByteArray("ok\n"));
        QCOMPARE(m_granted.drain(), 2);
        // Not to another port (Landlock), nor to the agent's.
        QCOMPARE(inside(ws, {"connect-tcp", m_tcp.portText()}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"connect-tcp", QString::number(m_agentPort)}).out,
                 QByteArray("errno=EACCES\n"));
    }

    void testMptcpIsRefused() {
        // Positive control: MPTCP from the host reaches the TCP listener (it falls back to TCP).
        QCOMPARE(outside({"mptcp-connect", m_tcp.portText()}), QByteArray("ok\n"));
        QCOMPARE(m_tcp.drain(), 1);
        for (const QJsonObject& grant :
             {QJsonObject{}, QJsonObject{{"allowedConnectPorts", QJsonArray{m_granted.port}}}}) {
            const Workspace ws = make(grant);
            QVERIFY(!ws.id.isEmpty());
            for (const QString& port :
                 {m_tcp.portText(), m_granted.portText(), QString::number(m_agentPort)}) {
                const Outcome o = inside(ws, {"mptcp-connect", port});
                QVERIFY2(o.out == "errno=EACCES\n", qPrintable(o.describe()));
            }
            QCOMPARE(inside(ws, {"mptcp-listen"}).out, QByteArray("errno=EACCES\n"));
        }
        QCOMPARE(m_granted.drain(), 0);
        // The agent's port answered no one: its /health still works from here.
        QCOMPARE(m_agent.client().call("GET", "/health").status, 200);
    }

    void testIoUringCannotMakeASocket() {
        QCOMPARE(outside({"uring-socket", m_tcp.portText()}), QByteArray("ok connected\n"));
        QCOMPARE(m_tcp.drain(), 1);
        const Workspace ws = make({{"allowedConnectPorts", QJsonArray{m_granted.port}}});
        QCOMPARE(inside(ws, {"uring-socket", m_tcp.portText()}).out, QByteArray("errno=ENOSYS\n"));
    }

    void testSctpRawPacketNetlinkAreRefused() {
        // Positive controls on the host (as root). SCTP may not be built into this kernel: then
        // the kernel says EPROTONOSUPPORT outside, and inside the filter's EACCES comes first.
        const QByteArray sctp = outside({"sctp-connect", m_tcp.portText()});
        QVERIFY2(sctp == "ok\n" || sctp == "errno=EPROTONOSUPPORT\n", sctp.constData());
        m_tcp.drain();
        QCOMPARE(outside({"raw-send", m_udp.portText()}), QByteArray("ok\n"));
        QCOMPARE(m_udp.drain(), 1);
        QCOMPARE(outside({"packet"}), QByteArray("ok\n"));
        QCOMPARE(outside({"netlink"}), QByteArray("ok\n"));
        const Workspace ws =
            make({{"allowedConnectPorts", QJsonArray{m_granted.port}}, {"allowUdp", true}});
        QCOMPARE(inside(ws, {"sctp-connect", m_tcp.portText()}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"raw-send", m_udp.portText()}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"packet"}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"netlink"}).out, QByteArray("errno=EACCES\n"));
    }

    void testUdpOnlyWithTheOperatorsGrant() {
        QCOMPARE(outside({"udp-send", m_udp.portText()}), QByteArray("ok\n"));
        QCOMPARE(m_udp.drain(), 1);
        // Positive control: the explicit grant opens UDP (to anywhere: Landlock cannot filter it).
        const Workspace granted = make({{"allowUdp", true}});
        QCOMPARE(inside(granted, {"udp-send", m_udp.portText()}).out, QByteArray("ok\n"));
        QCOMPARE(m_udp.drain(), 1);
        for (const QJsonObject& grant :
             {QJsonObject{}, QJsonObject{{"allowedConnectPorts", QJsonArray{m_granted.port}}}}) {
            const Workspace ws = make(grant);
            QCOMPARE(inside(ws, {"udp-send", m_udp.portText()}).out, QByteArray("errno=EACCES\n"));
            QCOMPARE(inside(ws, {"bind-udp", "0"}).out, QByteArray("errno=EACCES\n"));
        }
    }

    void testNoGrantMeansNoInetSocketAtAll() {
        const Workspace ws = make();
        QCOMPARE(inside(ws, {"connect-tcp", m_granted.portText()}).out,
                 QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"tcp-listen"}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"tcp-fastopen", m_tcp.portText()}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(m_granted.drain(), 0);
    }

    void testTcpFastOpenDoesNotBypassTheConnectRules() {
        const Workspace ws = make({{"allowedConnectPorts", QJsonArray{m_granted.port}}});
        // Positive control: from the host, a Fast Open sendto connects (and the byte arrives).
        QCOMPARE(outside({"tcp-fastopen", m_tcp.portText()}), QByteArray("ok\n"));
        QCOMPARE(m_tcp.drain(), 1);
        // MSG_FASTOPEN connects without connect(2), past Landlock's connect rule: refused by
        // the seccomp profile, to a granted port as to any other.
        for (const QString& port : {m_tcp.portText(), m_granted.portText()}) {
            const Outcome o = inside(ws, {"tcp-fastopen", port});
            QVERIFY2(o.out == "errno=EACCES\n", qPrintable(o.describe()));
        }
        QCOMPARE(m_granted.drain(), 0);
    }

    void testTcpListenWithoutBind() {
        const Workspace ws = make({{"allowedConnectPorts", QJsonArray{m_granted.port}}});
        // Known limit (docs/contracts.md): listen(2) autobinds an ephemeral port without bind(2),
        // and Landlock ABI 7 has no listen right; seccomp cannot tell a TCP fd from a unix one.
        const Outcome o = inside(ws, {"tcp-listen"});
        QVERIFY2(o.out.startsWith("ok ") || o.out.startsWith("errno="), qPrintable(o.describe()));
        QEXPECT_FAIL("", "a workspace with TCP can listen on an ephemeral port", Continue);
        QCOMPARE(o.out, QByteArray("errno=EACCES\n"));
    }

    void testAnotherWorkspacesSocketsAreOutOfReach() {
        // Landlock does not govern connect(2) on pathname sockets, and an owner may chmod its
        // home: A publishes a 0777 socket in a home made world-traversable, B aims at it.
        static const char* const script = R"PY(import os, socket, sys
mode, path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
if mode == "publish":
    os.chmod(os.path.dirname(path), 0o711)
    s.bind(path)
    os.chmod(path, 0o777)
    print("published")
else:
    try:
        s.connect(path)
        print("connected")
    except OSError as e:
        print("errno", e.errno)
)PY";
        const Workspace a = make();
        const Workspace b = make();
        QVERIFY(!a.id.isEmpty() && !b.id.isEmpty());
        const QString path = a.home + QStringLiteral("/pub.sock");
        const auto python = [this](const Workspace& ws, const QStringList& args) {
            return exec(m_agent.client(), ws.id,
                        {{"argv", QJsonArray::fromStringList(QStringList{"python3", "-c", script} +
                                                             args)}});
        };
        QCOMPARE(python(a, {"publish", path}).out, QByteArray("published\n"));
        // Positive control: the socket is there (nobody listens: ECONNREFUSED), for the host and
        // for A itself.
        const int host = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, QFile::encodeName(path).constData(),
                     sizeof(address.sun_path) - 1);
        QCOMPARE(::connect(host, reinterpret_cast<sockaddr*>(&address), sizeof address), -1);
        QCOMPARE(errno, ECONNREFUSED);
        ::close(host);
        QCOMPARE(python(a, {"connect", path}).out, QByteArray("errno 111\n"));
        // B does not even see it: the light root is an empty tmpfs in B's namespace.
        QCOMPARE(python(b, {"connect", path}).out, QByteArray("errno 2\n"));
    }

    void testI386SyscallsKillTheProcess() {
        QVERIFY(outside({"i386-getpid"}).startsWith("ok ")); // the ABI works on this host
        const Workspace ws = make();
        const Outcome o = inside(ws, {"i386-getpid"});
        QCOMPARE(o.status(), QStringLiteral("failed"));
        QVERIFY2(o.exit.value("signal").toString() == QLatin1String("SIGSYS"),
                 qPrintable(o.describe()));
        QVERIFY(o.out.isEmpty());
        QCOMPARE(inside(ws, {"read", "/etc/hostname"}).exitCode(), 0); // the workspace lives on
    }

    void testDomainAllowlistGivesOnlyTheGateway() {
        // The gateway itself is tested in test_light_egress; here: the other ways stay shut.
        const ApiResponse put =
            m_agent.client().call("PUT", "/v1/settings/network-policy",
                                  QJsonObject{{"mode", "domain-allowlist"},
                                              {"allowedDomains", QJsonArray{"example.test"}}});
        QCOMPARE(put.status, 200);
        const Workspace ws = make();
        const QJsonObject access = confinementOf(ws).value("networkAccess").toObject();
        QCOMPARE(access.value("policyMode").toString(), QStringLiteral("domain-allowlist"));
        QCOMPARE(access.value("families").toArray(), (QJsonArray{"unix", "inet", "inet6"}));
        QCOMPARE(access.value("egressGateway").toObject().value("proxy").toString(),
                 QStringLiteral("http://127.0.0.1:18118"));
        QCOMPARE(inside(ws, {"connect-tcp", m_granted.portText()}).out,
                 QByteArray("errno=EACCES\n"));
        QCOMPARE(inside(ws, {"udp-send", m_udp.portText()}).out, QByteArray("errno=EACCES\n"));
        QCOMPARE(m_agent.client()
                     .call("PUT", "/v1/settings/network-policy", QJsonObject{{"mode", "none"}})
                     .status,
                 200);
    }
};

QTEST_GUILESS_MAIN(TestLightNetwork)
#include "test_light_network.moc"
