#include "egress/NetnsHttpServer.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTest>

#include <unistd.h>

namespace runbox::egress::testing {

namespace {

const char* kServerScript = R"PY(
import socket, sys, threading
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(64)
print("LISTENING", flush=True)
lock = threading.Lock()
def say(*words):
    with lock:
        print(*words, flush=True)
def serve(c):
    data = b""
    c.settimeout(30)
    try:
        while b"\r\n\r\n" not in data:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
        say("REQ", data.split(b"\r\n", 1)[0].decode("latin1"))
        body = b"netns-hello\n"
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                  % len(body) + body)
    except OSError:
        pass
    c.close()
while True:
    c, peer = s.accept()
    say("CONN", peer[0])
    threading.Thread(target=serve, args=(c,), daemon=True).start()
)PY";

} // namespace

NetnsHttpServer::NetnsHttpServer() {
    connect(&m_server, &QProcess::readyReadStandardOutput, this, &NetnsHttpServer::readOutput);
}

NetnsHttpServer::~NetnsHttpServer() {
    teardown();
}

bool NetnsHttpServer::run(const QStringList& args, QString* error) {
    QProcess ip;
    ip.setProcessChannelMode(QProcess::MergedChannels);
    ip.start(QStringLiteral("ip"), args);
    if (!ip.waitForFinished(10000) || ip.exitStatus() != QProcess::NormalExit ||
        ip.exitCode() != 0) {
        *error = QStringLiteral("`ip %1` failed: %2")
                     .arg(args.join(' '), QString::fromLocal8Bit(ip.readAll()).trimmed());
        return false;
    }
    return true;
}

bool NetnsHttpServer::start(quint16 port, QString* whyNot) {
    m_port = port;
    if (::geteuid() != 0) {
        *whyNot = QStringLiteral("creating a network namespace needs root");
        return false;
    }
    const QString python = QStringLiteral("/usr/bin/python3");
    if (QStandardPaths::findExecutable(QStringLiteral("ip")).isEmpty() ||
        !QFileInfo(python).isExecutable()) {
        *whyNot = QStringLiteral("needs ip(8) (iproute2) and /usr/bin/python3");
        return false;
    }
    const qint64 pid = ::getpid();
    // A /30 in 10.199.0.0/16 from the pid; the next ones if it is already in use on this host.
    QProcess list;
    list.start(QStringLiteral("ip"), {QStringLiteral("-o"), QStringLiteral("addr")});
    list.waitForFinished(5000);
    const QByteArray used = list.readAll();
    int block = int(pid % 16384);
    for (int tries = 0; tries < 64; ++tries, block = (block + 1) % 16384) {
        const QString base = QStringLiteral("10.199.%1.").arg(block / 64);
        const int low = (block % 64) * 4;
        m_hostAddress = base + QString::number(low + 1);
        m_serverAddress = base + QString::number(low + 2);
        m_cidr = base + QString::number(low) + QStringLiteral("/30");
        if (!used.contains((m_hostAddress + '/').toLatin1()) &&
            !used.contains((m_serverAddress + '/').toLatin1()))
            break;
    }
    m_namespace = QStringLiteral("rbx-egress-%1").arg(pid);
    m_hostVeth = QStringLiteral("rbxh%1").arg(pid % 100000000);
    m_nsVeth = QStringLiteral("rbxn%1").arg(pid % 100000000);
    QString error;
    if (!run({"netns", "add", m_namespace}, &error)) {
        *whyNot = QStringLiteral("ip netns is not usable here: %1").arg(error);
        return false;
    }
    m_namespaceCreated = true;
    const bool ok =
        run({"link", "add", m_hostVeth, "type", "veth", "peer", "name", m_nsVeth, "netns",
             m_namespace},
            &error) &&
        (m_vethCreated = true) &&
        run({"addr", "add", m_hostAddress + QStringLiteral("/30"), "dev", m_hostVeth}, &error) &&
        run({"link", "set", m_hostVeth, "up"}, &error) &&
        run({"-n", m_namespace, "addr", "add", m_serverAddress + QStringLiteral("/30"), "dev",
             m_nsVeth},
            &error) &&
        run({"-n", m_namespace, "link", "set", m_nsVeth, "up"}, &error) &&
        run({"-n", m_namespace, "link", "set", "lo", "up"}, &error);
    if (!ok) {
        *whyNot = QStringLiteral("cannot wire the test's network namespace: %1").arg(error);
        teardown();
        return false;
    }
    m_server.start(QStringLiteral("ip"),
                   {"netns", "exec", m_namespace, python, "-u", "-c",
                    QString::fromLatin1(kServerScript), QString::number(port)});
    QDeadlineTimer deadline(15000);
    while (!m_pending.contains("LISTENING\n") && !deadline.hasExpired() &&
           m_server.state() != QProcess::NotRunning) {
        m_server.waitForReadyRead(100);
        readOutput();
    }
    if (!m_pending.contains("LISTENING\n")) {
        *whyNot = QStringLiteral("the server in the namespace did not start: %1")
                      .arg(QString::fromLocal8Bit(m_server.readAllStandardError()));
        teardown();
        return false;
    }
    m_pending.replace("LISTENING\n", "");
    m_running = true;
    return true;
}

void NetnsHttpServer::readOutput() {
    m_pending += m_server.readAllStandardOutput();
    qsizetype newline;
    while (m_running && (newline = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(newline);
        m_pending.remove(0, newline + 1);
        if (line.startsWith("CONN "))
            ++m_connections;
        else if (line.startsWith("REQ "))
            m_requests.append(line.mid(4));
    }
}

int NetnsHttpServer::connections() {
    // Let the server's report of a connection reach us: it prints before serving the request,
    // and the clients have their response by the time this is asked.
    m_server.waitForReadyRead(50);
    readOutput();
    return m_connections;
}

QList<QByteArray> NetnsHttpServer::requestLines() {
    m_server.waitForReadyRead(50);
    readOutput();
    return m_requests;
}

void NetnsHttpServer::teardown() {
    m_running = false;
    if (m_server.state() != QProcess::NotRunning) {
        m_server.kill();
        m_server.waitForFinished(5000);
    }
    QString ignored;
    if (m_vethCreated)
        run({"link", "del", m_hostVeth}, &ignored); // removes its peer in the namespace too
    if (m_namespaceCreated)
        run({"netns", "del", m_namespace}, &ignored);
    m_vethCreated = m_namespaceCreated = false;
}

} // namespace runbox::egress::testing
