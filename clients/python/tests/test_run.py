"""ws.run against the real agent: every argument, streaming, check=, and a lost connection."""

from __future__ import annotations

import threading

import pytest

import runbox
from runbox import CommandError, ConnectionLostError, InvalidRequestError


def test_string_is_shell(ws):
    r = ws.run("echo $((6*7)); echo err >&2")
    assert r.ok and r.exit_code == 0 and r.status == "completed" and r.signal is None
    assert r.stdout == b"42\n" and r.stderr == b"err\n" and isinstance(r.duration_ms, int)


def test_list_is_argv(ws):
    r = ws.run(["printf", "%s|", "a b", "$HOME"])
    assert r.stdout == b"a b|$HOME|", "no shell between: no splitting, no expansion"


@pytest.mark.parametrize("kind,code,out", [("python", "print(6*7)", b"42\n"), ("shell", "echo $0", b"/usr/bin/bash\n")])
def test_code_and_kind(ws, kind, code, out):
    assert ws.run(code=code, kind=kind).stdout == out


def test_python_is_the_default_kind(ws):
    assert ws.run(code="import sys; print(sys.version_info[0])").stdout == b"3\n"


def test_r_kind(ws):
    try:
        r = ws.run(code="cat(6*7)", kind="r")
    except InvalidRequestError as e:
        assert e.code == "r_unavailable"
        pytest.skip("R is not installed on this host")
    assert r.stdout == b"42"


def test_stdin_env_cwd(ws):
    ws.run("mkdir sub")
    assert ws.run(["cat"], stdin="in\n").stdout == b"in\n"
    assert ws.run("tr a-z A-Z", stdin=b"abc").stdout == b"ABC"
    assert ws.run("echo $GREETING", env={"GREETING": "hi"}).stdout == b"hi\n"
    assert ws.run(["pwd"], cwd="sub").stdout == b"/workspace/sub\n"


def test_workspace_env_is_a_default(agent):
    with agent.workspace(env={"A": "1", "B": "2"}) as ws:
        assert ws.run("echo $A$B", env={"B": "3"}).stdout == b"13\n"


def test_timeout(ws):
    r = ws.run("sleep 30", timeout_ms=500)
    assert r.status == "timed_out" and not r.ok
    with pytest.raises(CommandError) as e:
        ws.run("sleep 30", timeout_ms=500, check=True)
    assert e.value.result.status == "timed_out" and e.value.code == "timed_out"


def test_streaming_callbacks_in_order(ws):
    seen = []
    first = threading.Event()

    def out(data):
        seen.append(("out", data))
        first.set()

    r = ws.run("for i in 1 2 3; do echo o$i; echo e$i >&2; sleep 0.2; done", on_stdout=out,
               on_stderr=lambda d: seen.append(("err", d)))
    assert b"".join(d for s, d in seen if s == "out") == r.stdout == b"o1\no2\no3\n"
    assert b"".join(d for s, d in seen if s == "err") == r.stderr
    assert len(seen) >= 6, "output arrives as it is written, not at the end"


def test_binary_output_is_decoded(ws):
    r = ws.run(code="import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)")
    assert r.stdout == bytes(range(256)) * 4, "dataBase64 frames decoded exactly"


def test_check_raises_with_the_stderr_tail(ws):
    with pytest.raises(CommandError) as e:
        ws.run("echo lots >&2; head -c 5000 /dev/zero | tr '\\0' x >&2; echo THE-END >&2; exit 3", check=True)
    err = e.value
    assert isinstance(err, runbox.RunboxError) and err.result.exit_code == 3
    head, tail = str(err).split("--- stderr (last 1000 bytes) ---")
    assert "exited with code 3" in head and tail.endswith("THE-END\n") and "lots" not in tail
    assert ws.run("exit 3").exit_code == 3, "without check, a failure is a result"


def test_file_changes(ws):
    ws.run("echo a > keep; echo b > gone")
    r = ws.run("echo c > new; echo more >> keep; rm gone")
    assert r.created_files == ["new"] and r.modified_files == ["keep"] and r.deleted_files == ["gone"]


def test_bad_requests_are_errors_before_running(ws):
    with pytest.raises(InvalidRequestError) as e:
        ws.run("true", env={"LD_PRELOAD": "x"})
    assert e.value.code == "invalid_env"
    with pytest.raises(ValueError):
        ws.run()
    with pytest.raises(ValueError):
        ws.run(code="1", stdin="x")


def test_a_connection_lost_mid_stream_is_an_error(real_agent, relay, ws):
    through = runbox.Agent.connect_workspace(ws.id, ws.token, url=relay.url)
    got = []

    def on_out(data):
        got.append(data)
        relay.cut()

    with pytest.raises(ConnectionLostError):
        through.run("for i in $(seq 50); do echo line$i; sleep 0.1; done", on_stdout=on_out)
    assert got and got[0].startswith(b"line1"), "the stream had started"
    assert ws.run("echo still fine").ok, "the agent serves on"
