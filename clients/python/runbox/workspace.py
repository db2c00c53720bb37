"""``Workspace``: runs, managed executions, files and the port proxy of one workspace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _parse, _signing
from ._http import Client, Stream, quote_path
from .errors import CommandError, ProtocolError, RunboxError
from .execution import Execution, OutputCallback, Result, consume_exec_stream
from .files import Files

Command = Union[str, Sequence[str], None]
#: The flags of the shell kind (docs/contracts.md "Workspaces and executions"), used when a
#: string command comes with stdin (the kind's own stdin is its code).
_BASH = ["/usr/bin/bash", "--noprofile", "--norc", "-euo", "pipefail", "-c"]



@dataclass(frozen=True)
class ProxyToken:
    """What :meth:`Workspace.proxy_token` gives: the ``token``, the ``url`` that opens the port
    in a browser (usable once), and when it expires (``expires_at``, ISO 8601 UTC)."""
    token: str
    url: str
    expires_at: str

@dataclass(frozen=True)
class Usage:
    """What :meth:`Workspace.usage` gives (``GET /v1/workspaces/{id}/usage``; docs/contracts.md
    "Workspaces and executions"): the bytes the tree occupies as the workspace quota counts them
    (``allocated_bytes``), the sum of file sizes (``apparent_bytes``), the ``entries`` walked,
    whether the walk saw them all (``complete``) and the quota (``max_workspace_bytes``, 0 =
    none)."""
    allocated_bytes: int
    apparent_bytes: int
    entries: int
    complete: bool
    max_workspace_bytes: int

class Workspace:
    """One workspace of an agent, used with the workspace's scoped token (or the agent's).
    ``env`` is a default environment merged under every run's own ``env``. As a context
    manager it deletes the workspace on exit when this client created it."""

    def __init__(self, client: Client, workspace_id: str, *, info: Optional[Dict[str, Any]] = None,
                 env: Optional[Mapping[str, str]] = None, owned: bool = False,
                 local_id: Optional[str] = None) -> None:
        self._client = client
        self.id = workspace_id
        #: The id the agent itself knows (what the routes carry): ``id`` but for a pooled
        #: workspace, whose ``id`` is ``<host>.<local id>`` (runbox.pool).
        self.local_id = local_id or workspace_id
        self.info: Dict[str, Any] = dict(info or {})
        self.env: Dict[str, str] = dict(env or {})
        self.owned = owned
        self.files = Files(client, self.local_id)

    def __repr__(self) -> str:
        return f"Workspace({self.id!r}, isolation={self.isolation!r})"

    @property
    def token(self) -> str:
        """The token this handle signs with (the scoped token for a created workspace)."""
        return self._client.token

    @property
    def isolation(self) -> Optional[str]:
        value = self.info.get("isolation")
        return value if isinstance(value, str) else None

    def _body(self, cmd: Command, code: Optional[str], kind: Optional[str], stdin: Union[str, bytes, None],
              env: Optional[Mapping[str, str]], cwd: Optional[str], timeout_ms: Optional[int],
              max_output_bytes: Optional[int], execution_id: Optional[str],
              environment: Optional[str], extra: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
        if (cmd is None) == (code is None):
            raise ValueError("give a command (str or argv list) or code=, not both")
        stdin_text = stdin.decode("utf-8") if isinstance(stdin, (bytes, bytearray)) else stdin
        body: Dict[str, Any] = {}
        if code is not None:
            if stdin_text is not None:
                raise ValueError("stdin cannot go with code= (the code is the interpreter's stdin)")
            body.update(kind=kind or "python", code=code)
        elif isinstance(cmd, str):
            if kind not in (None, "shell"):
                raise ValueError("a string command runs in the shell kind; use code= for other kinds")
            if stdin_text is None:
                body.update(kind="shell", code=cmd)
            else:
                body.update(argv=_BASH + [cmd], stdin=stdin_text)
        else:
            argv = list(cmd or [])
            if not argv or not all(isinstance(a, str) for a in argv):
                raise ValueError("argv must be a non-empty list of strings")
            body["argv"] = argv
            if stdin_text is not None:
                body["stdin"] = stdin_text
        merged = dict(self.env)
        merged.update(env or {})
        if merged:
            body["env"] = merged
        if cwd:
            body["cwd"] = cwd
        if timeout_ms is not None:
            body["executionTimeoutMs"] = timeout_ms
        if max_output_bytes is not None:
            body["maxOutputBytes"] = max_output_bytes
        if execution_id is not None:
            body["executionId"] = execution_id
        if environment is not None:
            body["environmentId"] = environment
        body.update(extra or {})
        return body

    def run(self, cmd: Command = None, *, code: Optional[str] = None, kind: Optional[str] = None,
            stdin: Union[str, bytes, None] = None, env: Optional[Mapping[str, str]] = None,
            cwd: Optional[str] = None, timeout_ms: Optional[int] = None,
            max_output_bytes: Optional[int] = None, execution_id: Optional[str] = None,
            environment: Optional[str] = None, on_stdout: Optional[OutputCallback] = None,
            on_stderr: Optional[OutputCallback] = None, check: bool = False,
            extra: Optional[Mapping[str, Any]] = None) -> Result:
        """Runs one command and waits for it (sync exec, docs/contracts.md "Exec request").
        ``cmd`` a string runs in bash (the ``shell`` kind); a list runs as argv; or ``code=``
        with ``kind`` ``python`` (default), ``r`` or ``shell``. ``stdin`` text (bytes must be
        UTF-8), ``env`` added to the clean sandbox environment, ``cwd`` workspace-relative,
        ``timeout_ms`` the wall-time limit. ``on_stdout``/``on_stderr`` get each output piece
        (bytes) as it arrives; raising from one cancels the run. ``check=True`` raises
        CommandError unless it completed with 0. A connection lost before the exit event is
        ConnectionLostError (the agent then cancels the run)."""
        body = self._body(cmd, code, kind, stdin, env, cwd, timeout_ms, max_output_bytes, execution_id,
                          environment, extra)
        stream = self._client.request("POST", f"/v1/workspaces/{quote_path(self.local_id)}/exec", json_body=body,
                                      stream=True)
        assert isinstance(stream, Stream)
        result = consume_exec_stream(stream, on_stdout, on_stderr)
        if check and not result.ok:
            raise CommandError(_describe(cmd, code, kind), result)
        return result

    def start(self, cmd: Command = None, *, code: Optional[str] = None, kind: Optional[str] = None,
              stdin: Union[str, bytes, None] = None, env: Optional[Mapping[str, str]] = None,
              cwd: Optional[str] = None, timeout_ms: Optional[int] = None,
              max_output_bytes: Optional[int] = None, execution_id: Optional[str] = None,
              environment: Optional[str] = None, extra: Optional[Mapping[str, Any]] = None) -> Execution:
        """Starts a managed execution (same arguments as :meth:`run`): it runs until it ends or
        is cancelled, whatever this client does; returns its :class:`Execution`."""
        body = self._body(cmd, code, kind, stdin, env, cwd, timeout_ms, max_output_bytes, execution_id,
                          environment, extra)
        body["workspace"] = self.local_id
        record = self._client.request("POST", "/v1/executions", json_body=body).json_object()  # type: ignore[union-attr]
        return Execution(self._client, _parse.field(record, "executionId", str, "execution record"), record)

    def executions(self) -> List[Execution]:
        """The managed executions of this workspace (first page of ``GET /v1/executions``)."""
        doc = self._client.request("GET", "/v1/executions", query={"workspace": self.local_id}).json_object()  # type: ignore[union-attr]
        items = doc.get("executions")
        if not isinstance(items, list):
            raise ProtocolError(200, "execution list: no executions array")
        return [Execution(self._client, _parse.field(r, "executionId", str, "execution record"), r)
                for r in items if isinstance(r, dict)]

    def proxy_url(self, port: int, path: str = "/") -> str:
        """The URL of ``path`` on the workspace's port ``port`` through the agent's port proxy
        (``/v1/workspaces/{id}/proxy/{port}/…``; light workspaces: docs/light-workspaces.md)."""
        return self._client.session.url + self._proxy_path(port, path)

    def _proxy_path(self, port: int, path: str) -> str:
        if not isinstance(port, int) or not 0 < port < 65536:
            raise ValueError("port must be 1..65535")
        return f"/v1/workspaces/{quote_path(self.local_id)}/proxy/{port}/{path.lstrip('/')}"

    def proxy_headers(self, port: int, path: str = "/", method: str = "GET", body: bytes = b"") -> Dict[str, str]:
        """Headers that authenticate one request to :meth:`proxy_url` (``method``, ``path``
        with its query, ``body``): every proxied request is signed like any other
        (docs/contracts.md "Request signing"), so these are valid for that one request, once
        (the nonce), within the agent's ±30 s window. Call again for each request."""
        target = self._client.session.prefix + self._proxy_path(port, path)
        return self._client.signed_headers(method.upper(), target, _signing.sha256_hex(body))

    def proxy_token(self, port: int, ttl_s: Optional[int] = None) -> "ProxyToken":
        """A short-lived token that opens the workspace's port ``port`` in a browser, which
        cannot sign requests (``POST /v1/workspaces/{id}/proxy-tokens``; docs/contracts.md
        "Port proxy for browsers"): ``url`` opens it once on the port's own origin
        (``http://PORT-ID.localhost:…``), then a cookie carries it; a script may instead send
        ``token`` in the ``X-Runbox-Proxy-Token`` header to that origin. ``ttl_s``: 1..86400
        seconds (the agent's default, 900, when None)."""
        if not isinstance(port, int) or not 0 < port < 65536:
            raise ValueError("port must be 1..65535")
        body: Dict[str, Any] = {"port": port}
        if ttl_s is not None:
            body["ttlS"] = ttl_s
        doc = self._client.request("POST", f"/v1/workspaces/{quote_path(self.local_id)}/proxy-tokens",
                                   json_body=body).json_object()  # type: ignore[union-attr]
        return ProxyToken(_parse.field(doc, "token", str, "proxy token"),
                          _parse.field(doc, "url", str, "proxy token"),
                          _parse.field(doc, "expiresAt", str, "proxy token"))

    def usage(self) -> Usage:
        """The workspace's disk usage now, walked by the agent (see :class:`Usage`)."""
        doc = self._client.request("GET", f"/v1/workspaces/{quote_path(self.local_id)}/usage").json_object()  # type: ignore[union-attr]
        return Usage(_parse.field(doc, "allocatedBytes", int, "workspace usage"),
                     _parse.field(doc, "apparentBytes", int, "workspace usage"),
                     _parse.field(doc, "entries", int, "workspace usage"),
                     _parse.field(doc, "complete", bool, "workspace usage"),
                     _parse.field(doc, "maxWorkspaceBytes", int, "workspace usage"))

    def delete(self) -> None:
        """Deletes the workspace and everything in it (its processes included)."""
        self._client.request("DELETE", f"/v1/workspaces/{quote_path(self.local_id)}")
        self.owned = False

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.owned:
            try:
                self.delete()
            except RunboxError:
                if exc[0] is None:
                    raise


def _describe(cmd: Command, code: Optional[str], kind: Optional[str]) -> str:
    if code is not None:
        text = f"{kind or 'python'} code {code[:60]!r}"
    elif isinstance(cmd, str):
        text = repr(cmd[:80])
    else:
        text = repr(list(cmd or [])[:6])
    return text
