// WebSocket through the port proxy of a light workspace, real agent run as root
// (docs/light-workspaces.md; RFC 6455 §4): a hand-written echo server in the workspace, a
// hand-written client here. Every refusal is preceded by a positive control.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include "support/ManagedApi.h"
#include "support/RawHttp.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QTcpSocket>
#include <QtTest>

#include <utility>

using namespace lightagent;
namespace ts = runbox::testsupport;

namespace {

// A WebSocket echo server on ~/.runbox/proxy/<port>.sock, handshake written by hand (RFC 6455
// §4.2.2): answers 101 with X-Info (its uid, the Authorization and X-Forwarded-Prefix it saw),
// then echoes every frame unmasked; "/plain" answers 200 instead, "/wrong" a wrong accept.
const char kWsServer[] = R"PY(
import os, socket, sys, threading, hashlib, base64
port = sys.argv[1]
d = os.path.expanduser('~/.runbox/proxy'); os.makedirs(d, exist_ok=True)
p = d + '/' + port + '.sock'
try: os.unlink(p)
except FileNotFoundError: pass
G = b'258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
def serve(c):
    try:
        h = b''
        while b'\r\n\r\n' not in h:
            x = c.recv(4096)
            if not x: return
            h += x
        head, rest = h.split(b'\r\n\r\n', 1)
        lines = head.decode('latin1').split('\r\n')
        path = lines[0].split(' ')[1]
        hd = {}
        for l in lines[1:]:
            k, v = l.split(':', 1); hd[k.strip().lower()] = v.strip()
        acc = base64.b64encode(hashlib.sha1(hd.get('sec-websocket-key', '').encode() + G).digest())
        if path.startswith('/plain'):
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno'); return
        if path.startswith('/wrong'):
            acc = base64.b64encode(b'x' * 20)
        info = 'uid=%d auth=%s prefix=%s path=%s' % (os.getuid(), hd.get('authorization'),
                                                      hd.get('x-forwarded-prefix'), path)
        c.sendall(b'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n'
                  b'Connection: Upgrade\r\nSec-WebSocket-Accept: ' + acc +
                  b'\r\nX-Info: ' + info.encode() + b'\r\n\r\n')
        buf = [rest]
        def n(k):
            while len(buf[0]) < k:
                x = c.recv(1 << 16)
                if not x: raise EOFError
                buf[0] += x
            r = buf[0][:k]; buf[0] = buf[0][k:]
            return r
        while True:
            b0, b1 = n(2)
            op = b0 & 15; ln = b1 & 127
            if ln == 126: ln = int.from_bytes(n(2), 'big')
            elif ln == 127: ln = int.from_bytes(n(8), 'big')
            mask = n(4) if b1 & 128 else bytes(4)
            raw = n(ln)
            m = (mask * (ln // 4 + 1))[:ln]
            data = (int.from_bytes(raw, 'big') ^ int.from_bytes(m, 'big')).to_bytes(ln, 'big')
            if ln < 126: hdr = bytes([0x80 | op, ln])
            elif ln < 65536: hdr = bytes([0x80 | op, 126]) + ln.to_bytes(2, 'big')
            else: hdr = bytes([0x80 | op, 127]) + ln.to_bytes(8, 'big')
            c.sendall(hdr + data)
            if op == 8: return
    except EOFError: pass
    finally: c.close()
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(16)
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
)PY";

/// A WebSocket client on a raw TCP connection to the agent (RFC 6455 §5: masked frames out).
struct WsClient {
    QTcpSocket socket;
    QByteArray buffer;
    QByteArray key = QByteArray("0123456789abcdef").toBase64();

    bool fill(qsizetype want, int timeoutMs = 30000) {
        QElapsedTimer t;
        t.start();
        while (buffer.size() < want) {
            if (t.elapsed() > timeoutMs)
                return false;
            if (!socket.waitForReadyRead(200) &&
                socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0)
                return false;
            buffer += socket.readAll();
        }
        return true;
    }
    /// Sends the handshake for @p target signed with @p token (none when empty, or
    /// @p tamper'ed); returns the response head (up to the blank line), or what came.
    QByteArray handshake(quint16 port, const QByteArray& target, const QByteArray& token,
                         QList<QPair<QByteArray, QByteArray>> extra = {}, bool tamper = false) {
        socket.connectToHost(QHostAddress::LocalHost, port);
        if (!socket.waitForConnected(5000))
            return {};
        ts::HeaderList headers;
        if (!token.isEmpty())
            headers = ts::signedHeaders(token, "GET", tamper ? target + "x" : target, {},
                                        QDateTime::currentMSecsSinceEpoch());
        headers += {{"Upgrade", "websocket"}, {"Connection", "Upgrade"}};
        bool hasKey = false, hasVersion = false;
        for (const auto& h : extra) {
            hasKey = hasKey || h.first == "Sec-WebSocket-Key";
            hasVersion = hasVersion || h.first == "Sec-WebSocket-Version";
        }
        if (!hasKey)
            headers.append(qMakePair(QByteArray("Sec-WebSocket-Key"), key));
        if (!hasVersion)
            headers.append(qMakePair(QByteArray("Sec-WebSocket-Version"), QByteArray("13")));
        headers += extra;
        socket.write(ts::buildRequest("GET", target, headers));
        QElapsedTimer t;
        t.start();
        while (buffer.indexOf("\r\n\r\n") < 0 && t.elapsed() < 30000) {
            if (!socket.waitForReadyRead(200) && socket.state() != QAbstractSocket::ConnectedState)
                break;
            buffer += socket.readAll();
        }
        buffer += socket.readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return std::exchange(buffer, {});
        const QByteArray head = buffer.left(end + 4);
        buffer.remove(0, end + 4);
        return head;
    }
    void send(int opcode, const QByteArray& payload) {
        QByteArray frame;
        frame += char(0x80 | opcode);
        const qsizetype n = payload.size();
        if (n < 126) {
            frame += char(0x80 | n);
        } else if (n < 65536) {
            frame += char(0x80 | 126);
            frame += char(n >> 8);
            frame += char(n & 0xff);
        } else {
            frame += char(0x80 | 127);
            for (int i = 7; i >= 0; --i)
                frame += char((quint64(n) >> (8 * i)) & 0xff);
        }
        const QByteArray mask("\x12\x34\x56\x78", 4);
        frame += mask;
        QByteArray masked = payload;
        for (qsizetype i = 0; i < masked.size(); ++i)
            masked[i] = char(masked[i] ^ mask[i % 4]);
        socket.write(frame + masked);
    }
    /// One unmasked frame from the server: {opcode, payload}; opcode −1 on failure.
    QPair<int, QByteArray> receive() {
        if (!fill(2))
            return {-1, {}};
        const int opcode = uchar(buffer[0]) & 15;
        quint64 n = uchar(buffer[1]) & 127;
        qsizetype at = 2;
        if (n == 126) {
            if (!fill(4))
                return {-1, {}};
            n = (quint64(uchar(buffer[2])) << 8) | uchar(buffer[3]);
            at = 4;
        } else if (n == 127) {
            if (!fill(10))
                return {-1, {}};
            n = 0;
            for (int i = 0; i < 8; ++i)
                n = (n << 8) | uchar(buffer[2 + i]);
            at = 10;
        }
        if (!fill(at + qsizetype(n)))
            return {-1, {}};
        const QByteArray payload = buffer.mid(at, qsizetype(n));
        buffer.remove(0, at + qsizetype(n));
        return {opcode, payload};
    }
};

QByteArray headerOf(const QByteArray& head, const QByteArray& name) {
    for (const QByteArray& line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == name)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

} // namespace

class TestLightWebSocket final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(44400, 200, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    bool startWsServer(const Workspace& ws, int port) {
        QJsonObject write{{"argv", QJsonArray{"/bin/sh", "-c", "cat > ws.py"}},
                          {"stdin", QString::fromLatin1(kWsServer)}};
        if (exec(m_agent.client(), ws.id, write).status() != QLatin1String("completed"))
            return false;
        return sh(m_agent.client(), ws.id,
                  QStringLiteral("setsid python3 ws.py %1 </dev/null >/dev/null 2>&1 & "
                                 "for i in $(seq 200); do [ -S ~/.runbox/proxy/%1.sock ] && "
                                 "exit 0; sleep 0.05; done; exit 1")
                      .arg(port))
                   .status() == QLatin1String("completed");
    }

    QByteArray wsTarget(const Workspace& ws, int port, const QByteArray& rest = "/chat?room=1") {
        return "/v1/workspaces/" + ws.id.toUtf8() + "/proxy/" + QByteArray::number(port) + rest;
    }

    void testWebSocketEchoesThroughTheProxyBothWays() {
        QVERIFY(startWsServer(m_a, 9001));
        WsClient ws;
        const QByteArray head =
            ws.handshake(quint16(m_agent.url().port()), wsTarget(m_a, 9001), m_a.token);
        QVERIFY2(head.startsWith("HTTP/1.1 101"), head.constData());
        QCOMPARE(headerOf(head, "sec-websocket-accept"),
                 QCryptographicHash::hash(ws.key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11",
                                          QCryptographicHash::Sha1)
                     .toBase64());
        QCOMPARE(headerOf(head, "upgrade").toLower(), QByteArray("websocket"));
        // The workspace's own server, which never saw the agent's credentials.
        QCOMPARE(headerOf(head, "x-info"), "uid=" + QByteArray::number(m_a.uid) +
                                               " auth=None prefix=/v1/workspaces/" +
                                               m_a.id.toUtf8() + "/proxy/9001 path=/chat?room=1");

        ws.send(1, "hello");
        QCOMPARE(ws.receive(), (QPair<int, QByteArray>{1, "hello"}));
        QByteArray big;
        for (int i = 0; i < (1 << 20) + 3; ++i)
            big += char(i * 31 + (i >> 9));
        ws.send(2, big);
        ws.send(1, "after");
        const auto echoed = ws.receive();
        QCOMPARE(echoed.first, 2);
        QCOMPARE(echoed.second.size(), big.size());
        QVERIFY(echoed.second == big);
        QCOMPARE(ws.receive(), (QPair<int, QByteArray>{1, "after"}));
        ws.send(8, QByteArray("\x03\xe8", 2));
        QCOMPARE(ws.receive().first, 8);
        // The server closed after its close frame: so does the agent's side.
        QVERIFY(waitUntil(
            [&] {
                ws.socket.waitForReadyRead(50);
                return ws.socket.state() != QAbstractSocket::ConnectedState;
            },
            10000));
    }

    void testWebSocketUpgradeIsAuthenticatedAndScoped() {
        QVERIFY(startWsServer(m_b, 9002));
        const quint16 port = quint16(m_agent.url().port());
        {
            WsClient own; // positive control: B's token on B
            QVERIFY(own.handshake(port, wsTarget(m_b, 9002), m_b.token).startsWith("HTTP/1.1 101"));
        }
        {
            WsClient other; // A's token on B's workspace
            const QByteArray head = other.handshake(port, wsTarget(m_b, 9002), m_a.token);
            QVERIFY2(head.startsWith("HTTP/1.1 404"), head.constData());
        }
        {
            WsClient anonymous;
            QVERIFY(anonymous.handshake(port, wsTarget(m_b, 9002), {}).startsWith("HTTP/1.1 401"));
        }
        {
            WsClient forged; // signed over another target
            QVERIFY(forged.handshake(port, wsTarget(m_b, 9002), m_b.token, {}, true)
                        .startsWith("HTTP/1.1 401"));
        }
        // A link A plants to B's socket is refused for upgrades as for plain requests.
        ApiClient a(m_agent.url(), m_a.token);
        QCOMPARE(sh(a, m_a.id,
                    QStringLiteral("mkdir -p ~/.runbox/proxy && "
                                   "ln -sf %1/.runbox/proxy/9002.sock ~/.runbox/proxy/9002.sock")
                        .arg(m_b.home))
                     .status(),
                 QStringLiteral("completed"));
        WsClient linked;
        const QByteArray head = linked.handshake(port, wsTarget(m_a, 9002), m_a.token);
        QVERIFY2(head.startsWith("HTTP/1.1 403"), head.constData());
        QCOMPARE(sh(a, m_a.id, QStringLiteral("rm ~/.runbox/proxy/9002.sock")).status(),
                 QStringLiteral("completed"));
    }

    void testWebSocketRefusesBadHandshakesAndBadAnswers() {
        QVERIFY(startWsServer(m_a, 9003));
        const quint16 port = quint16(m_agent.url().port());
        {
            WsClient good; // positive control
            QVERIFY(
                good.handshake(port, wsTarget(m_a, 9003), m_a.token).startsWith("HTTP/1.1 101"));
        }
        {
            WsClient plain; // the workspace answers 200: not relayed as an upgrade
            const QByteArray head = plain.handshake(port, wsTarget(m_a, 9003, "/plain"), m_a.token);
            QVERIFY2(head.startsWith("HTTP/1.1 502"), head.constData());
            QVERIFY(waitUntil(
                [&] {
                    plain.socket.waitForReadyRead(50);
                    plain.buffer += plain.socket.readAll();
                    return plain.buffer.contains("proxy_upgrade_refused");
                },
                10000));
        }
        {
            WsClient wrong; // a 101 with a Sec-WebSocket-Accept for another key
            QVERIFY(wrong.handshake(port, wsTarget(m_a, 9003, "/wrong"), m_a.token)
                        .startsWith("HTTP/1.1 502"));
        }
        {
            WsClient noKey;
            QVERIFY(noKey
                        .handshake(port, wsTarget(m_a, 9003), m_a.token,
                                   {{"Sec-WebSocket-Key", "short"}})
                        .startsWith("HTTP/1.1 400"));
        }
        {
            WsClient oldVersion;
            QVERIFY(oldVersion
                        .handshake(port, wsTarget(m_a, 9003), m_a.token,
                                   {{"Sec-WebSocket-Version", "8"}})
                        .startsWith("HTTP/1.1 426"));
        }
    }
};

QTEST_GUILESS_MAIN(TestLightWebSocket)
#include "test_light_websocket.moc"
