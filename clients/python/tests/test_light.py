"""Light workspaces (a root agent): env sent at create, batches, the port proxy, and processes
that outlive their command: alive after run() returns, ended by cancel() and by delete()."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request

from test_execution import _beats, _cancel_ends_everything


def _uid_processes(uid):
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as f:
                    for line in f:
                        if line.startswith("Uid:") and int(line.split()[1]) == uid:
                            pids.append(int(name))
            except OSError:
                pass
    return pids


def test_light_env_and_batch(light_agent):
    with light_agent.workspace(isolation="light", env={"TIER": "light"}, idle_timeout_s=60) as ws:
        assert ws.isolation == "light"
        assert ws.run("echo $TIER").stdout == b"light\n"
    made = light_agent.workspaces(3, isolation="light")
    try:
        assert len({w.id for w in made}) == 3
        assert all(w.run("true").ok for w in made)
    finally:
        for w in made:
            w.delete()


def test_light_cancel_ends_processes_left_running(light_agent):
    with light_agent.workspace(isolation="light") as ws:
        _cancel_ends_everything(ws)


def test_light_process_outlives_run_until_delete(light_agent):
    ws = light_agent.workspace(isolation="light")
    uid = ws.info["uid"]
    r = ws.run("setsid nohup bash -c 'while true; do date +%s%N >> beat; sleep 0.05; done' >/dev/null 2>&1 &"
               " echo left")
    assert r.ok and r.stdout == b"left\n"
    time.sleep(0.5)
    before = _beats(ws)
    time.sleep(0.5)
    assert len(_beats(ws)) > len(before), "light tier: the background process lives on after run()"
    assert _uid_processes(uid), "positive control: the host sees it"
    ws.delete()
    deadline = time.monotonic() + 10
    while _uid_processes(uid):
        assert time.monotonic() < deadline, "delete() left processes of the workspace uid"
        time.sleep(0.1)


SERVER = r"""
import os, socket, http.server, socketserver
os.makedirs('.runbox/proxy', exist_ok=True)
path = '.runbox/proxy/8000.sock'
if os.path.exists(path): os.unlink(path)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ('hello from ' + self.path + ' token=' + str(self.headers.get('Authorization'))).encode()
        self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
class S(socketserver.UnixStreamServer):
    def get_request(self):
        conn, _ = self.socket.accept(); return conn, ('local', 0)
S(path, H).serve_forever()
"""


def test_proxy_url_and_headers(light_agent):
    with light_agent.workspace(isolation="light") as ws:
        ws.files.write("server.py", SERVER)
        ws.run("setsid nohup python3 server.py >/dev/null 2>&1 &")
        deadline = time.monotonic() + 15
        while not ws.run("test -S .runbox/proxy/8000.sock").ok:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        url = ws.proxy_url(8000, "/hello?x=1")
        assert url.startswith(light_agent.url) and url.endswith(f"/v1/workspaces/{ws.id}/proxy/8000/hello?x=1")
        req = urllib.request.Request(url, headers=ws.proxy_headers(8000, "/hello?x=1"))
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read().decode()
        assert body.startswith("hello from /hello?x=1")
        # the same headers again: a replayed nonce is refused
        try:
            urllib.request.urlopen(req, timeout=10)
            replay_ok = True
        except urllib.error.HTTPError as e:
            replay_ok = False
            assert e.code == 401
        assert not replay_ok


def _start_server(ws):
    ws.files.write("server.py", SERVER)
    ws.run("setsid nohup python3 server.py >/dev/null 2>&1 &")
    deadline = time.monotonic() + 15
    while not ws.run("test -S .runbox/proxy/8000.sock").ok:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)


def test_proxy_token_opens_the_port_on_its_own_origin(light_agent):
    import http.client
    import urllib.parse
    with light_agent.workspace(isolation="light") as ws:
        _start_server(ws)
        token = ws.proxy_token(8000, ttl_s=60)
        url = urllib.parse.urlsplit(token.url)
        assert url.hostname == f"8000-{ws.id}.localhost"
        assert token.expires_at.endswith("Z")

        def get(path, headers):
            agent = urllib.parse.urlsplit(light_agent.url)
            conn = http.client.HTTPConnection(agent.hostname, agent.port, timeout=10)
            conn.request("GET", path, headers=dict(headers, Host=url.netloc))
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read().decode()

        status, _, body = get("/hello", {"X-Runbox-Proxy-Token": token.token})
        assert status == 200 and body == "hello from /hello token=None", body
        # the URL once: a cookie instead; then the same URL opens nothing
        status, headers, _ = get(url.path + "?" + url.query, {})
        assert status == 303 and "HttpOnly" in headers["Set-Cookie"]
        assert get(url.path + "?" + url.query, {})[0] == 401
        assert get("/hello", {})[0] == 401
        try:
            ws.proxy_token(0)
            raise AssertionError("port 0 accepted")
        except ValueError:
            pass
