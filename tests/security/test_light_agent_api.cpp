// Light workspaces through the real agent, the agent running as root (issue 7): the parts of the
// API that must be identical to strong workspaces — managed executions with logs, the file API on
// the home — and WebSocket through the port proxy. Two workspaces A and B; every refusal is
// preceded by a positive control.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include "support/ManagedApi.h"
#include "support/RawHttp.h"

#include "shared/Crypto.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHostAddress>
#include <QNetworkReply>
#include <QTcpSocket>
#include <QtTest>

#include <sys/stat.h>
#include <utility>

using namespace lightagent;
namespace ts = runbox::testsupport;

namespace {

QByteArray seqBytes(int n) {
    QByteArray out;
    for (int i = 1; i <= n; ++i)
        out += QByteArray::number(i) + '\n';
    return out;
}

/// A blocking signed upload (`PUT …/files/PATH`): the status and body.
ApiResponse putFile(ApiClient& client, const Workspace& ws, const QByteArray& pathAndQuery,
                    const QByteArray& data) {
    QBuffer buffer;
    buffer.setData(data);
    buffer.open(QIODevice::ReadOnly);
    std::unique_ptr<QNetworkReply> reply(
        client.sendStream("PUT", "/v1/workspaces/" + ws.id.toUtf8() + "/files/" + pathAndQuery,
                          &buffer, runbox::crypto::sha256Hex(data)));
    if (!reply->isFinished()) {
        QEventLoop loop;
        QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(60000, &loop, &QEventLoop::quit);
        loop.exec();
    }
    ApiResponse r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    return r;
}

QByteArray filesPath(const Workspace& ws, const QByteArray& path) {
    return "/v1/workspaces/" + ws.id.toUtf8() + "/files/" + path;
}

uid_t ownerOf(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_uid : uid_t(-1);
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

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

QJsonObject shBody(const QString& script, QJsonObject extra = {}) {
    extra.insert(QStringLiteral("argv"), QJsonArray{"/bin/sh", "-c", script});
    return extra;
}

} // namespace

class TestLightAgentApi final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

    QString submit(ApiClient& client, const Workspace& ws, const QJsonObject& body) {
        const ApiResponse r = ts::submitExecution(client, ws.id, body);
        if (r.status != 202) {
            qWarning("submit: %d %s", r.status, r.body.constData());
            return {};
        }
        return r.json().value("executionId").toString();
    }

    QString state(ApiClient& client, const QString& executionId) {
        return ts::executionRecord(client, executionId).value("state").toString();
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root (setuid/chown); run this test as root");
        QString error;
        QVERIFY2(
            m_agent.start({{"RUNBOX_LIGHT_UID_FIRST", "44000"}, {"RUNBOX_LIGHT_UID_COUNT", "500"}},
                          &error),
            qPrintable(error));
        const ApiResponse health = m_agent.client().call("GET", "/v1/health");
        const QJsonObject light = health.json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(QStringLiteral("light tier unavailable here: %1")
                                 .arg(light.value("reason").toString())));
        m_a = m_agent.createOne();
        m_b = m_agent.createOne();
        QVERIFY(!m_a.id.isEmpty() && !m_b.id.isEmpty());
    }

    // ---- managed executions ----

    void testManagedExecutionLogIsByteExactAndFollowable() {
        ApiClient a(m_agent.url(), m_a.token);
        const QByteArray stdinData("line one\nno newline at the end");
        const QString id =
            submit(a, m_a,
                   shBody(QStringLiteral("printf xyz; seq 1 20000; cat; printf 'err\\377\\n' >&2; "
                                         "echo made > created.txt; id -u"),
                          {{"stdin", QString::fromUtf8(stdinData)}}));
        QVERIFY(!id.isEmpty());
        // Followed from offset 0 while it runs, to its exit event.
        const ts::LogCapture log = ts::readLog(a, id, 0, true);
        QCOMPARE(log.status, 200);
        QVERIFY(log.contiguous);
        QVERIFY(log.endsWithExit());
        const QByteArray expected =
            "xyz" + seqBytes(20000) + stdinData + QByteArray::number(m_a.uid) + '\n';
        QCOMPARE(log.stdoutBytes.size(), expected.size());
        QVERIFY(log.stdoutBytes == expected);
        QCOMPARE(log.stderrBytes, QByteArray("err\xff\n"));
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(log.exitEvent.value("exitCode").toInt(), 0);
        QVERIFY(log.exitEvent.value("createdFiles").toArray().contains(QJsonValue("created.txt")));

        const QJsonObject record = ts::executionRecord(a, id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(record.value("workspace").toString(), m_a.id);
        // Read again from an offset inside the log: the same bytes.
        const ts::LogCapture tail = ts::readLog(a, id, 3, false);
        QCOMPARE(tail.status, 200);
        QVERIFY(tail.bytes.startsWith(seqBytes(3)));
    }

    void testManagedExecutionIsCancelledWithItsWholeTree() {
        ApiClient a(m_agent.url(), m_a.token);
        const QString id = submit(a, m_a,
                                  shBody(QStringLiteral("setsid sleep 1000 </dev/null >/dev/null "
                                                        "2>&1 & echo started; sleep 1000")));
        QVERIFY(!id.isEmpty());
        // Positive control: it runs, under A's uid, with its setsid'd child.
        QVERIFY(waitUntil([&] { return state(a, id) == QLatin1String("running"); }, 30000));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(m_a.uid, "sleep 1000").size() >= 2; },
                          15000));
        const ApiResponse cancel = a.call("POST", "/v1/executions/" + id.toUtf8() + "/cancel");
        QCOMPARE(cancel.status, 200);
        const QJsonObject final = ts::waitUntilFinal(a, id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(m_a.uid, "sleep 1000").isEmpty(); },
                          10000));
        const ts::LogCapture log = ts::readLog(a, id, 0, true);
        QCOMPARE(log.stdoutBytes, QByteArray("started\n"));
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("cancelled"));
    }

    void testManagedExecutionTimesOut() {
        ApiClient a(m_agent.url(), m_a.token);
        const QString id =
            submit(a, m_a,
                   shBody(QStringLiteral("setsid sleep 1000 </dev/null >/dev/null 2>&1 & "
                                         "echo before; sleep 1000"),
                          {{"executionTimeoutMs", 1500}}));
        QVERIFY(!id.isEmpty());
        const QJsonObject final = ts::waitUntilFinal(a, id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("timed_out"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(m_a.uid, "sleep 1000").isEmpty(); },
                          10000));
        const ts::LogCapture log = ts::readLog(a, id, 0, false);
        QCOMPARE(log.stdoutBytes, QByteArray("before\n"));
        // A failing command is failed with its code, not an error of the agent.
        const QString failing = submit(a, m_a, shBody(QStringLiteral("exit 3")));
        const QJsonObject failed = ts::waitUntilFinal(a, failing);
        QCOMPARE(failed.value("state").toString(), QStringLiteral("failed"));
        QCOMPARE(failed.value("exitCode").toInt(), 3);
    }

    void testWorkspaceTokenSeesOnlyItsOwnExecutions() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        const QString id = submit(a, m_a, shBody(QStringLiteral("echo a-private")));
        QVERIFY(!id.isEmpty());
        ts::waitUntilFinal(a, id);
        const QByteArray path = "/v1/executions/" + id.toUtf8();
        // Positive controls: A and the agent see it.
        QCOMPARE(a.call("GET", path).status, 200);
        QCOMPARE(m_agent.client().call("GET", path).status, 200);
        QCOMPARE(ts::readLog(a, id, 0, false).stdoutBytes, QByteArray("a-private\n"));
        const QJsonArray listedForA =
            a.call("GET", "/v1/executions").json().value("executions").toArray();
        bool inA = false;
        for (const QJsonValue& v : listedForA)
            inA = inA || v.toObject().value("executionId").toString() == id;
        QVERIFY(inA);

        // B's token: not found, not listed, no log, no cancel, and no submit into A.
        QCOMPARE(b.call("GET", path).status, 404);
        const ts::LogCapture bLog = ts::readLog(b, id, 0, false);
        QCOMPARE(bLog.status, 404);
        QVERIFY(!bLog.bytes.contains("a-private"));
        QCOMPARE(b.call("POST", path + "/cancel").status, 404);
        const QJsonArray listedForB = b.call("GET", "/v1/executions?workspace=" + m_a.id.toUtf8())
                                          .json()
                                          .value("executions")
                                          .toArray();
        QCOMPARE(listedForB.size(), 0);
        QCOMPARE(ts::submitExecution(b, m_a.id, shBody(QStringLiteral("true"))).status, 404);
    }

    void testRunningManagedExecutionIsNeverEvictedAsIdle() {
        Workspace c = m_agent.createOne({{"idleTimeoutS", 2}});
        QVERIFY(!c.id.isEmpty());
        ApiClient client(m_agent.url(), c.token);
        const QString id = submit(client, c, shBody(QStringLiteral("sleep 4; echo survived")));
        QVERIFY(!id.isEmpty());
        const QJsonObject final = ts::waitUntilFinal(m_agent.client(), id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(ts::readLog(m_agent.client(), id, 0, false).stdoutBytes, QByteArray("survived\n"));
        // Once nothing runs, the idle workspace goes (positive control of the eviction).
        QVERIFY(waitUntil(
            [&] {
                return m_agent.client()
                           .call("GET", "/v1/workspaces?isolation=light")
                           .body.indexOf(c.id.toUtf8()) < 0;
            },
            20000));
    }

    void testDeletingTheWorkspaceCancelsItsManagedExecution() {
        Workspace c = m_agent.createOne();
        QVERIFY(!c.id.isEmpty());
        const QString id = submit(m_agent.client(), c, shBody(QStringLiteral("sleep 1000")));
        QVERIFY(waitUntil([&] { return state(m_agent.client(), id) == QLatin1String("running"); },
                          30000));
        QCOMPARE(m_agent.client().call("DELETE", "/v1/workspaces/" + c.id.toUtf8()).status, 200);
        const QJsonObject final = ts::waitUntilFinal(m_agent.client(), id);
        QCOMPARE(final.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid).isEmpty(); }, 10000));
    }
    // ---- the file API on the home ----

    void testFilesWrittenThroughTheApiBelongToTheWorkspaceUid() {
        ApiClient a(m_agent.url(), m_a.token);
        QByteArray data;
        for (int i = 0; i < 70000; ++i)
            data += char(i * 7);
        const ApiResponse put = putFile(a, m_a, "up/dir/data.bin?parents=true", data);
        QCOMPARE(put.status, 201);
        const QString host = m_a.home + QStringLiteral("/up/dir/data.bin");
        QCOMPARE(ownerOf(host), m_a.uid);
        QCOMPARE(ownerOf(m_a.home + QStringLiteral("/up")), m_a.uid);
        QCOMPARE(ownerOf(m_a.home + QStringLiteral("/up/dir")), m_a.uid);
        QVERIFY(fileBytes(host) == data);
        // The workspace's own code reads and changes it (it owns it), and sees it in the listing.
        const Outcome used = sh(a, m_a.id,
                                QStringLiteral("cmp up/dir/data.bin up/dir/data.bin && "
                                               "echo tail >> up/dir/data.bin && ls up/dir"));
        QCOMPARE(used.status(), QStringLiteral("completed"));
        QCOMPARE(used.out, QByteArray("data.bin\n"));
        const ApiResponse got = a.call("GET", filesPath(m_a, "up/dir/data.bin"));
        QCOMPARE(got.status, 200);
        QVERIFY(got.body == data + "tail\n");
        const ApiResponse listing = a.call("GET", filesPath(m_a, "up/dir"));
        QCOMPARE(listing.status, 200);
        QVERIFY(listing.body.contains("data.bin"));

        const QByteArray move = "/v1/workspaces/" + m_a.id.toUtf8() + "/files:move";
        QCOMPARE(a.call("POST", move, {{"from", "up/dir/data.bin"}, {"to", "moved.bin"}}).status,
                 200);
        QCOMPARE(ownerOf(m_a.home + QStringLiteral("/moved.bin")), m_a.uid);
        QCOMPARE(sh(a, m_a.id, QStringLiteral("test -f moved.bin && ! test -e up/dir/data.bin"))
                     .status(),
                 QStringLiteral("completed"));
        QCOMPARE(a.call("DELETE", filesPath(m_a, "moved.bin")).status, 200);
        QVERIFY(!QFileInfo::exists(m_a.home + QStringLiteral("/moved.bin")));
        QCOMPARE(a.call("GET", filesPath(m_a, "moved.bin")).status, 404);
        // Created as the workspace, not as root: a 0600 file of A's is A's to read.
        QCOMPARE(putFile(a, m_a, "private.txt", "p").status, 201);
        QCOMPARE(sh(a, m_a.id, QStringLiteral("chmod 600 private.txt && cat private.txt")).out,
                 QByteArray("p"));
    }

    void testWorkspaceTokenCannotUseAnotherWorkspacesFiles() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        QCOMPARE(putFile(b, m_b, "b-only.txt", "b-secret").status, 201);
        // Positive control: B reads it.
        QCOMPARE(b.call("GET", filesPath(m_b, "b-only.txt")).body, QByteArray("b-secret"));
        const ApiResponse read = a.call("GET", filesPath(m_b, "b-only.txt"));
        QCOMPARE(read.status, 404);
        QVERIFY(!read.body.contains("b-secret"));
        QCOMPARE(putFile(a, m_b, "planted.txt", "x").status, 404);
        QCOMPARE(a.call("DELETE", filesPath(m_b, "b-only.txt")).status, 404);
        QVERIFY(!QFileInfo::exists(m_b.home + QStringLiteral("/planted.txt")));
        QVERIFY(QFileInfo::exists(m_b.home + QStringLiteral("/b-only.txt")));
    }

    void testFileApiRefusesLinksPlantedByTheWorkspace() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        QCOMPARE(putFile(b, m_b, "secret", "b-secret\n").status, 201);
        const QByteArray shadowBefore = fileBytes(QStringLiteral("/etc/shadow"));
        QVERIFY(!shadowBefore.isEmpty());
        const Outcome plant = sh(a, m_a.id,
                                 QStringLiteral("echo mine > own && ln -sf /etc/shadow shadow && "
                                                "ln -sf %1/secret bsecret && ln -sfn %1 bhome && "
                                                "ln -sfn /etc etc")
                                     .arg(m_b.home));
        QCOMPARE(plant.status(), QStringLiteral("completed"));
        // Positive control: A's own regular file is served.
        const ApiResponse own = a.call("GET", filesPath(m_a, "own"));
        QCOMPARE(own.status, 200);
        QCOMPARE(own.body, QByteArray("mine\n"));
        for (const char* planted : {"shadow", "bsecret", "bhome/secret", "etc/shadow", "bhome"}) {
            const ApiResponse r = a.call("GET", filesPath(m_a, planted));
            QVERIFY2(r.status >= 400 && r.status < 500, planted);
            QVERIFY2(!r.body.contains("b-secret") && !r.body.contains("root:"), planted);
        }
        // Writes through a linked directory land nowhere; a write over a link replaces the link
        // in A's home at most, never its target.
        QVERIFY(putFile(a, m_a, "bhome/evil", "x").status >= 400);
        QVERIFY(putFile(a, m_a, "etc/evil", "x").status >= 400);
        QVERIFY(!QFileInfo::exists(m_b.home + QStringLiteral("/evil")));
        QVERIFY(!QFileInfo::exists(QStringLiteral("/etc/evil")));
        putFile(a, m_a, "shadow", "overwritten");
        putFile(a, m_a, "bsecret", "overwritten");
        QVERIFY(fileBytes(QStringLiteral("/etc/shadow")) == shadowBefore);
        QCOMPARE(fileBytes(m_b.home + QStringLiteral("/secret")), QByteArray("b-secret\n"));
        // Delete and move through the linked directory are refused too.
        QVERIFY(a.call("DELETE", filesPath(m_a, "bhome/secret")).status >= 400);
        const QByteArray move = "/v1/workspaces/" + m_a.id.toUtf8() + "/files:move";
        QVERIFY(a.call("POST", move, {{"from", "bhome/secret"}, {"to", "stolen"}}).status >= 400);
        QVERIFY(a.call("POST", move, {{"from", "own"}, {"to", "bhome/own"}}).status >= 400);
        QCOMPARE(fileBytes(m_b.home + QStringLiteral("/secret")), QByteArray("b-secret\n"));
        QVERIFY(!QFileInfo::exists(m_a.home + QStringLiteral("/stolen")));
        QVERIFY(!QFileInfo::exists(m_b.home + QStringLiteral("/own")));
        QCOMPARE(sh(a, m_a.id, QStringLiteral("rm -f shadow bsecret bhome etc")).status(),
                 QStringLiteral("completed"));
    }
    // ---- WebSocket through the port proxy ----

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
    // Last: it restarts the agent, which removes every light workspace of the previous run.
    void testManagedExecutionOfACrashedAgentIsLostAndNothingOfItSurvives() {
        Workspace c = m_agent.createOne();
        QVERIFY(!c.id.isEmpty());
        const QString id = submit(m_agent.client(), c,
                                  shBody(QStringLiteral("setsid sleep 1000 </dev/null >/dev/null "
                                                        "2>&1 & echo up; sleep 1000")));
        QVERIFY(!id.isEmpty());
        // Positive control: it runs, with a setsid'd child, under C's uid.
        QVERIFY(waitUntil([&] { return state(m_agent.client(), id) == QLatin1String("running"); },
                          30000));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid, "sleep 1000").size() >= 2; },
                          15000));
        m_agent.crash();
        // The workspace's supervisors end with the agent (their control socket hangs up): the
        // PID namespace and everything in it goes.
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid).isEmpty(); }, 15000));
        QString error;
        QVERIFY2(m_agent.restart(&error), qPrintable(error));
        const QJsonObject record = ts::executionRecord(m_agent.client(), id);
        QCOMPARE(record.value("state").toString(), QStringLiteral("lost"));
        const ts::LogCapture log = ts::readLog(m_agent.client(), id, 0, true);
        QCOMPARE(log.stdoutBytes, QByteArray("up\n"));
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("lost"));
        const ApiResponse listed = m_agent.client().call("GET", "/v1/workspaces");
        QCOMPARE(listed.status, 200);
        QVERIFY(!listed.body.contains(c.id.toUtf8()));
        QVERIFY(!QFileInfo::exists(c.home));
    }
};

QTEST_GUILESS_MAIN(TestLightAgentApi)
#include "test_light_agent_api.moc"
