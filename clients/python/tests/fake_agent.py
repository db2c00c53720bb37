"""A tiny HTTP/1.1 server that answers what a test tells it: odd bodies, cut streams,
keep-alive. Used to show that surprising answers become RunboxErrors (never KeyError) and that
a stream cut in the middle is an error, not a silent empty result."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple

Reply = Tuple[int, Dict[str, str], bytes]


class Route:
    def __init__(self, status: int = 200, body: bytes = b"", headers: Optional[Dict[str, str]] = None,
                 chunks: Optional[List[bytes]] = None, cut: bool = False,
                 handler: Optional[Callable[["_Handler"], None]] = None) -> None:
        self.status, self.body, self.headers = status, body, headers or {}
        self.chunks, self.cut, self.handler = chunks, cut, handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        fake = self.server.fake
        fake.requests.append((self.command, self.path, dict(self.headers), body))
        fake.connections.add(self.client_address)
        route = fake.routes.get((self.command, path)) or fake.routes.get((self.command, "*"))
        if route is None:
            route = Route(404, b'{"error":{"code":"not_found","message":"no route"}}')
        if route.handler is not None:
            route.handler(self)
            return
        self.send_response(route.status)
        for k, v in route.headers.items():
            self.send_header(k, v)
        if route.chunks is None:
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(route.body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for c in route.chunks:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(c), c))
        self.wfile.flush()
        if route.cut:  # the connection dies in the middle of the body
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: "FakeAgent"


class FakeAgent:
    """``fake.routes[(METHOD, PATH)] = Route(...)``; ``fake.url``; ``fake.requests`` records
    (method, raw target, headers, body)."""

    def __init__(self) -> None:
        self.routes: Dict[Tuple[str, str], Route] = {}
        self.requests: List[Tuple[str, str, Dict[str, str], bytes]] = []
        self.connections: set = set()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self._server.server_address[1]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
