"""The agent's TLS listener with a pinned certificate (docs/contracts.md "TLS and pinning"),
against the real agent started with ``--listen-tls``: a run with the right pin (positive
control), refusals of a wrong pin and of an unpinned self-signed certificate with nothing
reaching the agent's API, the pin's forms and ``RUNBOX_FINGERPRINT``, and a keep-alive
reconnect that meets another certificate and is refused before the token leaves."""

from __future__ import annotations

import hashlib
import http.client
import json
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest

import runbox
from conftest import AGENT_BIN, RealAgent, Relay


@pytest.fixture(scope="module")
def tls_agent() -> Iterator[RealAgent]:
    agent = RealAgent(extra_args=["--listen-tls", "127.0.0.1:0"])
    yield agent
    agent.stop()


@pytest.fixture(scope="module")
def fingerprint(tls_agent: RealAgent) -> str:
    """What ``runbox-agent --print-fingerprint`` prints for the agent's generated certificate."""
    out = subprocess.run([str(AGENT_BIN), "--print-fingerprint", "--state-dir", str(tls_agent.state_dir)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    fp = out.stdout.strip()
    assert len(fp) == 95 and fp.count(":") == 31, fp
    return fp


def api_requests(agent: RealAgent) -> float:
    """Requests the agent's API answered (``runbox_http_requests_total``, all routes but
    /metrics), read over the plain loopback listener with the metrics token."""
    token = (agent.state_dir / "metrics.token").read_text().strip()
    port = int(agent.url.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
        resp = conn.getresponse()
        text = resp.read().decode()
        assert resp.status == 200, text[:200]
    finally:
        conn.close()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("runbox_http_requests_total{") and 'route="/metrics"' not in line)


def wait_for_requests(agent: RealAgent, count: float, timeout_s: float = 5.0) -> float:
    deadline = time.monotonic() + timeout_s
    while True:
        seen = api_requests(agent)
        if seen >= count or time.monotonic() > deadline:
            return seen
        time.sleep(0.05)


def other_fingerprint(fp: str) -> str:
    return fp[:-2] + ("00" if not fp.endswith("00") else "11")


class Impostor:
    """A TLS server on 127.0.0.1 with a certificate of its own (not the agent's) that records,
    per connection, every byte the client sent after the handshake, then answers ``{}``."""

    def __init__(self) -> None:
        if not shutil.which("openssl"):
            pytest.skip("openssl is not installed")
        self._dir = Path(tempfile.mkdtemp(prefix="runbox-impostor-"))
        key, cert = self._dir / "key.pem", self._dir / "cert.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                        "-days", "1"], check=True, capture_output=True, timeout=60)
        der = ssl.PEM_cert_to_DER_cert(cert.read_text())
        self.fingerprint = ":".join("%02X" % b for b in hashlib.sha256(der).digest())
        self._ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._ctx.load_cert_chain(str(cert), str(key))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.received: List[bytes] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        data = b""
        try:
            raw.settimeout(30)
            with self._ctx.wrap_socket(raw, server_side=True) as tls:
                while b"\r\n\r\n" not in data:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                if data:
                    tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        except OSError:
            pass
        with self._cond:
            self.received.append(data)
            self._cond.notify_all()

    def wait(self, connections: int, timeout_s: float = 10.0) -> List[bytes]:
        """What the first ``connections`` connections sent, once they have ended."""
        with self._cond:
            self._cond.wait_for(lambda: len(self.received) >= connections, timeout_s)
            return list(self.received)

    def close(self) -> None:
        self._listener.close()
        shutil.rmtree(self._dir, ignore_errors=True)


@pytest.fixture()
def impostor() -> Iterator[Impostor]:
    server = Impostor()
    yield server
    server.close()


def test_a_run_over_https_with_the_right_pin(tls_agent: RealAgent, fingerprint: str) -> None:
    assert tls_agent.tls_url.startswith("https://127.0.0.1:"), tls_agent.tls_url
    data = bytes(range(256)) * 4096  # more than one signed upload chunk
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint) as agent:
        assert agent.health()["listeners"]["tls"]["fingerprint"] == fingerprint
        with agent.workspace() as ws:
            assert ws.run("echo over-tls", check=True).stdout == b"over-tls\n"
            ws.files.write("blob.bin", data)
            assert ws.files.read("blob.bin") == data


def test_a_wrong_pin_is_refused_before_the_agent_receives_the_request(
        tls_agent: RealAgent, fingerprint: str) -> None:
    # Control: a request with the right pin is counted by the agent.
    before = api_requests(tls_agent)
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint) as right:
        right.list_workspaces()
    assert wait_for_requests(tls_agent, before + 1) == before + 1

    wrong = other_fingerprint(fingerprint)
    before = api_requests(tls_agent)
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=wrong) as agent:
        with pytest.raises(runbox.CertificateRefusedError) as refused:
            agent.workspace()
        with pytest.raises(runbox.CertificateRefusedError):  # every new connection, not once
            agent.list_workspaces()
    err = refused.value
    assert (err.status, err.code, err.expected, err.presented) == (None, "certificate_refused", wrong, fingerprint)
    assert f"expected {wrong}, presented {fingerprint}" in str(err) and "nothing was sent" in str(err)
    time.sleep(0.3)
    assert api_requests(tls_agent) == before
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint) as right:
        assert right.list_workspaces() == []  # the refused create made nothing


def test_the_fleet_files_pin_is_taken_for_its_agent(
        tls_agent: RealAgent, fingerprint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # As the CLI does for --url without --fingerprint: the fleet file is the one place pins live.
    monkeypatch.delenv("RUNBOX_FINGERPRINT", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    token_file = tmp_path / "h1.token"
    token_file.write_text(tls_agent.token)
    token_file.chmod(0o600)
    fleet = tmp_path / "runbox" / "fleet.json"
    fleet.parent.mkdir()

    def write_fleet(pin: str) -> None:
        entry = {"name": "h1", "url": tls_agent.tls_url, "tokenFile": str(token_file)}
        if pin:
            entry["fingerprint"] = pin
        fleet.write_text(json.dumps({"agents": [entry]}))

    write_fleet(fingerprint)
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token) as agent:
        assert agent.health()["listeners"]["tls"]["fingerprint"] == fingerprint
    for pin in (other_fingerprint(fingerprint), ""):
        write_fleet(pin)
        before = api_requests(tls_agent)
        with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token) as agent:
            with pytest.raises(runbox.CertificateRefusedError):
                agent.list_workspaces()
        time.sleep(0.3)
        assert api_requests(tls_agent) == before
    # The argument wins over the fleet file's (wrong) pin.
    write_fleet(other_fingerprint(fingerprint))
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint) as agent:
        agent.health()


def test_an_unpinned_self_signed_agent_is_refused_with_its_fingerprint(
        tls_agent: RealAgent, fingerprint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RUNBOX_FINGERPRINT", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no fleet file either
    before = api_requests(tls_agent)
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token) as agent:
        with pytest.raises(runbox.CertificateRefusedError) as refused:
            agent.health()
    err = refused.value
    assert err.expected is None and err.presented == fingerprint, str(err)
    assert "not trusted" in str(err) and "RUNBOX_FINGERPRINT" in str(err)
    time.sleep(0.3)
    assert api_requests(tls_agent) == before


def test_the_pin_forms_and_runbox_fingerprint(tls_agent: RealAgent, fingerprint: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    bare_hex = fingerprint.replace(":", "").lower()
    monkeypatch.setenv("RUNBOX_FINGERPRINT", "sha256:" + bare_hex)
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token) as agent:
        assert agent.health()["listeners"]["tls"]["fingerprint"] == fingerprint
    monkeypatch.setenv("RUNBOX_FINGERPRINT", other_fingerprint(fingerprint))  # the argument wins
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token,
                      fingerprint=" SHA256 Fingerprint=" + fingerprint + "\n") as agent:
        agent.health()
    with pytest.raises(runbox.CertificateRefusedError):  # and the variable alone is used
        runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token).health()
    monkeypatch.delenv("RUNBOX_FINGERPRINT")
    with pytest.raises(ValueError, match="must be https://"):
        runbox.Agent(url=tls_agent.url, token=tls_agent.token, fingerprint=fingerprint)
    with pytest.raises(ValueError, match="not a SHA-256 fingerprint"):
        runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint[:-3])
    with pytest.raises(ValueError, match="not both"):  # with a pin, the pin decides
        runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint,
                     ssl_context=ssl.create_default_context())
    with runbox.Agent(url=tls_agent.tls_url, token=tls_agent.token, fingerprint=fingerprint) as agent:
        with agent.workspace() as ws:
            handle = runbox.Agent.connect_workspace(ws.id, ws.token, url=tls_agent.tls_url,
                                                    fingerprint=fingerprint)
            assert handle.run("echo scoped", check=True).stdout == b"scoped\n"
            handle._client.session.close()
            with pytest.raises(runbox.CertificateRefusedError):
                runbox.Agent.connect_workspace(ws.id, ws.token, url=tls_agent.tls_url,
                                               fingerprint=other_fingerprint(fingerprint)).files.list()


def test_a_keep_alive_reconnect_checks_the_pin_again(tls_agent: RealAgent, fingerprint: str,
                                                     impostor: Impostor) -> None:
    # Control: what a client pinned to the impostor sends does reach it, token included.
    with runbox.Agent(url=f"https://127.0.0.1:{impostor.port}", token=tls_agent.token,
                      fingerprint=impostor.fingerprint) as fooled:
        assert fooled.health() == {}
    leaked = impostor.wait(1)[0]
    assert b"GET /v1/health" in leaked and tls_agent.token.encode() in leaked

    relay = Relay(tls_agent.tls_url)
    try:
        with runbox.Agent(url=f"https://127.0.0.1:{relay.port}", token=tls_agent.token,
                          fingerprint=fingerprint) as agent:
            agent.health()
            agent.health()
            assert relay.accepted == 1  # kept alive: one connection, checked once
            relay.cut()  # the idle connection closes; the next one meets the impostor
            relay.retarget("127.0.0.1", impostor.port)
            with pytest.raises(runbox.CertificateRefusedError) as refused:
                agent.health()
            assert relay.accepted == 2
            assert (refused.value.expected, refused.value.presented) == (fingerprint, impostor.fingerprint)
            assert impostor.wait(2)[1:] == [b""]  # the handshake, then nothing: no token
            relay.retarget("127.0.0.1", int(tls_agent.tls_url.rsplit(":", 1)[1]))
            assert agent.health()["listeners"]["tls"]["fingerprint"] == fingerprint
    finally:
        relay.close()
