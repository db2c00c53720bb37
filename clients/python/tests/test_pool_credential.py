"""The pool credential from Python (docs/contracts.md "Pool credential"): a real strong-tier pool
host started with --pool-secret-file and a TLS listener, reached with nothing but the pool's
secret and its https URL and fingerprint (``Agent.from_pool_secret``) or a fleet entry
``{"pool": NAME}`` (``Pool.workspace``); another pool's secret is refused by the host, a secret
others may read and a plain-HTTP URL are refused before anything is sent."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

import runbox
from conftest import AGENT_BIN, NOBODY, RealAgent
from runbox import AuthenticationError, FleetTokenError, Pool
from runbox.pool_secret import host_token

POOL = "pyc"


@pytest.fixture(scope="module")
def secret() -> str:
    return secrets.token_hex(32)


@pytest.fixture(scope="module")
def host(secret: str) -> Iterator[RealAgent]:
    own = Path(tempfile.mkdtemp(prefix="runbox-pool-secret-"))  # /tmp: reachable by nobody
    path = own / "pool.secret"
    path.write_text(secret + "\n")
    path.chmod(0o600)
    if os.geteuid() == 0:  # the agent runs as nobody
        os.chown(own, NOBODY, NOBODY)
        os.chown(path, NOBODY, NOBODY)
    agent = RealAgent(extra_args=["--pool", POOL, "--pool-secret-file", str(path), "--listen-tls", "127.0.0.1:0"],
                      extra_env={"RUNBOX_STRONG_UID_FIRST": "1892004096", "RUNBOX_STRONG_UID_COUNT": "64"})
    yield agent
    agent.stop()
    shutil.rmtree(own, ignore_errors=True)


@pytest.fixture(scope="module")
def fingerprint(host: RealAgent) -> str:
    """The host's certificate pin, as ``runbox-agent --print-fingerprint`` prints it."""
    out = subprocess.run([str(AGENT_BIN), "--print-fingerprint", "--state-dir", str(host.state_dir)],
                         capture_output=True, text=True, check=True, timeout=30)
    return out.stdout.strip()


@pytest.fixture()
def config(tmp_path: Path, secret: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh XDG config dir holding only the pool's secret."""
    pools = tmp_path / "runbox" / "pools"
    pools.mkdir(parents=True)
    (pools / f"{POOL}.secret").write_text(secret + "\n")
    (pools / f"{POOL}.secret").chmod(0o600)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    for key in [k for k in os.environ if k.startswith("RUNBOX_")]:
        monkeypatch.delenv(key)
    return tmp_path


def test_the_host_token_is_derived_from_the_secret_and_the_public_nonce(host: RealAgent, secret: str) -> None:
    import json
    import urllib.request

    with urllib.request.urlopen(host.url + "/health") as r:
        nonce = json.loads(r.read())["pool"]["hostNonce"]
    expected = hmac.new(secret.encode(), b"runbox-pool-host:" + nonce.encode(), hashlib.sha256).hexdigest()
    assert host.token == expected == host_token(secret, nonce)


def test_reconnect_with_only_the_secret(host: RealAgent, config: Path, fingerprint: str) -> None:
    made = host.client().workspace()
    try:
        agent = runbox.Agent.from_pool_secret(host.tls_url, POOL, fingerprint=fingerprint)
        ws = agent.list_workspaces()
        assert made.id in {w["id"] for w in ws}
        fleet = config / "runbox" / "fleet.json"
        fleet.write_text('{"agents":[{"name":"h1","url":"%s","pool":"%s","fingerprint":"%s"}]}'
                         % (host.tls_url, POOL, fingerprint))
        with Pool(POOL, str(fleet)) as pool:
            pooled = pool.workspace(f"h1.{made.id}")
            assert pooled.run("echo hi", check=True).text == "hi\n"
            pooled.files.write("f.txt", b"bytes")
            assert pooled.files.read("f.txt") == b"bytes"
            pooled.delete()
        assert made.id not in {w["id"] for w in host.client().list_workspaces()}
    finally:
        try:
            made.delete()
        except (runbox.NotFoundError, AuthenticationError):  # deleted above: its token is gone
            pass


def test_another_pools_secret_is_refused(host: RealAgent, config: Path, fingerprint: str) -> None:
    other = config / "other.secret"
    other.write_text(secrets.token_hex(32))
    other.chmod(0o600)
    agent = runbox.Agent.from_pool_secret(host.tls_url, POOL, secret_file=str(other), fingerprint=fingerprint)
    with pytest.raises(AuthenticationError):
        agent.health()


def test_a_secret_others_may_read_is_refused(host: RealAgent, config: Path, fingerprint: str) -> None:
    path = config / "runbox" / "pools" / f"{POOL}.secret"
    control = runbox.Agent.from_pool_secret(host.tls_url, POOL, fingerprint=fingerprint)
    assert control.health()["pool"]["name"] == POOL
    path.chmod(0o644)
    with pytest.raises(FleetTokenError, match="chmod 600"):
        runbox.Agent.from_pool_secret("http://127.0.0.1:9", POOL)  # nothing listens: nothing sent


def test_a_plain_http_url_gets_nothing(host: RealAgent, config: Path) -> None:
    """A squatter on a stopped pool host's plain-HTTP port, showing a live host's nonce, would be
    handed that host's token: a pool host token is derived for https:// only, and nothing is
    sent to the squatter, not even GET /health."""
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen(8)
    squatter.settimeout(0.5)
    try:
        url = "http://127.0.0.1:%d" % squatter.getsockname()[1]
        with pytest.raises(FleetTokenError, match="only over https://"):
            runbox.Agent.from_pool_secret(url, POOL)
        fleet = config / "runbox" / "fleet.json"
        fleet.write_text('{"agents":[{"name":"sq","url":"%s","pool":"%s"}]}' % (url, POOL))
        with Pool(POOL, str(fleet)) as pool:
            state = pool.survey()[0]
            assert not state.reachable and "only over https://" in state.error
        with pytest.raises(socket.timeout):
            squatter.accept()  # no connection came
        with pytest.raises(FleetTokenError, match="only over https://"):
            runbox.Agent.from_pool_secret(host.url, POOL)  # the live host's own plain URL too
    finally:
        squatter.close()


def test_a_slurm_pool_hosts_pooled_id_is_found_from_its_published_file(secret: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A pooled id ``POOL-JOBID.ID`` of a Slurm pool (docs/contracts.md "Slurm pools") reaches the
    host the job published, pinned with the published fingerprint; a file naming another job is
    not believed, and nothing is found without the pool's Slurm definition."""
    import json
    import subprocess

    from conftest import AGENT_BIN
    from runbox import Fleet, NotFoundError

    own = Path(tempfile.mkdtemp(prefix="runbox-pool-secret-"))
    secret_file = own / "pool.secret"
    secret_file.write_text(secret + "\n")
    secret_file.chmod(0o600)
    if os.geteuid() == 0:
        os.chown(own, NOBODY, NOBODY)
        os.chown(secret_file, NOBODY, NOBODY)
    agent = RealAgent(extra_args=["--pool", POOL, "--pool-secret-file", str(secret_file),
                                  "--listen-tls", "127.0.0.1:0"],
                      extra_env={"RUNBOX_STRONG_UID_FIRST": "1892004160", "RUNBOX_STRONG_UID_COUNT": "64"})
    try:
        made = agent.client().workspace()
        fingerprint = subprocess.run([str(AGENT_BIN), "--print-fingerprint", "--state-dir", str(agent.state_dir)],
                                     check=True, capture_output=True, text=True).stdout.strip()
        nonce = (agent.state_dir / "pool-host.nonce").read_text().strip()
        for key in [k for k in os.environ if k.startswith("RUNBOX_")]:
            monkeypatch.delenv(key)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        pools = tmp_path / "config" / "runbox" / "pools"
        pools.mkdir(parents=True)
        (pools / f"{POOL}.secret").write_text(secret + "\n")
        (pools / f"{POOL}.secret").chmod(0o600)
        hosts = tmp_path / "cache" / "runbox" / "pools" / POOL / "hosts"
        hosts.mkdir(parents=True)
        published = {"jobId": "77", "pool": POOL, "url": agent.tls_url, "fingerprint": fingerprint,
                     "hostNonce": nonce, "node": "n1", "published": "2026-12-07T15:00:00Z"}
        (hosts / "77.json").write_text(json.dumps(published))
        (hosts / "78.json").write_text(json.dumps(dict(published, jobId="77")))  # names another job

        with Pool(POOL, Fleet([], "")) as pool:
            with pytest.raises(NotFoundError):  # no Slurm definition of the pool yet
                pool.workspace(f"{POOL}-77.{made.id}")
        (pools / f"{POOL}.slurm.json").write_text('{"partition":"p","perHost":1,"maxHosts":1,'
                                                  '"idleTimeoutS":60,"script":"/x.sbatch"}')
        with Pool(POOL, Fleet([], "")) as pool:
            pooled = pool.workspace(f"{POOL}-77.{made.id}")  # positive control
            assert pooled.run("echo slurm", check=True).text == "slurm\n"
            with pytest.raises(NotFoundError):
                pool.workspace(f"{POOL}-78.{made.id}")
            pooled.delete()
        assert made.id not in {w["id"] for w in agent.client().list_workspaces()}
    finally:
        agent.stop()
        shutil.rmtree(own, ignore_errors=True)


def test_private_files_are_read_on_one_descriptor(tmp_path: Path) -> None:
    """A FIFO as the pool secret or a token file is refused at once (it hung before), and a
    file of another user's is refused (as root), after a regular 0600 file as control."""
    import threading

    from runbox.fleet import FleetAgent
    from runbox.pool_secret import read_private, read_secret

    good = tmp_path / "good.secret"
    good.write_text("ab" * 32 + "\n")
    good.chmod(0o600)
    assert read_secret(str(good)) == "ab" * 32  # control
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o600)
    done = threading.Event()

    def read_both() -> None:
        with pytest.raises(FleetTokenError, match="not a regular file"):
            read_secret(str(fifo))
        with pytest.raises(FleetTokenError, match="not a regular file"):
            FleetAgent(name="h", url="http://a:1", token_file=str(fifo)).read_token()
        done.set()

    worker = threading.Thread(target=read_both, daemon=True)
    worker.start()
    worker.join(10)
    assert done.is_set(), "reading a FIFO hung"
    if os.geteuid() == 0:
        os.chown(good, NOBODY, NOBODY)
        with pytest.raises(FleetTokenError, match="owned by uid"):
            read_private(str(good), "the pool secret")
