#!/usr/bin/python3
"""A tiny PEP 503 "simple" package index over HTTPS on 127.0.0.1, and a canary.

For the science environments' package-index tests (docs/environments.md "Package index").
Usage: https_simple_index.py DIR CERT KEY LOG [TREE]
Serves the files of DIR (wheels and sdists) as /simple/<project>/ pages linking /files/<name>,
and, given TREE (a CRAN-like repository, a conda channel), its regular files under /repo/
(nothing outside it),
with the certificate CERT and key KEY, and appends every request path to LOG. A second,
plain TCP listener (the canary) appends "canary" to LOG for every connection it accepts. Prints
one JSON line {"index": PORT, "canary": PORT} once both listen, then serves until killed.
"""
import http.server
import json
import os
import re
import socket
import ssl
import sys
import threading

ROOT, CERT, KEY, LOG = sys.argv[1:5]
TREE = os.path.realpath(sys.argv[5]) if len(sys.argv) > 5 else None
LOCK = threading.Lock()


def log(line):
    with LOCK, open(LOG, "a") as f:
        f.write(line + "\n")


def project(filename):
    """The PEP 503 normalised project name of a wheel or sdist file name."""
    name = re.split(r"-[0-9]", filename, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, kind="text/html"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        log(self.path)
        files = sorted(os.listdir(ROOT))
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if parts == ["simple"]:
            links = "".join(f'<a href="/simple/{p}/">{p}</a>\n'
                            for p in sorted({project(f) for f in files}))
            return self.send(200, f"<html><body>\n{links}</body></html>".encode())
        if len(parts) == 2 and parts[0] == "simple":
            mine = [f for f in files if project(f) == parts[1]]
            if not mine:
                return self.send(404, b"no such project")
            links = "".join(f'<a href="/files/{f}">{f}</a>\n' for f in mine)
            return self.send(200, f"<html><body>\n{links}</body></html>".encode())
        if TREE and parts[:1] == ["repo"] and all(p not in (".", "..") for p in parts):
            path = os.path.join(TREE, *parts[1:])
            if os.path.realpath(path).startswith(TREE + os.sep) and os.path.isfile(path):
                with open(path, "rb") as f:
                    return self.send(200, f.read(), "application/octet-stream")
            return self.send(404, b"not found")
        if len(parts) == 2 and parts[0] == "files" and parts[1] in files:
            with open(os.path.join(ROOT, parts[1]), "rb") as f:
                return self.send(200, f.read(), "application/octet-stream")
        return self.send(404, b"not found")


def canary(listener):
    while True:
        conn, _ = listener.accept()
        log("canary")
        conn.close()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True)
plain = socket.socket()
plain.bind(("127.0.0.1", 0))
plain.listen(16)
threading.Thread(target=canary, args=(plain,), daemon=True).start()
print(json.dumps({"index": server.server_address[1], "canary": plain.getsockname()[1]}),
      flush=True)
server.serve_forever()
