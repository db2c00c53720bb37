"""Fixtures: the real runbox-agent of the build tree (docs/contracts.md "Processes and
start-up": ``--state-dir DIR --listen 127.0.0.1:0``, then ``agent.url`` and ``agent.token``),
started as ``tests/support/AgentProcess`` does: unprivileged (``nobody``) when the tests run
as root, and a root agent with uids of its own for the light tier."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package from the source tree
sys.path.insert(0, str(HERE))

import runbox  # noqa: E402

SOURCE_DIR = HERE.parents[2]
BINARY_DIR = Path(os.environ.get("RUNBOX_BINARY_DIR") or SOURCE_DIR / "build")
AGENT_BIN = BINARY_DIR / "agent" / "runbox-agent"
NOBODY = 65534
#: Sandbox uids of this test's root agent (its own range: docs/contracts.md "Sandbox uids").
ROOT_AGENT_ENV = {"RUNBOX_STRONG_UID_FIRST": "1882100000", "RUNBOX_STRONG_UID_COUNT": "1000",
                  "RUNBOX_LIGHT_UID_FIRST": "1882150000", "RUNBOX_LIGHT_UID_COUNT": "1000"}


class RealAgent:
    """One runbox-agent process with a temporary state directory."""

    def __init__(self, as_root: bool = False, extra_env: Optional[Dict[str, str]] = None,
                 extra_args: Optional[List[str]] = None) -> None:
        if not AGENT_BIN.exists():
            pytest.skip(f"{AGENT_BIN} is not built")
        self.state_dir = Path(tempfile.mkdtemp(prefix="runbox-pytest-"))
        self.log_path = self.state_dir.with_suffix(".log")
        privileged = os.geteuid() == 0
        prefix: List[str] = ["/usr/bin/setpriv"]
        if privileged and not as_root:
            os.chown(self.state_dir, NOBODY, NOBODY)
            prefix += [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        prefix += ["--pdeathsig", "KILL", "--"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("RUNBOX_")}
        env["HOME"] = str(self.state_dir)
        env.update(extra_env or {})
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(prefix + [str(AGENT_BIN), "--state-dir", str(self.state_dir),
                                               "--listen", "127.0.0.1:0"] + (extra_args or []),
                                     env=env, cwd="/", stdout=self._log, stderr=subprocess.STDOUT)
        url_file = self.state_dir / "agent.url"
        deadline = time.monotonic() + 60
        while not url_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the agent did not start: " + self.log())
            time.sleep(0.05)
        self.url = url_file.read_text().strip()
        self.token = (self.state_dir / "agent.token").read_text().strip()
        tls_url = self.state_dir / "agent.tls-url"  # written before agent.url with --listen-tls
        self.tls_url = tls_url.read_text().strip() if tls_url.exists() else ""

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def client(self, **kwargs: object) -> runbox.Agent:
        return runbox.Agent(url=self.url, token=self.token, **kwargs)  # type: ignore[arg-type]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
        shutil.rmtree(self.state_dir, ignore_errors=True)
        try:
            self.log_path.unlink()
        except OSError:
            pass


@pytest.fixture(scope="session")
def real_agent() -> Iterator[RealAgent]:
    agent = RealAgent()
    yield agent
    agent.stop()


@pytest.fixture(scope="session")
def agent(real_agent: RealAgent) -> Iterator[runbox.Agent]:
    with real_agent.client() as a:
        yield a


@pytest.fixture()
def ws(agent: runbox.Agent) -> Iterator[runbox.Workspace]:
    with agent.workspace() as w:
        yield w


@pytest.fixture(scope="session")
def light_agent() -> Iterator[runbox.Agent]:
    """A root agent whose light tier works, or a skip saying why not."""
    if os.geteuid() != 0:
        pytest.skip("light workspaces need a root agent; run the tests as root")
    real = RealAgent(as_root=True, extra_env=ROOT_AGENT_ENV)
    try:
        client = real.client()
        light = client.health().get("light", {})
        if not light.get("available"):
            pytest.skip(f"light tier unavailable here: {light.get('reason')}")
        yield client
    finally:
        real.stop()


class Relay:
    """A TCP relay in front of the agent that can cut every connection it carries (a lost
    connection in the middle of a stream, with the real agent behind it)."""

    def __init__(self, target_url: str) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(target_url)
        self._target = (parts.hostname, parts.port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self.accepted = 0
        self._socks: List[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            with self._lock:
                self.accepted += 1
                self._socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def retarget(self, host: str, port: int) -> None:
        """Relays the next connections to ``host:port`` (those open stay where they are)."""
        self._target = (host, port)

    def cut(self) -> None:
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.cut()
        self._listener.close()


@pytest.fixture()
def relay(real_agent: RealAgent) -> Iterator[Relay]:
    r = Relay(real_agent.url)
    yield r
    r.close()


#: The pool of ``pool_hosts``: three strong-tier agents of capacities 2, 2 and 1, in that fleet order.
POOL = "p1"
POOL_CAPACITIES = (2, 2, 1)


class PoolHosts:
    """Three agents started as hosts of one pool (``--pool p1 --pool-capacity N``, as
    ``tests/integration/test_pool_fleet.cpp`` starts them; unprivileged, so strong workspaces)
    and a fleet file naming them h1, h2, h3 at ``<config_home>/runbox/fleet.json`` (the default
    path under ``XDG_CONFIG_HOME=config_home``), each ``tokenFile`` relative: a 0600 copy of
    the agent's token in ``runbox/tokens/``."""

    def __init__(self) -> None:
        self.agents: List[RealAgent] = []
        try:
            for cap in POOL_CAPACITIES:
                self.agents.append(RealAgent(extra_args=["--pool", POOL, "--pool-capacity", str(cap)]))
        except BaseException:
            self.stop()
            raise
        self.names = [f"h{i + 1}" for i in range(len(self.agents))]
        self.config_home = Path(tempfile.mkdtemp(prefix="runbox-pytest-fleet-"))
        self.fleet_path = self.config_home / "runbox" / "fleet.json"
        tokens = self.fleet_path.parent / "tokens"
        tokens.mkdir(parents=True)
        self.entries = []
        for name, agent in zip(self.names, self.agents):
            token_file = tokens / f"{name}.token"
            token_file.write_text(agent.token + "\n")
            token_file.chmod(0o600)
            self.entries.append({"name": name, "url": agent.url, "tokenFile": f"tokens/{name}.token"})
        self.write_fleet(self.fleet_path, self.entries)

    @staticmethod
    def write_fleet(path: Path, entries: List[Dict[str, str]]) -> Path:
        import json

        path.write_text(json.dumps({"agents": entries}, indent=1))
        return path

    def held(self) -> List[int]:
        """How many workspaces each agent holds, asked with its own agent token."""
        counts = []
        for agent in self.agents:
            with agent.client() as client:
                counts.append(len(client.list_workspaces()))
        return counts

    def stop(self) -> None:
        for agent in self.agents:
            agent.stop()
        if hasattr(self, "config_home"):
            shutil.rmtree(self.config_home, ignore_errors=True)


@pytest.fixture(scope="session")
def pool_hosts() -> Iterator[PoolHosts]:
    hosts = PoolHosts()
    yield hosts
    hosts.stop()
