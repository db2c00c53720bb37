// The port proxy as a browser reaches it (docs/contracts.md "Port proxy for browsers"), real
// agent run as root with light workspaces: a token from POST /v1/workspaces/{id}/proxy-tokens
// opens one workspace's port on an origin of its own, once in a URL (exchanged for a host-only
// HttpOnly cookie), in a header or in that cookie, each request of a kept-alive connection
// checked again; nothing of it reaches the workspace. A real headless Chromium opens a page, an
// SSE stream and a WebSocket served by sandboxed code. Every refusal follows a positive control.
#include "LightAgentFixture.h"

#include "support/RawHttp.h"

#include <QDateTime>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

using namespace lightagent;
namespace ts = runbox::testsupport;

namespace {

// A small HTTP server on .runbox/proxy/<port>.sock: "/" a page that opens an EventSource and a
// WebSocket back to its own origin and writes what came back into #r; "/events" one SSE event;
// "/ws" a WebSocket echo (RFC 6455 §4.2.2, §5); anything else echoes the request head it got.
// Every head is appended to heads-<port>.log. Both in the current directory (a light
// workspace's home, a strong one's /workspace).
const char kServer[] = R"PY(
import os, socket, sys, threading, hashlib, base64, time
port = sys.argv[1]
d = os.path.join(os.getcwd(), '.runbox/proxy'); os.makedirs(d, exist_ok=True)
p = d + '/' + port + '.sock'
try: os.unlink(p)
except FileNotFoundError: pass
log = open('heads-%s.log' % port, 'ab', buffering=0)
PAGE = b'''<html><head><title>app</title></head><body><div id="r">waiting</div><script>
const got = [];
function done() {
  if (got.length != 2) return;
  const text = got.sort().join(' ');
  document.getElementById('r').textContent = text;
  fetch('/done?r=' + encodeURIComponent(text));
}
const es = new EventSource('/events');
es.onmessage = (e) => { got.push('sse:' + e.data); es.close(); done(); };
const ws = new WebSocket('ws://' + location.host + '/ws');
ws.onopen = () => ws.send('ping');
ws.onmessage = (e) => { got.push('ws:' + e.data); ws.close(); done(); };
</script></body></html>'''
G = b'258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
def serve(c):
    try:
        h = b''
        while b'\r\n\r\n' not in h:
            x = c.recv(4096)
            if not x: return
            h += x
        head, rest = h.split(b'\r\n\r\n', 1)
        log.write(head + b'\n\n')
        lines = head.decode('latin1').split('\r\n')
        path = lines[0].split(' ')[1]
        hd = {}
        for l in lines[1:]:
            k, v = l.split(':', 1); hd[k.strip().lower()] = v.strip()
        if path == '/':
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n'
                      % len(PAGE) + PAGE); return
        if path == '/events':
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n'
                      b'Cache-Control: no-cache\r\n\r\ndata: tick\n\n')
            time.sleep(5); return
        if path == '/setcookie':
            c.sendall(b'HTTP/1.1 200 OK\r\nSet-Cookie: app=1; Domain=localhost; Path=/\r\n'
                      b'Set-Cookie: runbox_proxy=forged; Path=/\r\nX-Runbox-Proxy-Token: leak\r\n'
                      b'Content-Length: 2\r\n\r\nok'); return
        if path != '/ws':
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n'
                      % len(head) + head); return
        acc = base64.b64encode(hashlib.sha1(hd.get('sec-websocket-key', '').encode() + G).digest())
        c.sendall(b'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n'
                  b'Connection: Upgrade\r\nSec-WebSocket-Accept: ' + acc + b'\r\n\r\n')
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
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(raw))
            if op == 8: c.sendall(bytes([0x88, 0])); return
            if op == 1: data = b'echo-' + data
            c.sendall(bytes([0x80 | op, len(data)]) + data)
    except EOFError: pass
    finally: c.close()
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(16)
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
)PY";

/// A GET of @p target with Host @p host and @p headers, nothing else.
QByteArray get(const QByteArray& target, const QByteArray& host,
               const QList<QPair<QByteArray, QByteArray>>& headers = {}) {
    QByteArray out = "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto& [name, value] : headers)
        out += name + ": " + value + "\r\n";
    return out + "\r\n";
}

} // namespace

class TestBrowserProxy final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

    quint16 agentPort() const { return quint16(m_agent.url().port()); }
    QByteArray origin(const Workspace& ws, int port) const {
        return QByteArray::number(port) + '-' + ws.id.toLatin1() +
               ".localhost:" + QByteArray::number(agentPort());
    }
    bool startServer(const Workspace& ws, int port) {
        QJsonObject write{{"argv", QJsonArray{"/bin/sh", "-c", "cat > app.py"}},
                          {"stdin", QString::fromLatin1(kServer)}};
        if (exec(m_agent.client(), ws.id, write).status() != QLatin1String("completed"))
            return false;
        return sh(m_agent.client(), ws.id,
                  QStringLiteral("setsid python3 app.py %1 </dev/null >/dev/null 2>&1 & "
                                 "for i in $(seq 200); do [ -S ~/.runbox/proxy/%1.sock ] && "
                                 "exit 0; sleep 0.05; done; exit 1")
                      .arg(port))
                   .status() == QLatin1String("completed");
    }
    /// POST …/proxy-tokens as workspace @p ws itself (its own token signs).
    ApiResponse mint(const Workspace& ws, const QJsonObject& body) {
        ApiClient client(m_agent.url(), ws.token);
        return client.call("POST", "/v1/workspaces/" + ws.id.toUtf8() + "/proxy-tokens", body);
    }
    QByteArray token(const Workspace& ws, int port, int ttlS = 600) {
        return mint(ws, {{"port", port}, {"ttlS", ttlS}})
            .json()
            .value("token")
            .toString()
            .toLatin1();
    }
    ts::RawHttpResponse roundTrip(const QByteArray& bytes) {
        return ts::rawRoundTrip(agentPort(), bytes);
    }
    QString heads(const Workspace& ws, int port) {
        return QString::fromUtf8(
            sh(m_agent.client(), ws.id, QStringLiteral("cat ~/heads-%1.log").arg(port)).out);
    }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(48000, 200, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(startServer(m_a, 9100));
        QVERIFY(startServer(m_b, 9100));
    }

    void testAUrlTokenBecomesAHostOnlyCookieOnce() {
        const ApiResponse minted = mint(m_a, {{"port", 9100}, {"ttlS", 600}});
        QCOMPARE(minted.status, 201);
        const QUrl url(minted.json().value("url").toString());
        QCOMPARE(url.host(), QStringLiteral("9100-%1.localhost").arg(m_a.id));
        QCOMPARE(url.port(), int(agentPort()));
        const QDateTime expires =
            QDateTime::fromString(minted.json().value("expiresAt").toString(), Qt::ISODate);
        QVERIFY(qAbs(expires.toSecsSinceEpoch() - QDateTime::currentSecsSinceEpoch() - 600) < 5);
        const QByteArray target = url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority);
        const ts::RawHttpResponse first = roundTrip(get(target + "&keep=1", origin(m_a, 9100)));
        QCOMPARE(first.status, 303);
        QCOMPARE(first.header("location"), QByteArray("/?keep=1")); // the token left the URL
        const QByteArray cookie = first.header("set-cookie");
        QVERIFY2(cookie.startsWith("runbox_proxy=rbp1.") && cookie.contains("; HttpOnly") &&
                     cookie.contains("; SameSite=Lax") && cookie.contains("; Path=/") &&
                     !cookie.toLower().contains("domain="),
                 cookie.constData());
        const QByteArray value = cookie.left(cookie.indexOf(';'));
        const ts::RawHttpResponse page = roundTrip(
            get("/echo?x=1", origin(m_a, 9100), {{"Cookie", "app=1; " + value + "; other=2"}}));
        QCOMPARE(page.status, 200);
        QVERIFY2(page.body.startsWith("GET /echo?x=1 HTTP/1.1"), page.body.constData());
        QVERIFY2(page.body.toLower().contains("cookie: app=1; other=2"), page.body.constData());
        // The same URL a second time (history, a Referer that leaked it) opens nothing.
        const ts::RawHttpResponse again = roundTrip(get(target, origin(m_a, 9100)));
        QCOMPARE(again.status, 401);
        QCOMPARE(again.errorCode(), QStringLiteral("proxy_token_spent"));
    }

    /// What the attack of 2026-12-07 found: a redirect off the origin, an unsigned Host in the
    /// minted URL, an encoded parameter name left in the URL, cookies and headers of the
    /// workspace that reach past its origin.
    void testRedirectsStayOnTheOriginAndTheWorkspaceSetsNoForeignCookie() {
        for (const QByteArray& path :
             {QByteArray("//evil.example/x"), QByteArray("/\\evil.example/x")}) {
            const QByteArray t = token(m_a, 9100);
            const ts::RawHttpResponse r =
                roundTrip(get(path + "?runbox_proxy_token=" + t, origin(m_a, 9100)));
            QCOMPARE(r.status, 303);
            QCOMPARE(r.header("location"), QByteArray("/evil.example/x"));
        }
        const QByteArray encoded = token(m_a, 9100);
        const ts::RawHttpResponse e =
            roundTrip(get("/x?runbox%5Fproxy%5Ftoken=" + encoded + "&a=1", origin(m_a, 9100)));
        QCOMPARE(e.status, 303);
        QCOMPARE(e.header("location"), QByteArray("/x?a=1"));
        // The Host of a signed request is not signed: only its port may reach the URL.
        const QByteArray body = R"({"port":9100})";
        const QByteArray target = "/v1/workspaces/" + m_a.id.toLatin1() + "/proxy-tokens";
        QByteArray request = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:1@evil.example\r\n";
        for (const auto& [name, value] : ts::signedHeaders(m_a.token, "POST", target, body,
                                                           QDateTime::currentMSecsSinceEpoch()))
            request += name + ": " + value + "\r\n";
        request +=
            "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
            "\r\n\r\n" + body;
        const ts::RawHttpResponse minted = roundTrip(request);
        QCOMPARE(minted.status, 201);
        const QUrl url(QJsonDocument::fromJson(minted.body).object().value("url").toString());
        QCOMPARE(url.host(), QStringLiteral("9100-%1.localhost").arg(m_a.id));
        QVERIFY2(!minted.body.contains("evil"), minted.body.constData());
        // The workspace's Set-Cookie stays host-only; it cannot set the token's cookie or the
        // agent's headers.
        const ts::RawHttpResponse cookies = roundTrip(
            get("/setcookie", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", token(m_a, 9100)}}));
        QCOMPARE(cookies.status, 200);
        QList<QByteArray> setCookies;
        for (const auto& [name, value] : cookies.headers)
            if (name.toLower() == "set-cookie")
                setCookies << value;
        QCOMPARE(setCookies, QList<QByteArray>{"app=1; Path=/"});
        QVERIFY(cookies.header("x-runbox-proxy-token").isEmpty());
    }

    void testTheHeaderTokenWorksAndNothingOfItReachesTheWorkspace() {
        const QByteArray t = token(m_a, 9100);
        const ts::RawHttpResponse r =
            roundTrip(get("/echo", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", t}}));
        QCOMPARE(r.status, 200);
        const QString seen = heads(m_a, 9100);
        QVERIFY2(seen.contains("GET /echo HTTP/1.1"), qPrintable(seen)); // positive control
        QVERIFY2(!seen.contains("rbp1.") && !seen.toLower().contains("runbox_proxy") &&
                     !seen.toLower().contains("x-runbox"),
                 qPrintable(seen));
        QVERIFY2(!seen.contains("X-Forwarded-Prefix"), qPrintable(seen));
    }

    void testForeignExpiredTamperedAndMissingTokensAreRefused() {
        const QByteArray good = token(m_a, 9100, 600);
        QCOMPARE(
            roundTrip(get("/echo", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", good}})).status,
            200);
        struct Case {
            const char* name;
            QByteArray host;
            QList<QPair<QByteArray, QByteArray>> headers;
            const char* code;
        };
        QByteArray tampered = good;
        tampered[tampered.size() - 1] = tampered.endsWith('0') ? '1' : '0';
        const QByteArray shortLived = token(m_a, 9100, 1);
        QTest::qWait(2100);
        const QList<Case> cases{
            {"no token", origin(m_a, 9100), {}, "proxy_token_required"},
            {"another port",
             origin(m_a, 9101),
             {{"X-Runbox-Proxy-Token", good}},
             "proxy_token_invalid"},
            {"another workspace",
             origin(m_b, 9100),
             {{"X-Runbox-Proxy-Token", good}},
             "proxy_token_invalid"},
            {"another workspace's cookie",
             origin(m_b, 9100),
             {{"Cookie", "runbox_proxy=" + good}},
             "proxy_token_invalid"},
            {"tampered",
             origin(m_a, 9100),
             {{"X-Runbox-Proxy-Token", tampered}},
             "proxy_token_invalid"},
            {"expired",
             origin(m_a, 9100),
             {{"X-Runbox-Proxy-Token", shortLived}},
             "proxy_token_expired"},
            {"a signed request's credentials",
             origin(m_a, 9100),
             {{"Authorization", "Bearer " + m_a.token}},
             "proxy_token_required"},
            {"unknown workspace",
             "9100-0123456789abcdef.localhost",
             {{"X-Runbox-Proxy-Token", good}},
             "proxy_token_invalid"},
        };
        for (const Case& c : cases) {
            const ts::RawHttpResponse r = roundTrip(get("/echo", c.host, c.headers));
            QVERIFY2(r.status == 401 && r.errorCode() == QLatin1String(c.code),
                     qPrintable(
                         QStringLiteral("%1: %2 %3").arg(c.name).arg(r.status).arg(r.errorCode())));
        }
        // The signed API is untouched on the agent's own host name.
        QCOMPARE(m_agent.client().call("GET", "/v1/workspaces").status, 200);
    }

    void testEveryRequestOfAKeptAliveConnectionIsCheckedAgain() {
        ts::RawHttpConnection c;
        QVERIFY(c.connectTo(agentPort()));
        QVERIFY(
            c.send(get("/echo", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", token(m_a, 9100)}})));
        QCOMPARE(c.readResponse().status, 200);
        QVERIFY(c.send(get("/echo", origin(m_a, 9100))));
        const ts::RawHttpResponse second = c.readResponse();
        QCOMPARE(second.status, 401);
        QCOMPARE(second.errorCode(), QStringLiteral("proxy_token_required"));
    }

    void testTheTokenRouteRefusesBadInputAndOtherWorkspaces() {
        QCOMPARE(mint(m_a, {{"port", 9100}}).status, 201); // default ttl
        for (const QJsonObject& body :
             {QJsonObject{{"port", 0}}, QJsonObject{{"port", 65536}}, QJsonObject{{"port", "80"}},
              QJsonObject{{"port", 80.5}}, QJsonObject{}})
            QCOMPARE(mint(m_a, body).status, 400);
        for (const QJsonObject& body :
             {QJsonObject{{"port", 80}, {"ttlS", 0}}, QJsonObject{{"port", 80}, {"ttlS", 86401}},
              QJsonObject{{"port", 80}, {"extra", 1}}})
            QCOMPARE(mint(m_a, body).status, 400);
        // A workspace's token mints for its own workspace only.
        ApiClient asA(m_agent.url(), m_a.token);
        QCOMPARE(asA.call("POST", "/v1/workspaces/" + m_b.id.toUtf8() + "/proxy-tokens",
                          QJsonObject{{"port", 9100}})
                     .status,
                 404);
    }

    /// A strong workspace's execution started with "proxy": true may listen on a unix socket
    /// (and on nothing else); without it, it cannot make one.
    void testAStrongWorkspacesProxiedExecutionIsReached() {
        const ApiResponse created =
            m_agent.client().call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
        QCOMPARE(created.status, 201);
        Workspace strong;
        const QJsonObject item = created.json().value("workspaces").toArray().first().toObject();
        strong.id = item.value("id").toString();
        strong.token = item.value("token").toString().toUtf8();
        const QString probe =
            QStringLiteral("import socket\n"
                           "def t(name, f):\n"
                           "    try: f(); print(name, 'ok')\n"
                           "    except OSError as e: print(name, 'refused', e.errno)\n"
                           "for f in (socket.AF_UNIX, socket.AF_INET):\n"
                           "    t(f.name, lambda: socket.socket(f).close())\n"
                           "t('dgram', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))\n"
                           "t('pair', lambda: socket.socketpair())\n"
                           "def connect():\n"
                           "    s = socket.socket(socket.AF_UNIX); s.bind('l.sock'); s.listen()\n"
                           "    c = socket.socket(socket.AF_UNIX); c.connect('l.sock')\n"
                           "t('connect', connect)\n");
        const Outcome plain =
            exec(m_agent.client(), strong.id, {{"kind", "python"}, {"code", probe}});
        QVERIFY2(plain.out.contains("AF_UNIX refused 1"), qPrintable(plain.describe()));
        const Outcome proxied = exec(m_agent.client(), strong.id,
                                     {{"kind", "python"}, {"code", probe}, {"proxy", true}});
        // A listener only: no pair, no connection, no datagram socket of its own (their buffers
        // and descriptors in flight are memory no bound counts in a strong sandbox).
        for (const char* line : {"AF_UNIX ok", "AF_INET refused 1", "dgram refused 1",
                                 "pair refused 1", "connect refused 1"})
            QVERIFY2(proxied.out.contains(line),
                     qPrintable(QLatin1String(line) + QStringLiteral(": ") + proxied.describe()));
        QCOMPARE(
            exec(m_agent.client(), strong.id, {{"kind", "shell"}, {"code", "true"}, {"proxy", 1}})
                .httpStatus,
            400);
        // The server as a managed execution of its own.
        const ApiResponse started = m_agent.client().call(
            "POST", "/v1/executions",
            QJsonObject{{"workspace", strong.id},
                        {"argv", QJsonArray{"/usr/bin/python3", "-c", QString::fromLatin1(kServer),
                                            "9200"}},
                        {"proxy", true},
                        {"executionTimeoutMs", 120000}});
        QVERIFY2(started.status == 201 || started.status == 202, started.body.constData());
        const QString socketPath =
            m_agent.stateDir() + "/workspaces/" + strong.id + "/.runbox/proxy/9200.sock";
        QVERIFY2(waitUntil([&] { return QFileInfo::exists(socketPath); }, 30000),
                 qPrintable(socketPath));
        ApiClient asStrong(m_agent.url(), strong.token);
        const ApiResponse minted =
            asStrong.call("POST", "/v1/workspaces/" + strong.id.toUtf8() + "/proxy-tokens",
                          QJsonObject{{"port", 9200}});
        QCOMPARE(minted.status, 201);
        const ts::RawHttpResponse r = roundTrip(
            get("/echo", origin(strong, 9200),
                {{"X-Runbox-Proxy-Token", minted.json().value("token").toString().toLatin1()}}));
        QVERIFY2(r.status == 200 && r.body.startsWith("GET /echo HTTP/1.1"), r.body.constData());
        // And through the signed route, as for light workspaces.
        const ApiResponse signedRoute =
            asStrong.call("GET", "/v1/workspaces/" + strong.id.toUtf8() + "/proxy/9200/echo");
        QVERIFY2(signedRoute.status == 200 &&
                     signedRoute.body.contains("X-Forwarded-Prefix: /v1/workspaces/"),
                 signedRoute.body.constData());
        m_agent.client().call("POST", "/v1/executions/" +
                                          started.json().value("executionId").toString().toUtf8() +
                                          "/cancel");
    }

    void testARealBrowserOpensThePageItsSseAndItsWebSocket() {
        QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
        if (chromium.isEmpty())
            QSKIP("not run: no chromium here (Debian's chromium; .ci/run installs it)");
        const QString url = mint(m_a, {{"port", 9100}}).json().value("url").toString();
        // Kept running (a debugging port) until the page reports back through /done, or 60 s.
        QProcess browser;
        browser.setProcessChannelMode(QProcess::MergedChannels);
        browser.start(chromium,
                      {"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                       "--user-data-dir=" + m_agent.stateDir() + "/chromium",
                       "--remote-debugging-port=0", url});
        QVERIFY(browser.waitForStarted(10000));
        QFile log(m_a.home + "/heads-9100.log");
        QByteArray seenBytes;
        const bool reported = waitUntil(
            [&] {
                if (log.open(QIODevice::ReadOnly)) {
                    seenBytes = log.readAll();
                    log.close();
                }
                return seenBytes.contains("GET /done?");
            },
            60000);
        browser.kill();
        browser.waitForFinished(10000);
        QVERIFY2(reported, (seenBytes.right(2000) + browser.readAll().right(2000)).constData());
        QVERIFY2(seenBytes.contains("GET /done?r=sse%3Atick%20ws%3Aecho-ping "),
                 seenBytes.right(2000).constData());
        const QString seen = heads(m_a, 9100);
        QVERIFY2(seen.contains("GET /events") && seen.contains("GET /ws"), qPrintable(seen));
        QVERIFY2(!seen.contains("rbp1.") && !seen.toLower().contains("runbox_proxy"),
                 qPrintable(seen));
    }
};

QTEST_GUILESS_MAIN(TestBrowserProxy)
#include "test_browser_proxy.moc"
