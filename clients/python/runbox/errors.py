"""Errors of the Runbox client.

Every failure the client reports is a :class:`RunboxError`. API errors carry the agent's HTTP
status and its stable ``{"error": {"code", "message"}}`` (docs/contracts.md "Errors"); the
subclass says the family (one per status class the agent uses). Transport failures are
:class:`ConnectionLostError`, bodies that do not have the documented shape are
:class:`ProtocolError`: a surprising body never surfaces as a bare ``KeyError``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Type

if TYPE_CHECKING:  # pragma: no cover
    from .execution import Result

__all__ = [
    "RunboxError",
    "InvalidRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "TooLargeError",
    "UnavailableError",
    "ServerError",
    "ConnectionLostError",
    "ProtocolError",
    "CertificateRefusedError",
    "CommandError",
    "FleetFileError",
    "FleetTokenError",
    "PoolError",
    "NoPoolHostsError",
    "PoolFullError",
    "PoolCreateRefusedError",
    "PoolCancelledError",
    "PoolDeleteError",
]


class RunboxError(Exception):
    """A failed call. ``status`` is the HTTP status (None when no answer came), ``code`` the
    agent's stable snake_case code (or the client's own: ``connection_lost``,
    ``unexpected_response``, the execution status of a :class:`CommandError`), ``message`` a
    human sentence."""

    def __init__(self, status: Optional[int], code: str, message: str) -> None:
        super().__init__(f"{code}: {message}" if status is None else f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class InvalidRequestError(RunboxError):
    """400 (and 405, 416, 431, 501, 505): the request is malformed or refused as given."""


class AuthenticationError(RunboxError):
    """401: unknown token, bad or expired signature, replayed nonce."""


class PermissionDeniedError(RunboxError):
    """403: the token may not do this (e.g. a workspace token creating workspaces)."""


class NotFoundError(RunboxError):
    """404: no such workspace, execution, file or route."""


class ConflictError(RunboxError):
    """409: busy workspace, duplicate execution id, existing file, …"""


class TooLargeError(RunboxError):
    """413: upload or workspace quota exceeded, request body too large."""


class UnavailableError(RunboxError):
    """503: capacity or sandbox unavailable. ``retry_after_s`` from ``Retry-After`` when sent."""

    def __init__(self, status: Optional[int], code: str, message: str,
                 retry_after_s: Optional[float] = None) -> None:
        super().__init__(status, code, message)
        self.retry_after_s = retry_after_s


class ServerError(RunboxError):
    """500, 502, 504 and any other status the client does not expect."""


class ConnectionLostError(RunboxError):
    """The connection failed or closed before the answer was complete (status None). For a log
    stream, ``offset`` is the next unseen log offset, to resume from."""

    def __init__(self, message: str, offset: Optional[int] = None) -> None:
        super().__init__(None, "connection_lost", message)
        self.offset = offset


class CertificateRefusedError(RunboxError):
    """The https:// agent's certificate was refused (status None, code ``certificate_refused``;
    docs/contracts.md "TLS and pinning"): it does not match the pin, or, unpinned, the system CA
    store does not verify it. Nothing was sent on that connection. ``expected`` is the pinned
    fingerprint (None unpinned), ``presented`` the certificate's (``AB:CD:…``; None if unknown)."""

    def __init__(self, message: str, expected: Optional[str], presented: Optional[str]) -> None:
        super().__init__(None, "certificate_refused", message)
        self.expected = expected
        self.presented = presented


class ProtocolError(RunboxError):
    """The agent answered something that is not the documented shape (``status`` is the HTTP
    status of that answer)."""

    def __init__(self, status: Optional[int], message: str) -> None:
        super().__init__(status, "unexpected_response", message)


class CommandError(RunboxError):
    """``run(..., check=True)`` of a command that did not complete with exit code 0. ``result``
    is the full :class:`~runbox.Result`; the message ends with the tail of its stderr."""

    def __init__(self, command: str, result: "Result", tail_bytes: int = 1000) -> None:
        if result.status == "completed" or (result.status == "failed" and result.exit_code is not None
                                             and result.signal is None):
            what = f"exited with code {result.exit_code}"
        elif result.signal:
            what = f"{result.status} (killed by {result.signal})"
        else:
            what = result.status
        if result.reason:
            what += f": {result.reason}"
        tail = result.stderr[-tail_bytes:].decode("utf-8", "replace")
        message = f"{command} {what}"
        if tail:
            message += "\n--- stderr (last %d bytes) ---\n%s" % (min(tail_bytes, len(result.stderr)), tail)
        super().__init__(None, result.status, message)
        self.command = command
        self.result = result


class FleetFileError(RunboxError):
    """The fleet file cannot be used (status None, code ``invalid_fleet_file``;
    docs/contracts.md "Fleet file"): unreadable, not JSON, an unknown member, a literal
    ``token``, a bad or duplicate name, a URL that is not http(s), neither or both of
    ``tokenFile`` and ``keychain``, a fingerprint that is not one or one for an http:// URL.
    The message names the file and the entry; ``path`` is the file."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(None, "invalid_fleet_file", message)
        self.path = path


class FleetTokenError(RunboxError):
    """A fleet agent's token cannot be read (status None, code ``token_unavailable``): its
    token file is missing, empty, or readable by group or others, or it names a keychain
    entry, which only the console reads. ``agent`` is the fleet name."""

    def __init__(self, agent: str, message: str) -> None:
        super().__init__(None, "token_unavailable", message)
        self.agent = agent


class PoolError(RunboxError):
    """A pool create that did not place every workspace, so kept none (status None;
    docs/contracts.md "Fleet file" "Placement"). ``placed`` maps host → workspaces made there
    (and deleted again), ``skipped`` host → why it was skipped, ``left_behind`` the pooled ids
    the roll-back could not delete (normally empty), ``rounds`` the placement rounds run."""

    def __init__(self, code: str, message: str, *, placed: Optional[Dict[str, int]] = None,
                 skipped: Optional[Dict[str, str]] = None, left_behind: Optional[List[str]] = None,
                 rounds: int = 0) -> None:
        super().__init__(None, code, message)
        self.placed: Dict[str, int] = dict(placed or {})
        self.skipped: Dict[str, str] = dict(skipped or {})
        self.left_behind: List[str] = list(left_behind or [])
        self.rounds = rounds


class NoPoolHostsError(PoolError):
    """``no_pool_hosts``: no reachable agent of the fleet is a host of the pool."""


class PoolFullError(PoolError):
    """``pool_full``: the pool's hosts had room for fewer workspaces than asked."""


class PoolCreateRefusedError(PoolError):
    """``create_refused``: a host refused the create request itself (4xx): every host would."""


class PoolCancelledError(PoolError):
    """``cancelled``: the caller's ``cancelled()`` said stop after a round."""


class PoolDeleteError(RunboxError):
    """``Pool.delete_all`` could not reach every host or delete every workspace (status None,
    code ``pool_delete_incomplete``). ``deleted`` maps host → workspaces it did delete,
    ``errors`` has one line per failure."""

    def __init__(self, message: str, deleted: Dict[str, int], errors: List[str]) -> None:
        super().__init__(None, "pool_delete_incomplete", message)
        self.deleted = dict(deleted)
        self.errors = list(errors)


_BY_STATUS: Dict[int, Type[RunboxError]] = {
    400: InvalidRequestError, 405: InvalidRequestError, 416: InvalidRequestError,
    431: InvalidRequestError, 501: InvalidRequestError, 505: InvalidRequestError,
    401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
    409: ConflictError, 413: TooLargeError, 503: UnavailableError,
}


def error_from_response(status: int, body: bytes, retry_after: Optional[str] = None) -> RunboxError:
    """The error for an HTTP answer of ``status`` with ``body``: the agent's code and message
    when the body is the documented error object, else ``http_<status>`` and the body's start."""
    code, message = f"http_{status}", ""
    try:
        doc: Any = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError):
        doc = None
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, dict) and isinstance(err.get("code"), str):
        code = str(err["code"])
        text = err.get("message")
        message = text if isinstance(text, str) else ""
    else:
        message = body[:200].decode("utf-8", "replace") or "(empty body)"
    cls = _BY_STATUS.get(status, ServerError)
    if cls is UnavailableError:
        seconds: Optional[float] = None
        try:
            seconds = float(retry_after) if retry_after else None
        except ValueError:
            seconds = None
        return UnavailableError(status, code, message, seconds)
    return cls(status, code, message)
