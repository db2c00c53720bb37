"""Agent: finding the agent like the CLI, signing (every call would be 401 otherwise),
workspaces, tokens and their scope, context managers."""

from __future__ import annotations

import pytest

import runbox
from runbox import AuthenticationError, NotFoundError, PermissionDeniedError


def test_found_through_the_state_dir(real_agent, monkeypatch):
    monkeypatch.delenv("RUNBOX_URL", raising=False)
    monkeypatch.delenv("RUNBOX_TOKEN", raising=False)
    agent = runbox.Agent(state_dir=str(real_agent.state_dir))
    assert agent.url == real_agent.url
    assert "sandbox" in agent.health()


def test_found_through_the_environment(real_agent, monkeypatch, tmp_path):
    monkeypatch.setenv("RUNBOX_URL", real_agent.url)
    monkeypatch.setenv("RUNBOX_TOKEN", real_agent.token)
    agent = runbox.Agent(state_dir=str(tmp_path))  # empty: the variables win
    assert agent.health()
    monkeypatch.setenv("RUNBOX_TOKEN", "0" * 64)
    with pytest.raises(AuthenticationError):
        runbox.Agent(state_dir=str(tmp_path)).health()


def test_no_token_anywhere(monkeypatch, tmp_path):
    monkeypatch.delenv("RUNBOX_TOKEN", raising=False)
    with pytest.raises(runbox.RunboxError) as e:
        runbox.Agent(state_dir=str(tmp_path))
    assert e.value.code == "no_token"


def test_a_wrong_token_is_refused(real_agent):
    with pytest.raises(AuthenticationError) as e:
        runbox.Agent(url=real_agent.url, token="f" * 64).health()
    assert e.value.status == 401


def test_workspace_lifecycle(agent):
    with agent.workspace() as ws:
        assert ws.isolation == "strong" and ws.token.startswith("ws1.") and ws.owned
        ids = [w.get("id") for w in agent.list_workspaces()]
        assert ws.id in ids
        assert agent.get_workspace(ws.id).run("true").ok
    assert ws.id not in [w.get("id") for w in agent.list_workspaces()], "the context manager deleted it"
    with pytest.raises(NotFoundError):
        agent.get_workspace(ws.id)


def test_connect_workspace_with_its_token_only(agent, real_agent):
    with agent.workspace() as ws:
        ws.files.write("hello.txt", "hi")
        on_agent = agent.connect_workspace(ws.id, ws.token)
        on_class = runbox.Agent.connect_workspace(ws.id, ws.token, url=real_agent.url)
        for handle in (on_agent, on_class):
            assert handle.run(["cat", "hello.txt"], check=True).stdout == b"hi"
            assert not handle.owned
        with on_class:
            pass
        assert ws.files.exists("hello.txt"), "a connected handle does not delete on exit"
        # the scoped token reaches only its own workspace, and cannot create workspaces
        scoped = runbox.Agent(url=real_agent.url, token=ws.token)
        with pytest.raises(PermissionDeniedError):
            scoped.workspace()
        with agent.workspace() as other:
            with pytest.raises(NotFoundError):
                runbox.Agent.connect_workspace(other.id, ws.token, url=real_agent.url).run("true")


def test_delete(agent):
    ws = agent.workspace()
    ws.delete()
    with pytest.raises(AuthenticationError):
        ws.run("true")  # its scoped token died with it
    with pytest.raises(NotFoundError):
        runbox.Workspace(agent._client, ws.id).run("true")
    with ws:  # already deleted: nothing to do
        pass


def test_connections_are_kept_alive(agent):
    agent.close()
    for _ in range(5):
        agent.health()
    assert len(agent._session._idle) == 1, "five calls, one connection"


def test_strong_workspaces_take_no_batch(agent):
    with pytest.raises(ValueError):
        agent.workspaces(2, isolation="strong")


def test_a_skewed_clock_is_corrected_from_date(real_agent, monkeypatch):
    import runbox._http as transport

    agent = real_agent.client()
    real_time = transport.time.time
    monkeypatch.setattr(transport.time, "time", lambda: real_time() - 3600)  # an hour behind
    assert agent.health(), "the first signature_expired taught the offset; the retry passed"
    assert abs(agent._session.clock_offset_ms - 3600_000) < 3000
    with agent.workspace() as ws:
        assert ws.run("true").ok, "the workspace's client shares the corrected session"


def test_threads_share_one_agent(agent):
    from concurrent.futures import ThreadPoolExecutor

    with agent.workspace() as ws:
        for i in range(8):
            ws.files.write(f"f{i}", f"content {i}" * 1000)

        def work(i):
            return ws.files.read_text(f"f{i}") == f"content {i}" * 1000 and bool(agent.health())

        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(work, list(range(8)) * 4)), "each answer reached its own caller"
        assert len(agent._session._idle) <= 8
