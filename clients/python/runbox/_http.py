"""Signed HTTP/1.1 to the agent over kept-alive ``http.client`` connections.

``Session`` owns the connections to one agent (a small pool, thread-safe: a stream being read
holds its connection, other calls take another) and the clock offset learnt from the agent's
``Date`` header, as ``shared/ApiClient`` does (docs/contracts.md "Request signing": timestamps
must be within ±30 s of the agent's clock). ``Client`` signs each request with one token over a
session; a workspace's client and the agent's share the agent's session.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import ssl
import threading
import time
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote, urlencode, urlsplit

from . import _signing, _tls
from .errors import ConnectionLostError, ProtocolError, RunboxError, error_from_response

_Conn = Union[http.client.HTTPConnection, http.client.HTTPSConnection]
#: Errors of a reused keep-alive connection the agent closed while it was idle: the request
#: never reached it, so it is sent again once on a fresh connection.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)
_TRANSPORT = (OSError, http.client.HTTPException)
_MAX_IDLE = 8


def quote_path(path: str) -> str:
    """Percent-encodes each ``/``-separated segment once (docs/contracts.md "Workspace file API":
    the agent decodes each segment exactly once)."""
    return "/".join(quote(seg, safe="") for seg in path.split("/"))


def transport_error(err: BaseException, what: str, offset: Optional[int] = None) -> ConnectionLostError:
    return ConnectionLostError(f"{what}: {type(err).__name__}: {err}", offset)


class Session:
    """Connections and clock offset for one agent base URL (``http://host:port[/prefix]`` or
    ``https://…``). ``pin``: the SHA-256 of the https:// agent's certificate (32 bytes), checked
    on every new connection before the request is sent (``_tls``)."""

    def __init__(self, url: str, timeout_s: float = 60.0, ssl_context: Optional[ssl.SSLContext] = None,
                 pin: Optional[bytes] = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"agent URL {url!r} is not an http:// or https:// URL")
        if pin is not None and (parts.scheme != "https" or len(pin) != 32):
            raise ValueError(f"a fingerprint pins a TLS certificate: the agent URL must be https://, not {url}")
        if pin is not None and ssl_context is not None:
            raise ValueError("give fingerprint or ssl_context, not both: with a pin the pin decides")
        self.url = url.rstrip("/")
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = parts.path.rstrip("/")
        self.timeout_s = timeout_s
        self._ssl = ssl_context
        self.pin = pin
        self._idle: List[_Conn] = []
        self._lock = threading.Lock()
        self.clock_offset_ms = 0

    def new_connection(self) -> _Conn:
        if self.scheme == "https":
            return _tls.PinnedHTTPSConnection(self.host, self.port, timeout=self.timeout_s, pin=self.pin,
                                              context=self._ssl)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)

    def acquire(self, fresh: bool = False) -> Tuple[_Conn, bool]:
        """An idle connection (reused: True) or a new one."""
        if not fresh:
            with self._lock:
                if self._idle:
                    return self._idle.pop(), True
        return self.new_connection(), False

    def release(self, conn: _Conn, response: Optional[http.client.HTTPResponse] = None) -> None:
        """Keeps ``conn`` for the next request when its last answer was read to the end and
        did not ask to close; else closes it."""
        reusable = response is None or (response.isclosed() and not response.will_close)
        with self._lock:
            if reusable and len(self._idle) < _MAX_IDLE and conn.sock is not None:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def now_ms(self) -> int:
        return int(time.time() * 1000) + self.clock_offset_ms

    def note_date(self, date: Optional[str], sent_ms: int) -> None:
        """Learns the agent's clock from ``Date`` (1 s resolution: offsets under 1.5 s are
        noise and ignored, as in ``ApiClient::noteServerDate``)."""
        if not date:
            return
        try:
            server_ms = int(email.utils.parsedate_to_datetime(date).timestamp() * 1000)
        except (TypeError, ValueError, IndexError, OverflowError):
            return
        midpoint = (sent_ms + int(time.time() * 1000)) // 2
        offset = server_ms + 500 - midpoint
        self.clock_offset_ms = offset if abs(offset) > 1500 else 0


class Response:
    """A complete answer: status, headers and body bytes."""

    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ProtocolError(self.status, f"the answer is not JSON ({e}): {self.body[:120]!r}") from None

    def json_object(self) -> Dict[str, Any]:
        doc = self.json()
        if not isinstance(doc, dict):
            raise ProtocolError(self.status, f"expected a JSON object, got {type(doc).__name__}")
        return doc


class Stream:
    """An answer whose body is read as it comes (NDJSON event streams, downloads). Closing it
    before the end drops the connection (for a sync exec, the agent then cancels the run)."""

    def __init__(self, session: Session, conn: _Conn, response: http.client.HTTPResponse) -> None:
        self._session = session
        self._conn: Optional[_Conn] = conn
        self.response = response
        self.status = response.status
        self.headers = response.headers

    def readline(self, limit: int = 32 * 1024 * 1024) -> bytes:
        """One line (with its newline), b"" at the end of the body; ConnectionLostError when
        the connection breaks before the body's end."""
        return self._guarded(lambda: self.response.readline(limit), "stream")

    def _check_complete(self) -> None:
        # http.client's read(n)/readline() return b"" when a Content-Length body is cut short
        # (only the chunked reader raises IncompleteRead): a short body is a lost connection.
        left = self.response.length
        if left:
            self.close()
            raise ConnectionLostError(f"the connection closed {left} bytes before the body's end")

    def read(self, size: int) -> bytes:
        return self._guarded(lambda: self.response.read(size), "body")

    def _guarded(self, reader: Callable[[], bytes], what: str) -> bytes:
        """reader()'s bytes; a transport failure, or b"" before the body's end, closes the
        connection and raises ConnectionLostError."""
        try:
            data = reader()
        except _TRANSPORT as e:
            self.close()
            raise transport_error(e, f"the connection broke in the middle of the {what}") from None
        if not data:
            self._check_complete()
        return data

    def finish(self) -> None:
        """Reads what is left (the last chunk) so the connection can be reused, and gives it back."""
        if self._conn is None:
            return
        try:
            while self.response.read(65536):
                pass
        except _TRANSPORT:
            self.close()
            return
        conn, self._conn = self._conn, None
        self._session.release(conn, self.response)

    def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


BodyFactory = Callable[[Dict[str, str]], Iterable[bytes]]


class Client:
    """Signs requests with one token over a :class:`Session`."""

    def __init__(self, session: Session, token: str) -> None:
        if not token:
            raise ValueError("empty token")
        self.session = session
        self.token = token

    def target(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        """The raw path and query as sent (and signed): session prefix + ``path`` (already
        quoted) + ``?query`` (values percent-encoded, booleans as true/false)."""
        t = self.session.prefix + path
        if query:
            items = [(k, ("true" if v else "false") if isinstance(v, bool) else str(v))
                     for k, v in query.items() if v is not None]
            if items:
                t += "?" + urlencode(items, quote_via=quote)
        return t

    def signed_headers(self, method: str, target: str, body_sha256: str) -> Dict[str, str]:
        return _signing.auth_headers(self.token, method, target, body_sha256, self.session.now_ms())

    def request(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None,
                json_body: Any = None, body: Optional[bytes] = None,
                headers: Optional[Mapping[str, str]] = None, stream: bool = False) -> Union[Response, Stream]:
        """One signed request. Raises the RunboxError of a 4xx/5xx answer, ConnectionLostError
        when no answer came. A reused idle connection that turns out closed, and a first
        ``signature_expired`` (the clock offset is then learnt from that answer), are retried
        once with a fresh signature."""
        target = self.target(path, query)
        if json_body is not None:
            body = json.dumps(json_body, separators=(",", ":")).encode("utf-8")
        payload = body or b""
        all_headers = {"Content-Type": "application/json"} if json_body is not None else {}
        all_headers.update(headers or {})
        body_sha = _signing.sha256_hex(payload)
        for attempt in range(3):
            conn, reused = self.session.acquire()
            sent_ms = int(time.time() * 1000)
            h = dict(all_headers)
            h.update(self.signed_headers(method, target, body_sha))
            try:
                conn.request(method, target, body=payload if (payload or method in ("POST", "PUT")) else None, headers=h)
                resp = conn.getresponse()
            except _STALE as e:
                conn.close()
                if reused and attempt < 2:
                    continue
                raise transport_error(e, f"{method} {target}: no answer") from None
            except _TRANSPORT as e:
                conn.close()
                raise transport_error(e, f"{method} {target}: no answer") from None
            self.session.note_date(resp.getheader("Date"), sent_ms)
            if resp.status >= 400:
                err = self._error(conn, resp, method)
                if err.code == "signature_expired" and attempt < 2:
                    continue
                raise err
            if stream:
                return Stream(self.session, conn, resp)
            try:
                data = resp.read() if method != "HEAD" else b""
            except _TRANSPORT as e:
                conn.close()
                raise transport_error(e, f"{method} {target}: the answer broke off") from None
            self.session.release(conn, resp)
            return Response(resp.status, resp.headers, data)
        raise AssertionError("unreachable")  # pragma: no cover

    def _error(self, conn: _Conn, resp: http.client.HTTPResponse, method: str) -> RunboxError:
        try:
            data = resp.read(1 << 20) if method != "HEAD" else b""
            resp.read()
        except _TRANSPORT:
            data = b""
            conn.close()
        else:
            self.session.release(conn, resp)
        return error_from_response(resp.status, data, resp.getheader("Retry-After"))

    def send_body(self, method: str, path: str, *, query: Optional[Mapping[str, Any]],
                  body_sha256: str, headers: Mapping[str, str], content_length: int,
                  body: BodyFactory) -> Response:
        """A request whose body is produced while it is sent (uploads): ``body(auth_headers)``
        yields its bytes, so a chunk-signed body can chain from the request's signature. Sent on
        a fresh connection (a body cannot be sent twice); an answer the agent gives before the
        body is in (413, 400 ``chunk_signature_mismatch``) is read and raised."""
        target = self.target(path, query)
        conn, _ = self.session.acquire(fresh=True)
        sent_ms = int(time.time() * 1000)
        auth = self.signed_headers(method, target, body_sha256)
        send_error: Optional[BaseException] = None
        try:
            conn.putrequest(method, target, skip_accept_encoding=True)
            for k, v in list(headers.items()) + list(auth.items()):
                conn.putheader(k, v)
            conn.putheader("Content-Length", str(content_length))
            conn.endheaders()
            for piece in body(auth):
                conn.send(piece)
        except (BrokenPipeError, ConnectionResetError) as e:
            send_error = e  # the agent may have answered early and closed: read that answer
        except _TRANSPORT as e:
            conn.close()
            raise transport_error(e, f"{method} {target}: the upload broke off") from None
        except BaseException:
            conn.close()
            raise
        try:
            resp = conn.getresponse()
        except _TRANSPORT as e:
            conn.close()
            raise transport_error(send_error or e, f"{method} {target}: no answer") from None
        self.session.note_date(resp.getheader("Date"), sent_ms)
        if resp.status >= 400:
            raise self._error(conn, resp, method)
        if send_error is not None:
            conn.close()
            raise transport_error(send_error, f"{method} {target}: the upload broke off")
        try:
            data = resp.read()
        except _TRANSPORT as e:
            conn.close()
            raise transport_error(e, f"{method} {target}: the answer broke off") from None
        self.session.release(conn, resp)
        return Response(resp.status, resp.headers, data)


def iter_ndjson(stream: Stream, what: str) -> Iterator[Dict[str, Any]]:
    """The JSON objects of an NDJSON body, one per line; ProtocolError for a line that is not
    a JSON object. Ends at the body's end (the caller decides whether that was expected)."""
    while True:
        line = stream.readline()
        if not line:
            return
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            stream.close()
            raise ProtocolError(stream.status, f"{what}: a line is not JSON: {line[:120]!r}") from None
        if not isinstance(event, dict):
            stream.close()
            raise ProtocolError(stream.status, f"{what}: an event is not a JSON object: {line[:120]!r}")
        yield event

