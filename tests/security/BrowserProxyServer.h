#pragma once
// What tests/security/test_browser_proxy.cpp serves behind the port proxy (docs/contracts.md
// "Port proxy for browsers") in a light or a strong workspace, and the headless Chromium that
// opens it.

#include "LightAgentFixture.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>

namespace browserproxy {

// A small HTTP server on .runbox/proxy/<port>.sock: "/" a page that sets a cookie of its own
// (app=1), opens an EventSource and a WebSocket back to its own origin, writes what came back
// into #r and reports it with the cookies its script sees (/done?r=…&c=…); "/events" one SSE
// event; "/ws" a WebSocket echo (RFC 6455 §4.2.2, §5); "/setcookie" cookies and a header the
// proxy must drop; anything else echoes the request head it got. Every head is appended to
// heads-<port>.log. Both in the current directory (a light workspace's home, a strong one's
// /workspace).
inline constexpr char kServer[] = R"PY(
import os, socket, sys, threading, hashlib, base64, time
port = sys.argv[1]
d = os.path.join(os.getcwd(), '.runbox/proxy'); os.makedirs(d, exist_ok=True)
p = d + '/' + port + '.sock'
try: os.unlink(p)
except FileNotFoundError: pass
log = open('heads-%s.log' % port, 'ab', buffering=0)
PAGE = b'''<html><head><title>app</title></head><body><div id="r">waiting</div><script>
document.cookie = 'app=1; Path=/';
const got = [];
function done() {
  if (got.length != 2) return;
  const text = got.sort().join(' ');
  document.getElementById('r').textContent = text;
  fetch('/done?r=' + encodeURIComponent(text) + '&c=' + encodeURIComponent(document.cookie));
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

/// The /done request line the page sends when its SSE event and its WebSocket echo came back
/// and its script sees its own cookie only (the proxy's is HttpOnly).
inline constexpr char kDoneLine[] = "GET /done?r=sse%3Atick%20ws%3Aecho-ping&c=app%3D1 HTTP/1.1";

/// What a headless Chromium run saw.
struct BrowserRun {
    bool reported = false; ///< the page's /done request reached the server
    QByteArray heads;      ///< what the server's heads log gained while the browser ran
    QByteArray output;     ///< the browser's own output, for failure messages
};

/// Opens @p url in Debian's headless Chromium (profile in @p profileDir) and waits up to 60 s
/// for the page's /done request in what @p headsLog gains meanwhile; an empty result when there
/// is no chromium (@p missing set).
inline BrowserRun openInChromium(const QString& url, const QString& profileDir,
                                 const QString& headsLog, bool* missing) {
    BrowserRun run;
    const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
    *missing = chromium.isEmpty();
    if (*missing)
        return run;
    QFile log(headsLog);
    const qint64 before = log.size(); // 0 when not there yet
    // Kept running (a debugging port) until the page reports back through /done.
    QProcess browser;
    browser.setProcessChannelMode(QProcess::MergedChannels);
    browser.start(chromium, {"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--user-data-dir=" + profileDir, "--remote-debugging-port=0", url});
    if (!browser.waitForStarted(10000))
        return run;
    run.reported = lightagent::waitUntil(
        [&] {
            if (log.open(QIODevice::ReadOnly)) {
                run.heads = log.readAll().mid(before);
                log.close();
            }
            return run.heads.contains("GET /done?");
        },
        60000);
    browser.kill();
    browser.waitForFinished(10000);
    run.output = browser.readAll();
    return run;
}

} // namespace browserproxy
