"""Results of executions, the sync event stream, and managed executions (``Execution``).

Event stream and states: docs/contracts.md "Event stream" and "Workspaces and executions";
managed logs: docs/managed.md "Log streams".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional
from urllib.parse import quote

from . import _parse
from ._http import Stream, iter_ndjson
from .errors import ConnectionLostError, ProtocolError, RunboxError

if TYPE_CHECKING:  # pragma: no cover
    from ._http import Client

OutputCallback = Callable[[bytes], None]
#: Final states of an execution (``store::ExecutionState``).
FINAL_STATES = frozenset({"completed", "failed", "timed_out", "cancelled", "output_limited",
                          "quota_exceeded", "memory_exceeded", "setup_failed", "lost"})


@dataclass(frozen=True)
class Result:
    """What a finished execution did. ``status`` is the agent's (``completed``, ``failed``,
    ``timed_out``, ``cancelled``, ``output_limited``, …); ``exit_code`` is None when the command
    has none (a signal, a set-up failure); ``signal`` names the signal (``"SIGKILL"``);
    ``stdout``/``stderr`` are the exact bytes; ``duration_ms`` in milliseconds; the file lists
    are workspace-relative paths."""

    exit_code: Optional[int]
    signal: Optional[str]
    status: str
    stdout: bytes
    stderr: bytes
    duration_ms: Optional[int]
    created_files: List[str] = field(default_factory=list)
    modified_files: List[str] = field(default_factory=list)
    deleted_files: List[str] = field(default_factory=list)
    reason: Optional[str] = None
    execution_id: Optional[str] = None

    @property
    def ok(self) -> bool:
        """True when the command completed with exit code 0."""
        return self.status == "completed" and self.exit_code == 0

    @property
    def text(self) -> str:
        """stdout decoded as UTF-8 (invalid bytes replaced)."""
        return self.stdout.decode("utf-8", "replace")


@dataclass(frozen=True)
class LogChunk:
    """Output of a managed execution: ``stream`` is ``"stdout"`` or ``"stderr"``, ``data`` the
    bytes, ``offset`` their logical offset (stdout and stderr share one numbering; resume a
    log with ``logs(offset=chunk.offset + len(chunk.data))``)."""

    stream: str
    data: bytes
    offset: int


def result_from(end: Dict[str, Any], stdout: bytes, stderr: bytes, what: str,
                execution_id: Optional[str] = None) -> Result:
    """A Result from an ``exit`` event or a final execution record (``state`` there)."""
    status = end.get("status", end.get("state"))
    if not isinstance(status, str):
        raise ProtocolError(None, f"{what}: no status in {sorted(end)}")
    signal = end.get("signal")
    return Result(
        exit_code=_parse.optional(end, "exitCode", int, what),
        signal=str(signal) if signal is not None else None,
        status=status,
        stdout=stdout,
        stderr=stderr,
        duration_ms=_parse.optional(end, "durationMs", int, what),
        created_files=_parse.str_list(end, "createdFiles", what),
        modified_files=_parse.str_list(end, "modifiedFiles", what),
        deleted_files=_parse.str_list(end, "deletedFiles", what),
        reason=_reason(end),
        execution_id=execution_id,
    )


def _reason(end: Dict[str, Any]) -> Optional[str]:
    for key in ("reason", "statusReason"):
        value = end.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def consume_exec_stream(stream: Stream, on_stdout: Optional[OutputCallback],
                        on_stderr: Optional[OutputCallback]) -> Result:
    """Reads a sync exec's NDJSON stream to its ``exit`` event. A body that ends (or breaks)
    before ``exit`` is ConnectionLostError: never a silent, empty result."""
    out: List[bytes] = []
    err: List[bytes] = []
    execution_id: Optional[str] = None
    what = "exec stream"
    try:
        for event in iter_ndjson(stream, what):
            kind = event.get("type")
            if kind in ("stdout", "stderr"):
                data = _parse.event_bytes(event, what)
                (out if kind == "stdout" else err).append(data)
                callback = on_stdout if kind == "stdout" else on_stderr
                if callback is not None and data:
                    callback(data)
            elif kind == "started":
                execution_id = event.get("executionId") if isinstance(event.get("executionId"), str) else None
            elif kind == "exit":
                result = result_from(event, b"".join(out), b"".join(err), what, execution_id)
                stream.finish()
                return result
            elif kind == "error":
                raise RunboxError(None, str(event.get("code", "stream_error")), str(event.get("message", "")))
            # queued, ping, egress and event types added later are skipped
    except BaseException:
        stream.close()
        raise
    stream.close()
    raise ConnectionLostError("the exec stream ended before its exit event "
                              f"({sum(map(len, out)) + sum(map(len, err))} output bytes received)")


class Execution:
    """A managed execution (``POST /v1/executions``): it runs whatever this client does; its
    record and log are durable on the agent. As a context manager, cancels it on exit when it
    is still running."""

    def __init__(self, client: "Client", execution_id: str, record: Optional[Dict[str, Any]] = None) -> None:
        self._client = client
        self.id = execution_id
        self._record = record or {}

    def __repr__(self) -> str:
        return f"Execution({self.id!r})"

    def record(self) -> Dict[str, Any]:
        """The execution's record (``GET /v1/executions/{id}``, docs/managed.md)."""
        resp = self._client.request("GET", f"/v1/executions/{_q(self.id)}")
        self._record = resp.json_object()  # type: ignore[union-attr]
        return self._record

    def status(self) -> str:
        """The state now: ``queued``, ``running`` or a final state (FINAL_STATES)."""
        return str(_parse.field(self.record(), "state", str, "execution record"))

    def logs(self, offset: int = 0, follow: bool = True) -> Iterator[LogChunk]:
        """The output from logical ``offset`` on, in order. With ``follow`` the iterator ends
        when the execution has ended and every byte was yielded; without, at the log's current
        end. A broken connection raises ConnectionLostError whose ``offset`` resumes exactly."""
        stream = self._client.request("GET", f"/v1/executions/{_q(self.id)}/log",
                                      query={"offset": offset, "follow": follow}, stream=True)
        assert isinstance(stream, Stream)
        what = "log stream"
        next_offset = offset
        try:
            for event in iter_ndjson(stream, what):
                kind = event.get("type")
                if kind in ("stdout", "stderr"):
                    data = _parse.event_bytes(event, what)
                    at = event.get("offset")
                    at = at if isinstance(at, int) and not isinstance(at, bool) else next_offset
                    next_offset = at + len(data)
                    yield LogChunk(kind, data, at)
                elif kind == "gap":
                    at, n = event.get("offset"), event.get("bytes")
                    if isinstance(at, int) and isinstance(n, int):
                        next_offset = at + n
                elif kind == "exit":
                    stream.finish()
                    return
                elif kind == "error":
                    raise RunboxError(None, str(event.get("code", "stream_error")), str(event.get("message", "")))
        except ConnectionLostError as e:
            raise ConnectionLostError(e.message, next_offset) from None
        finally:
            stream.close()
        if follow:
            raise ConnectionLostError("the log stream ended before the execution's exit event", next_offset)

    def wait(self, timeout_s: Optional[float] = None, retries: int = 3) -> Result:
        """Follows the log to the end and returns the Result (from the final record). Resumes
        the log from the next unseen byte up to ``retries`` times when the connection drops.
        With ``timeout_s``, polls instead and raises TimeoutError when it is not over by then."""
        if timeout_s is not None:
            deadline = time.monotonic() + timeout_s
            while self.status() not in FINAL_STATES:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"execution {self.id} still {self._record.get('state')} after {timeout_s} s")
                time.sleep(0.1)
        out: List[bytes] = []
        err: List[bytes] = []
        offset = 0
        while True:
            try:
                for chunk in self.logs(offset=offset, follow=True):
                    (out if chunk.stream == "stdout" else err).append(chunk.data)
                    offset = chunk.offset + len(chunk.data)
                break
            except ConnectionLostError as e:
                if retries <= 0:
                    raise
                retries -= 1
                offset = e.offset if e.offset is not None else offset
                time.sleep(0.2)
        record = self.record()
        state = record.get("state")
        for _ in range(100):  # the record turns final right after the log's exit event
            if state in FINAL_STATES:
                break
            time.sleep(0.05)
            record = self.record()
            state = record.get("state")
        return result_from(record, b"".join(out), b"".join(err), "execution record", self.id)

    def cancel(self, wait: bool = True, timeout_s: float = 30.0) -> str:
        """Cancels it (``POST /v1/executions/{id}/cancel``: the whole sandbox ends, every
        process of it, docs/managed.md). With ``wait`` (as ``runbox cancel``), returns once the
        record is final (``cancelled``, or the state it reached first), polling up to
        ``timeout_s``; without, returns the state the agent answered at once."""
        resp = self._client.request("POST", f"/v1/executions/{_q(self.id)}/cancel", json_body={})
        self._record = resp.json_object()  # type: ignore[union-attr]
        state = str(self._record.get("state", ""))
        deadline = time.monotonic() + timeout_s
        while wait and state not in FINAL_STATES and time.monotonic() < deadline:
            time.sleep(0.05)
            state = self.status()
        return state

    def __enter__(self) -> "Execution":
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self.status() not in FINAL_STATES:
                self.cancel()
        except RunboxError:
            pass


def _q(segment: str) -> str:
    return quote(segment, safe="")
