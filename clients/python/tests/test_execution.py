"""Managed executions: start, status, logs (offsets, follow), wait, cancel, and a cancel that
really ends what the command left running (the peer's kill killed nothing)."""

from __future__ import annotations

import time

import pytest

import runbox
from runbox import LogChunk


def test_start_logs_wait(ws):
    ex = ws.start("echo one; echo two >&2; sleep 0.3; echo three", env={"X": "1"})
    assert isinstance(ex, runbox.Execution) and ex.status() in {"queued", "running", "completed"}
    chunks = list(ex.logs())
    assert all(isinstance(c, LogChunk) for c in chunks)
    offsets = [c.offset for c in chunks]
    assert offsets == sorted(offsets) and offsets[0] == 0
    for a, b in zip(chunks, chunks[1:]):
        assert b.offset == a.offset + len(a.data), "in order, nothing skipped"
    assert b"".join(c.data for c in chunks if c.stream == "stdout") == b"one\nthree\n"
    assert b"".join(c.data for c in chunks if c.stream == "stderr") == b"two\n"
    result = ex.wait()
    assert result.ok and result.stdout == b"one\nthree\n" and result.stderr == b"two\n"
    assert result.execution_id == ex.id and ex.status() == "completed"
    assert ex.record()["executionId"] == ex.id


def test_logs_from_an_offset_and_without_follow(ws):
    ex = ws.start(["printf", "abcdef"])
    ex.wait()
    assert [(c.data, c.offset) for c in ex.logs(offset=2)] == [(b"cdef", 2)]
    assert b"".join(c.data for c in ex.logs(follow=False)) == b"abcdef"


def test_failure_and_code_kind(ws):
    r = ws.start(code="import sys; print('x'); sys.exit(4)").wait()
    assert r.exit_code == 4 and r.status == "failed" and r.stdout == b"x\n" and not r.ok


def test_wait_with_a_timeout(ws):
    ex = ws.start("sleep 30")
    with pytest.raises(TimeoutError):
        ex.wait(timeout_s=0.3)
    assert ex.cancel(wait=False) in {"queued", "running", "cancelled"}
    assert ex.wait().status == "cancelled"


def _beats(ws, path="beat"):
    try:
        return ws.files.read(path)
    except runbox.NotFoundError:
        return b""


def _cancel_ends_everything(ws):
    # a heartbeat the command leaves running in the background, detached (setsid, nohup),
    # while its foreground part waits
    ex = ws.start("setsid nohup bash -c 'while true; do date +%s%N >> beat; sleep 0.05; done' "
                  ">/dev/null 2>&1 & echo started; sleep 600")
    deadline = time.monotonic() + 30
    while _beats(ws).count(b"\n") < 3:
        assert time.monotonic() < deadline, "the heartbeat never started"
        time.sleep(0.05)
    before = _beats(ws)
    time.sleep(0.3)
    assert len(_beats(ws)) > len(before), "positive control: the background process is running"
    assert ex.cancel() == "cancelled", "cancel() waits for the final state"
    result = ex.wait()
    assert result.status == "cancelled" and b"started" in result.stdout
    settled = _beats(ws)
    time.sleep(1.0)
    assert _beats(ws) == settled, "no heartbeat after cancel(): every process of the run ended"


def test_cancel_ends_processes_left_running(ws):
    _cancel_ends_everything(ws)


def test_context_manager_cancels(ws):
    with ws.start("sleep 600") as ex:
        assert ex.status() in {"queued", "running"}
    assert ex.status() == "cancelled"


def test_executions_lists_the_workspace_runs(ws):
    ex = ws.start("true")
    ex.wait()
    assert ex.id in [e.id for e in ws.executions()]


def test_sync_run_ends_what_it_left_behind(ws):
    # strong tier: the sandbox's PID namespace ends with the command (docs/contracts.md)
    r = ws.run("setsid nohup bash -c 'while true; do date +%s%N >> beat; sleep 0.05; done' "
               ">/dev/null 2>&1 & sleep 0.5; echo done")
    assert r.ok and r.stdout == b"done\n"
    settled = _beats(ws)
    assert settled.count(b"\n") >= 3, "positive control: the heartbeat ran"
    time.sleep(1.0)
    assert _beats(ws) == settled
