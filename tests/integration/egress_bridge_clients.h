#pragma once

// Python clients the bridge test runs as the bridge's child (kept out of the test's .cpp: moc
// does not parse raw string literals).

namespace {

// Connects to the bridge, sends PAYLOAD_BYTES, half-closes, and checks that "ECHO:" + payload
// comes back.
const char* kEchoClient = R"PY(
import os, socket, sys
port = int(os.environ["BRIDGE_PORT"])
payload = bytes(range(256)) * (int(os.environ["PAYLOAD_BYTES"]) // 256)
s = socket.create_connection(("127.0.0.1", port), timeout=20)
s.sendall(payload)
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
sys.exit(0 if data == b"ECHO:" + payload else 3)
)PY";

// Sends a CONNECT through a bridge whose gateway socket does not exist.
const char* kUnreachableClient = R"PY(
import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(os.environ["BRIDGE_PORT"])), timeout=20)
s.sendall(b"CONNECT mirror.test:443 HTTP/1.1\r\n\r\n")
data = s.recv(4096)
sys.exit(0 if data.startswith(b"HTTP/1.1 502") and b"gateway_unreachable" in data else 3)
)PY";

// urllib through the proxy (allowed), an IP literal (refused by the gateway), and, when run in
// its own network namespace, a direct connection (must fail: no route but the bridge).
const char* kChainClient = R"PY(
import os, socket, sys, urllib.error, urllib.request
port = os.environ["UPSTREAM_PORT"]
body = urllib.request.urlopen("http://mirror.test:%s/hello" % port, timeout=20).read()
print("urllib:" + body.decode())
os.environ.pop("NO_PROXY", None)  # 127.0.0.1 must go through the proxy for this one
proxy = urllib.request.ProxyHandler({"http": os.environ["HTTP_PROXY"]})
try:
    urllib.request.build_opener(proxy).open("http://127.0.0.1:%s/" % port, timeout=20)
    print("ip: allowed")
except urllib.error.HTTPError as e:
    print("ip: %d %s" % (e.code, e.headers.get("X-Runbox-Egress-Reason")))
if os.environ["ISOLATED"] == "1":
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=5)
        print("direct: connected")
    except OSError:
        print("direct: refused")
)PY";

} // namespace
