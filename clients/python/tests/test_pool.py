"""``runbox.Pool`` over a fleet file (docs/contracts.md "Fleet file", "Pool hosts"), against
three real strong-tier agents hosting pool p1 with capacities 2, 2, 1 (conftest ``pool_hosts``):
placement in the fleet's order, all-or-nothing refusals that leave nothing on any agent, a host
that is down skipped, runs on pooled workspaces and reconnects by pooled id, token files and
keychain entries, and an https:// pool host reached with its fleet pin (a wrong one refused)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import runbox
from conftest import AGENT_BIN, POOL, POOL_CAPACITIES, PoolHosts, RealAgent
from fake_agent import FakeAgent, Route
from runbox import Fleet, FleetFileError, FleetSsh, FleetTokenError, Pool


@pytest.fixture()
def pool(pool_hosts: PoolHosts) -> Iterator[Pool]:
    assert pool_hosts.held() == [0, 0, 0], "an earlier test left workspaces behind"
    with Pool(POOL, str(pool_hosts.fleet_path)) as p:
        yield p
        p.delete_all()
    assert pool_hosts.held() == [0, 0, 0]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_survey_names_every_host_with_its_free_slots(pool: Pool) -> None:
    states = pool.survey()
    assert [s.name for s in states] == ["h1", "h2", "h3"]
    for s, cap in zip(states, POOL_CAPACITIES):
        assert (s.reachable, s.error, s.pool, s.capacity, s.workspaces, s.free) == (True, "", POOL, cap, 0, cap)
    assert [h.name for h in pool.hosts()] == ["h1", "h2", "h3"]
    assert Pool("other", pool.fleet).hosts() == []  # hosts are the agents whose pool names it


def test_placement_fills_hosts_in_fleet_order(pool: Pool, pool_hosts: PoolHosts) -> None:
    first = pool.create(3, isolation="strong")
    assert (first.placed, first.skipped, first.rounds) == ({"h1": 2, "h2": 1}, {}, 1)
    assert [w.host for w in first] == ["h1", "h1", "h2"]
    assert pool_hosts.held() == [2, 1, 0]
    for w in first:
        assert w.id == f"{w.host}.{w.local_id}" and w.info["id"] == w.id and w.isolation == "strong"
    local = {a["id"] for a in pool_hosts.agents[0].client().list_workspaces()}
    assert {w.local_id for w in first if w.host == "h1"} == local

    second = pool.create(2, isolation="strong")
    assert second.placed == {"h2": 1, "h3": 1}
    assert pool_hosts.held() == [2, 2, 1]
    assert [s.free for s in pool.survey()] == [0, 0, 0]

    with pytest.raises(runbox.PoolFullError) as full:  # a full pool: refused, nothing made
        pool.create(1, isolation="strong")
    err = full.value
    assert (err.code, err.status, err.placed, err.left_behind) == ("pool_full", None, {}, [])
    assert "room for 0 of 1" in err.message and "h3: 0 free of 1" in err.message, err.message
    assert pool_hosts.held() == [2, 2, 1]

    assert pool.delete_all() == {"h1": 2, "h2": 2, "h3": 1}
    assert pool_hosts.held() == [0, 0, 0]


def test_a_request_beyond_the_pools_capacity_leaves_nothing_behind(pool: Pool, pool_hosts: PoolHosts) -> None:
    # Control: exactly the capacity fits, every host filled.
    total = sum(POOL_CAPACITIES)
    made = pool.create(total, isolation="strong")
    assert made.placed == {"h1": 2, "h2": 2, "h3": 1} and pool_hosts.held() == [2, 2, 1]
    for w in made:
        w.delete()
    assert pool_hosts.held() == [0, 0, 0]

    with pytest.raises(runbox.PoolFullError) as full:
        pool.create(total + 1, isolation="strong")
    err = full.value
    assert isinstance(err, runbox.PoolError) and isinstance(err, runbox.RunboxError)
    # all five were made, then deleted again: all or nothing
    assert (err.code, err.placed, err.left_behind) == ("pool_full", {"h1": 2, "h2": 2, "h3": 1}, [])
    assert f"room for {total} of {total + 1}" in err.message
    assert pool_hosts.held() == [0, 0, 0]


def test_a_host_that_is_down_is_skipped(pool_hosts: PoolHosts, tmp_path: Path) -> None:
    down = {"name": "down", "url": f"http://127.0.0.1:{closed_port()}", "tokenFile": "down.token"}
    (tmp_path / "down.token").write_text("0" * 64)
    (tmp_path / "down.token").chmod(0o600)
    copy_tokens(pool_hosts, tmp_path)
    fleet = PoolHosts.write_fleet(tmp_path / "fleet.json", [down] + pool_hosts.entries)
    with Pool(POOL, str(fleet)) as pool:
        states = pool.survey()
        assert [s.name for s in states] == ["down", "h1", "h2", "h3"]
        assert not states[0].reachable and states[0].error, states[0]
        assert all(s.reachable for s in states[1:])
        made = pool.create(3, isolation="strong")  # the first in the fleet's order is down
        try:
            assert made.placed == {"h1": 2, "h2": 1}
            assert list(made.skipped) == ["down"] and made.skipped["down"].startswith("unreachable: ")
            assert pool_hosts.held() == [2, 1, 0]
        finally:
            for w in made:
                w.delete()
        assert pool_hosts.held() == [0, 0, 0]
        with pytest.raises(runbox.PoolDeleteError) as incomplete:  # the down agent is reported
            pool.delete_all()
        assert incomplete.value.deleted == {"h1": 0, "h2": 0, "h3": 0}
        assert [e.split(":")[0] for e in incomplete.value.errors] == ["down"]


def test_no_reachable_host_of_the_pool(pool_hosts: PoolHosts) -> None:
    with Pool("p2", str(pool_hosts.fleet_path)) as other:
        with pytest.raises(runbox.NoPoolHostsError) as none:
            other.create(1, isolation="strong")
    assert none.value.code == "no_pool_hosts" and none.value.placed == {}
    assert pool_hosts.held() == [0, 0, 0]


def test_runs_files_and_reconnects_on_pooled_workspaces(pool: Pool, pool_hosts: PoolHosts) -> None:
    made = pool.create(3, isolation="strong", env={"MODE": "pooled"})
    on_h1, on_h2 = made[0], made[2]
    assert (on_h1.host, on_h2.host) == ("h1", "h2")
    for w in made:
        assert w.run("echo $MODE", check=True).stdout == b"pooled\n"
    on_h2.files.write("note.txt", "on h2\n")
    assert on_h2.run(["cat", "note.txt"], check=True).stdout == b"on h2\n"
    ex = on_h2.start("echo managed")
    assert ex.wait().ok and [e.id for e in on_h2.executions()] == [ex.id]

    again = pool.workspace(on_h2.id, on_h2.token)  # reconnect by pooled id and scoped token
    assert (again.id, again.host, again.local_id, again.owned) == (on_h2.id, "h2", on_h2.local_id, False)
    assert again.files.read_text("note.txt") == "on h2\n"
    assert again.run("cat note.txt", check=True).text == "on h2\n"
    assert pool.workspace(on_h2.id).files.read_text("note.txt") == "on h2\n"  # the agent token
    with pytest.raises(runbox.AuthenticationError):  # h1's workspace token means nothing to h2
        pool.workspace(on_h2.id, on_h1.token).files.list()
    with pytest.raises(runbox.NotFoundError):  # a token scoped to another workspace of h1
        pool.workspace(f"h1.{made[1].local_id}", on_h1.token).files.list()
    with pytest.raises(runbox.NotFoundError) as unknown:
        pool.workspace(f"h9.{on_h1.local_id}", on_h1.token)
    assert unknown.value.code == "host_not_found"
    for bad in ("h1", ".x", "h1.", ""):
        with pytest.raises(ValueError):
            pool.workspace(bad, on_h1.token)

    with made[1]:  # owned: deleted by its context manager
        pass
    assert pool_hosts.held() == [1, 1, 0]
    again.delete()  # a reconnected handle deletes too
    assert pool_hosts.held() == [1, 0, 0]
    on_h1.delete()
    assert pool_hosts.held() == [0, 0, 0]


def test_create_arguments(pool: Pool) -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError):
            pool.create(bad, isolation="strong")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        pool.create(1, isolation="medium")
    with pytest.raises(ValueError):
        pool.create(1, isolation="strong", idle_timeout_s=5)


def test_the_round_callback_and_cancel(pool: Pool, pool_hosts: PoolHosts) -> None:
    plans: List[Any] = []
    with pytest.raises(runbox.PoolCancelledError) as cancelled:
        pool.create(3, isolation="strong", on_round_planned=lambda r, p: plans.append((r, p)),
                    cancelled=lambda: pool_hosts.held() == [2, 1, 0])
    assert plans == [(1, {"h1": 2, "h2": 1})]
    assert cancelled.value.code == "cancelled" and cancelled.value.placed == {"h1": 2, "h2": 1}
    assert pool_hosts.held() == [0, 0, 0]


def test_each_hosts_rejected_is_the_authority(pool: Pool, pool_hosts: PoolHosts) -> None:
    """A workspace made directly on a host after the round was planned takes a planned slot:
    the host rejects that create, and the next round re-reads every host and goes elsewhere."""
    intruders: List[runbox.Workspace] = []

    def take_a_slot_on(index: int) -> Any:
        def planned(rnd: int, plan: Dict[str, int]) -> None:
            if rnd == 1:
                with pool_hosts.agents[index].client() as direct:
                    intruders.append(direct.workspace())
        return planned

    try:
        made = pool.create(4, isolation="strong", on_round_planned=take_a_slot_on(0))
        assert (made.placed, made.rounds) == ({"h1": 1, "h2": 2, "h3": 1}, 2)
        assert pool_hosts.held() == [2, 2, 1]
        for w in made:
            w.delete()
        intruders.pop().delete()

        with pytest.raises(runbox.PoolFullError) as full:  # no second round has room: nothing kept
            pool.create(5, isolation="strong", on_round_planned=take_a_slot_on(2))
        assert full.value.placed == {"h1": 2, "h2": 2} and full.value.left_behind == []
        assert (full.value.rounds, full.value.skipped) == (2, {})  # round 2 re-read: no room anywhere
        assert "room for 4 of 5 workspaces after 2 round(s)" in full.value.message, full.value.message
        assert pool_hosts.held() == [0, 0, 1]  # the intruder only
    finally:
        for w in intruders:
            w.delete()


def fake_host(fake: FakeAgent, tmp_path: Path, create: Route) -> Dict[str, str]:
    health = {"status": "ok", "pool": {"name": POOL, "capacity": 5, "workspaces": 0, "reserved": 0,
                                       "free": 5, "labels": [], "exitWhenIdleS": 0}}
    fake.routes[("GET", "/v1/health")] = Route(200, json.dumps(health).encode())
    fake.routes[("POST", "/v1/workspaces")] = create
    (tmp_path / "fake.token").write_text("ab" * 32)
    (tmp_path / "fake.token").chmod(0o600)
    return {"name": "fake", "url": fake.url, "tokenFile": "fake.token"}


def copy_tokens(pool_hosts: PoolHosts, tmp_path: Path) -> None:
    for e in pool_hosts.entries:
        (tmp_path / e["tokenFile"]).parent.mkdir(exist_ok=True)
        (tmp_path / e["tokenFile"]).write_bytes((pool_hosts.fleet_path.parent / e["tokenFile"]).read_bytes())
        (tmp_path / e["tokenFile"]).chmod(0o600)


def test_a_host_answering_5xx_is_skipped_for_the_rest_of_the_call(pool_hosts: PoolHosts, tmp_path: Path) -> None:
    fake = FakeAgent()
    try:
        entry = fake_host(fake, tmp_path, Route(500, b'{"error":{"code":"internal_error","message":"boom"}}'))
        copy_tokens(pool_hosts, tmp_path)
        fleet = PoolHosts.write_fleet(tmp_path / "fleet.json", [entry] + pool_hosts.entries)
        with Pool(POOL, str(fleet)) as pool:
            made = pool.create(2, isolation="strong")
            try:
                # round 1 planned both on the fake (first, 5 free), which failed them; round 2
                # left it out although its health still says 5 free
                assert (made.placed, made.rounds) == ({"h1": 2}, 2)
                assert made.skipped == {"fake": "500 internal_error: boom"}
                assert [r[0] for r in fake.requests if r[0] == "POST"] == ["POST", "POST"]
            finally:
                for w in made:
                    w.delete()
    finally:
        fake.close()
    assert pool_hosts.held() == [0, 0, 0]


def test_a_4xx_create_refusal_ends_the_call_and_deletes_what_was_made(pool_hosts: PoolHosts,
                                                                      tmp_path: Path) -> None:
    fake = FakeAgent()
    try:
        refusal = b'{"error":{"code":"invalid_request","message":"no such option"}}'
        entry = fake_host(fake, tmp_path, Route(400, refusal))
        copy_tokens(pool_hosts, tmp_path)
        fleet = PoolHosts.write_fleet(tmp_path / "fleet.json", pool_hosts.entries[:1] + [entry])
        with Pool(POOL, str(fleet)) as pool:
            with pytest.raises(runbox.PoolCreateRefusedError) as refused:
                pool.create(3, isolation="strong")  # h1 makes 2 in the same round, then they go
    finally:
        fake.close()
    err = refused.value
    assert (err.code, err.placed, err.left_behind, err.rounds) == ("create_refused", {"h1": 2}, [], 1)
    assert "fake answered 400 invalid_request: no such option" in err.message
    assert pool_hosts.held() == [0, 0, 0]


# --- the fleet file -------------------------------------------------------------------------

FP = "AB:" * 31 + "CD"


def base_entries() -> List[Dict[str, Any]]:
    return [{"name": "h1", "url": "http://127.0.0.1:4311", "tokenFile": "tokens/h1.token"},
            {"name": "gpu-2", "url": "https://gpu2.example:4312", "keychain": "runbox/gpu-2", "fingerprint": FP}]


def mutate(kind: str, doc: Dict[str, Any]) -> Any:
    a = doc["agents"]
    if kind == "token":
        a[0]["token"] = "00" * 32
    elif kind == "unknown member":
        a[0]["tokenfile"] = a[0].pop("tokenFile")
    elif kind == "unknown root member":
        doc["pools"] = []
    elif kind == "duplicate name":
        a[1]["name"] = "h1"
    elif kind == "dot in name":
        a[0]["name"] = "h.1"
    elif kind == "empty name":
        a[0]["name"] = ""
    elif kind == "long name":
        a[0]["name"] = "h" * 65
    elif kind == "not http":
        a[0]["url"] = "ftp://127.0.0.1:4311"
    elif kind == "no scheme":
        a[0]["url"] = "127.0.0.1:4311"
    elif kind == "bad port":
        a[0]["url"] = "http://127.0.0.1:99999"
    elif kind == "no token":
        del a[0]["tokenFile"]
    elif kind == "both tokens":
        a[1]["tokenFile"] = "t"
    elif kind == "bad fingerprint":
        a[1]["fingerprint"] = "sha256:abcd"
    elif kind == "fingerprint on http":
        a[0]["fingerprint"] = FP
    elif kind == "not a string":
        a[0]["url"] = 4311
    elif kind == "agents not array":
        doc["agents"] = {"h1": a[0]}
    elif kind == "agent not object":
        a.append("h3")
    elif kind == "not an object":
        return [doc]
    elif kind == "url and ssh":
        a[0]["ssh"] = {"host": "node3"}
    elif kind == "ssh host an option":
        del a[0]["url"]
        a[0]["ssh"] = {"host": "-oProxyCommand=touch /tmp/x"}
    elif kind == "ssh user an option":
        del a[0]["url"]
        a[0]["ssh"] = {"host": "node3", "user": "-F/tmp/x"}
    elif kind == "ssh port":
        del a[0]["url"]
        a[0]["ssh"] = {"host": "node3", "port": 70000}
    elif kind == "ssh remote relative":
        del a[0]["url"]
        a[0]["ssh"] = {"host": "node3", "remote": "run/agent.sock"}
    elif kind == "ssh unknown member":
        del a[0]["url"]
        a[0]["ssh"] = {"host": "node3", "command": "x"}
    elif kind == "fingerprint over ssh":
        del a[1]["url"]
        a[1]["ssh"] = {"host": "gpu2"}
    return doc


REFUSALS = {
    "token": "a token is never stored", "unknown member": 'unknown member "tokenfile"',
    "unknown root member": 'unknown member "pools"', "duplicate name": 'name "h1" is listed twice',
    "dot in name": 'name "h.1" must be', "empty name": 'name "" must be', "long name": "must be 1-64",
    "not http": "is not http(s)://", "no scheme": "is not http(s)://", "bad port": "is not http(s)://",
    "no token": 'give one of "tokenFile" and "keychain"', "both tokens": 'give one of "tokenFile"',
    "bad fingerprint": "is not a SHA-256 fingerprint", "fingerprint on http": "the url must be https://",
    "not a string": '"url" must be a string', "agents not array": '"agents" must be an array',
    "agent not object": "agent 3: not an object", "not an object": "is not a JSON object",
    "url and ssh": 'give one of "url" and "ssh"', "ssh host an option": '"ssh.host" must be',
    "ssh user an option": '"ssh.user" must be', "ssh port": '"ssh.port" must be 1-65535',
    "ssh remote relative": '"ssh.remote" must be', "ssh unknown member": 'unknown member "ssh.command"',
    "fingerprint over ssh": "the url must be https://",
}


@pytest.mark.parametrize("kind", sorted(REFUSALS))
def test_a_fleet_file_error_refuses_the_whole_file(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps({"agents": base_entries()}))
    fleet = Fleet.load(str(path))  # control: the file before the change loads
    assert [a.name for a in fleet] == ["h1", "gpu-2"]
    path.write_text(json.dumps(mutate(kind, {"agents": base_entries()})))
    with pytest.raises(FleetFileError) as refused:
        Fleet.load(str(path))
    err = refused.value
    assert (err.code, err.status, err.path) == ("invalid_fleet_file", None, str(path))
    assert REFUSALS[kind] in err.message and str(path) in err.message, err.message
    with pytest.raises(FleetFileError):  # a Pool over that file too
        Pool(POOL, str(path))


def test_a_fleet_file_that_is_not_json_or_missing(tmp_path: Path) -> None:
    path = tmp_path / "fleet.json"
    path.write_text('{"agents": [}')
    with pytest.raises(FleetFileError, match="is not a JSON object"):
        Fleet.load(str(path))
    with pytest.raises(FleetFileError, match="cannot read the fleet file"):
        Fleet.load(str(tmp_path / "absent.json"))


def test_fleet_file_members_paths_and_pins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "conf" / "fleet.json"
    path.parent.mkdir()
    entries = base_entries() + [{"name": "abs", "url": "http://h:1", "tokenFile": "/etc/runbox/abs.token"},
                                {"name": "up", "url": "http://h:1/x", "tokenFile": "../up.token"}]
    PoolHosts.write_fleet(path, entries)
    monkeypatch.chdir(tmp_path)
    fleet = Fleet.load(os.path.relpath(path))  # relative to the file, not to the working directory
    h1, gpu, absolute, up = fleet.agents
    assert h1.token_file == str(path.parent / "tokens" / "h1.token") and h1.keychain is None and h1.pin is None
    assert absolute.token_file == "/etc/runbox/abs.token" and up.token_file == str(tmp_path / "up.token")
    assert (gpu.token_file, gpu.keychain, gpu.fingerprint, gpu.pin) == (None, "runbox/gpu-2", FP, bytes([0xAB] * 31 + [0xCD]))
    assert fleet["h1"] is h1 and fleet.find("nope") is None

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert Fleet.default_path() == str(tmp_path / "xdg" / "runbox" / "fleet.json")
    (tmp_path / "xdg" / "runbox").mkdir(parents=True)
    PoolHosts.write_fleet(tmp_path / "xdg" / "runbox" / "fleet.json", entries[:1])
    assert [a.name for a in Fleet.load()] == ["h1"]
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Fleet.default_path() == str(tmp_path / "home" / ".config" / "runbox" / "fleet.json")
    with pytest.raises(FleetFileError, match="cannot read"):
        Fleet.load()


def test_token_files_must_be_private_and_keychains_are_refused(pool_hosts: PoolHosts, tmp_path: Path) -> None:
    copy_tokens(pool_hosts, tmp_path)
    keychain = {"name": "kc", "url": pool_hosts.agents[0].url, "keychain": "runbox/kc"}
    # A console's SSH profile (docs/contracts.md "Fleet file"), with a token file even: never a
    # pool host of this client, which does not run ssh.
    via_ssh = {"name": "tunnel", "ssh": {"host": "node3", "user": "ops", "port": 2222},
               "tokenFile": pool_hosts.entries[0]["tokenFile"]}
    fleet_path = PoolHosts.write_fleet(tmp_path / "fleet.json", [keychain] + pool_hosts.entries + [via_ssh])
    fleet = Fleet.load(str(fleet_path))
    assert fleet["tunnel"].ssh == FleetSsh("node3", "ops", 2222, "") and fleet["tunnel"].url == ""
    with pytest.raises(FleetTokenError, match="reached through ssh"):
        fleet["tunnel"].read_token()
    h1_token = Path(fleet["h1"].token_file or "")
    assert fleet["h1"].read_token() == pool_hosts.agents[0].token  # control: 0600 reads
    with pytest.raises(FleetTokenError, match="keychain entry \"runbox/kc\", which only the console reads"):
        fleet["kc"].read_token()

    with Pool(POOL, fleet) as pool:  # control: h1 takes the first workspace
        made = pool.create(1, isolation="strong")
        assert made.placed == {"h1": 1} and list(made.skipped) == ["kc"]
        assert "keychain" in made.skipped["kc"]
        tunnel_state = pool.survey()[-1]
        assert (tunnel_state.name, tunnel_state.reachable) == ("tunnel", False)
        assert "through ssh" in tunnel_state.error
        with pytest.raises(FleetTokenError, match="through ssh"):
            pool.workspace("tunnel.anything", token="0" * 64)
        kc_state = pool.survey()[0]
        assert (kc_state.name, kc_state.reachable) == ("kc", False) and "keychain" in kc_state.error
        with pytest.raises(FleetTokenError):  # a pooled id of the keychain agent without a token
            pool.workspace("kc.anything")
        made[0].delete()

    for mode in (0o640, 0o604, 0o660):
        h1_token.chmod(mode)
        with pytest.raises(FleetTokenError, match="readable by group or others"):
            fleet["h1"].read_token()
        with Pool(POOL, fleet) as pool:  # h1 is then skipped: the workspace goes to h2
            assert "chmod 600" in pool.survey()[1].error
            made = pool.create(1, isolation="strong")
            assert made.placed == {"h2": 1} and "readable by group or others" in made.skipped["h1"]
            made[0].delete()
    h1_token.unlink()
    with pytest.raises(FleetTokenError, match="cannot read token file"):
        fleet["h1"].read_token()
    h1_token.write_text("\n")
    h1_token.chmod(0o600)
    with pytest.raises(FleetTokenError, match="is empty"):
        fleet["h1"].read_token()
    assert pool_hosts.held() == [0, 0, 0]


# --- an https:// pool host and its fleet pin --------------------------------------------------

@pytest.fixture(scope="module")
def tls_host() -> Iterator[RealAgent]:
    agent = RealAgent(extra_args=["--listen-tls", "127.0.0.1:0", "--pool", "tp", "--pool-capacity", "1"])
    yield agent
    agent.stop()


def tls_fleet(tmp_path: Path, agent: RealAgent, fingerprint: str = "") -> Path:
    token = tmp_path / "t1.token"
    token.write_text(agent.token)
    token.chmod(0o600)
    entry = {"name": "t1", "url": agent.tls_url, "tokenFile": "t1.token"}
    if fingerprint:
        entry["fingerprint"] = fingerprint
    return PoolHosts.write_fleet(tmp_path / "fleet.json", [entry])


def api_requests(agent: RealAgent) -> float:
    """The requests the agent's API answered (metrics over its plain loopback listener)."""
    token = (agent.state_dir / "metrics.token").read_text().strip()
    conn = http.client.HTTPConnection("127.0.0.1", int(agent.url.rsplit(":", 1)[1]), timeout=30)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("runbox_http_requests_total{") and 'route="/metrics"' not in line)


def test_a_tls_pool_host_is_reached_with_its_fleet_pin(tls_host: RealAgent, tmp_path: Path) -> None:
    out = subprocess.run([str(AGENT_BIN), "--print-fingerprint", "--state-dir", str(tls_host.state_dir)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    fp = out.stdout.strip()
    assert tls_host.tls_url.startswith("https://")

    with Pool("tp", str(tls_fleet(tmp_path, tls_host, fp))) as pool:  # control: the right pin
        state = pool.survey()[0]
        assert (state.reachable, state.pool, state.free) == (True, "tp", 1), state
        made = pool.create(1, isolation="strong")
        assert made.placed == {"t1": 1}
        assert made[0].run("echo over-pinned-tls", check=True).stdout == b"over-pinned-tls\n"
        made[0].delete()

    wrong = fp[:-2] + ("00" if not fp.endswith("00") else "11")
    before = api_requests(tls_host)
    with Pool("tp", str(tls_fleet(tmp_path, tls_host, wrong))) as pool:
        state = pool.survey()[0]
        assert not state.reachable and f"expected {wrong}, presented {fp}" in state.error, state
        with pytest.raises(runbox.NoPoolHostsError) as refused:
            pool.create(1, isolation="strong")
        assert "expected" in refused.value.skipped["t1"]
        with pytest.raises(runbox.CertificateRefusedError):
            pool.workspace("t1.anything").files.list()
    with Pool("tp", str(tls_fleet(tmp_path, tls_host))) as pool:  # no pin: a self-signed agent is refused
        state = pool.survey()[0]
        assert not state.reachable and "not trusted" in state.error and fp in state.error, state
    assert api_requests(tls_host) == before  # nothing reached the agent's API
    with tls_host.client() as direct:
        assert direct.list_workspaces() == []


# --- light workspaces: one batch per host ---------------------------------------------------

@pytest.fixture(scope="module")
def light_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Two root agents hosting pool "lp" with capacities 3 and 2 (l1, l2), each with uid
    ranges of its own, when the light tier works here; else a skip saying why not."""
    if os.geteuid() != 0:
        pytest.skip("light workspaces need a root agent; run the tests as root")
    agents: List[RealAgent] = []
    try:
        for i, cap in enumerate((3, 2)):
            env = {"RUNBOX_STRONG_UID_FIRST": str(1888000000 + i * 100000), "RUNBOX_STRONG_UID_COUNT": "64",
                   "RUNBOX_LIGHT_UID_FIRST": str(1888500000 + i * 100000), "RUNBOX_LIGHT_UID_COUNT": "64"}
            agents.append(RealAgent(as_root=True, extra_env=env,
                                    extra_args=["--pool", "lp", "--pool-capacity", str(cap)]))
            with agents[-1].client() as c:
                light = c.health().get("light", {})
            if not light.get("available"):
                pytest.skip(f"light tier unavailable here: {light.get('reason')}")
        d = tmp_path_factory.mktemp("light-fleet")
        entries = []
        for i, agent in enumerate(agents):
            (d / f"l{i + 1}.token").write_text(agent.token)
            (d / f"l{i + 1}.token").chmod(0o600)
            entries.append({"name": f"l{i + 1}", "url": agent.url, "tokenFile": f"l{i + 1}.token"})
        yield agents, str(PoolHosts.write_fleet(d / "fleet.json", entries))
    finally:
        for agent in agents:
            agent.stop()


def light_held(agents: List[RealAgent]) -> List[int]:
    counts = []
    for agent in agents:
        with agent.client() as c:
            counts.append(len(c.list_workspaces()))
    return counts


def test_light_workspaces_are_placed_in_batches(light_pool: Any) -> None:
    agents, fleet = light_pool
    with Pool("lp", fleet) as pool:
        made = pool.create(4, isolation="light", env={"MODE": "light-pool"}, idle_timeout_s=600)
        assert (made.placed, made.rounds) == ({"l1": 3, "l2": 1}, 1)
        assert light_held(agents) == [3, 1]
        assert all(w.isolation == "light" and w.id.startswith(w.host + ".") for w in made)
        assert made[3].run("echo $MODE", check=True).stdout == b"light-pool\n"
        assert pool.workspace(made[0].id, made[0].token).run("true").ok

        with pytest.raises(runbox.PoolFullError) as full:  # one slot left: nothing of 2 is kept
            pool.create(2, isolation="light")
        assert full.value.placed == {"l2": 1} and full.value.left_behind == []
        assert light_held(agents) == [3, 1]
        assert pool.delete_all() == {"l1": 3, "l2": 1}  # light ones in one bulk delete per host
        assert light_held(agents) == [0, 0]

        # a batch partly rejected: a slot of l1 taken after planning
        taken: List[runbox.Workspace] = []

        def planned(rnd: int, plan: Dict[str, int]) -> None:
            if rnd == 1:
                with agents[0].client() as direct:
                    taken.append(direct.workspace(isolation="light"))

        try:
            made = pool.create(4, isolation="light", on_round_planned=planned)
            assert (made.placed, made.rounds) == ({"l1": 2, "l2": 2}, 2)
            assert light_held(agents) == [3, 2]
        finally:
            for w in taken:
                w.delete()
        assert pool.delete_all() == {"l1": 2, "l2": 2}
        assert light_held(agents) == [0, 0]
