"""The client against a fake agent that answers oddly: every surprise is a RunboxError (never
a KeyError or TypeError), a cut stream is an error, keep-alive and clock offset work."""

from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import json
import time

import pytest

import runbox
from runbox import (Agent, ConflictError, ConnectionLostError, NotFoundError, ProtocolError,
                    RunboxError, ServerError, TooLargeError, UnavailableError)
from fake_agent import FakeAgent, Route

TOKEN = "a" * 64
WS = {"id": "ws1", "token": "ws1.x.y.z", "isolation": "strong"}


@pytest.fixture(scope="module")
def _server():
    f = FakeAgent()
    yield f
    f.close()


@pytest.fixture()
def fake(_server):
    _server.routes.clear()
    _server.requests.clear()
    _server.connections.clear()
    return _server


def ndjson(*events):
    return [json.dumps(e).encode() + b"\n" for e in events]


def agent_for(fake):
    return Agent(url=fake.url, token=TOKEN)


def workspace_for(fake):
    fake.routes[("POST", "/v1/workspaces")] = Route(201, json.dumps({"workspaces": [WS], "rejected": 0}).encode())
    return agent_for(fake).workspace()


@pytest.mark.parametrize("body", [b"not json", b"[]", b'{"workspaces": {}}', b'{"workspaces": [{"id": 1}]}',
                                  b'{"workspaces": [7]}', b'{"workspaces": [{"id": "w"}]}'])
def test_odd_create_bodies_are_protocol_errors(fake, body):
    fake.routes[("POST", "/v1/workspaces")] = Route(201, body)
    with pytest.raises(ProtocolError) as e:
        agent_for(fake).workspace()
    assert e.value.status == 201 and e.value.code == "unexpected_response"


def test_fewer_workspaces_than_asked_is_unavailable(fake):
    fake.routes[("POST", "/v1/workspaces")] = Route(201, b'{"workspaces": [], "rejected": 1}')
    with pytest.raises(UnavailableError) as e:
        agent_for(fake).workspace()
    assert e.value.code == "workspaces_rejected"


@pytest.mark.parametrize("status,body,cls,code", [
    (409, b"<html>busy</html>", ConflictError, "http_409"),
    (404, b'{"error":{"code":"workspace_not_found","message":"no workspace ws1"}}', NotFoundError,
     "workspace_not_found"),
    (413, b'{"error": "too big"}', TooLargeError, "http_413"),
    (500, b"", ServerError, "http_500"),
    (502, b'{"error":{"code":5}}', ServerError, "http_502"),
    (418, b"teapot", ServerError, "http_418"),
])
def test_error_bodies_of_any_shape(fake, status, body, cls, code):
    fake.routes[("GET", "/v1/health")] = Route(status, body)
    with pytest.raises(cls) as e:
        agent_for(fake).health()
    assert isinstance(e.value, RunboxError) and e.value.status == status and e.value.code == code


def test_unavailable_carries_retry_after(fake):
    fake.routes[("GET", "/v1/health")] = Route(
        503, b'{"error":{"code":"server_busy","message":"later"}}', {"Retry-After": "1"})
    with pytest.raises(UnavailableError) as e:
        agent_for(fake).health()
    assert e.value.retry_after_s == 1.0 and e.value.message == "later"


def test_exec_stream_decodes_data_base64(fake):
    ws = workspace_for(fake)
    fake.routes[("POST", "/v1/workspaces/ws1/exec")] = Route(chunks=ndjson(
        {"type": "started", "executionId": "e1"},
        {"type": "stdout", "offset": 0, "dataBase64": base64.b64encode(b"\x00\xff\x01").decode()},
        {"type": "ping"}, {"type": "some_future_event"},
        {"type": "stderr", "offset": 3, "data": "é"},
        {"type": "exit", "status": "completed", "exitCode": 0, "signal": None, "durationMs": 5,
         "createdFiles": ["a"], "modifiedFiles": [], "deletedFiles": []}))
    seen = []
    r = ws.run("x", on_stdout=seen.append)
    assert r.stdout == b"\x00\xff\x01" and r.stderr == "é".encode() and r.ok
    assert seen == [b"\x00\xff\x01"] and r.created_files == ["a"] and r.execution_id == "e1"


@pytest.mark.parametrize("events,cls", [
    ([{"type": "started"}, {"type": "stdout", "offset": 0, "data": "partial"}], ConnectionLostError),
    ([], ConnectionLostError),
    ([{"type": "stdout", "offset": 0, "dataBase64": "!!!"}], ProtocolError),
    ([{"type": "stdout", "offset": 0}], ProtocolError),
    ([{"type": "exit", "exitCode": 0}], ProtocolError),
    ([{"type": "exit", "status": "completed", "exitCode": "zero"}], ProtocolError),
    ([{"type": "exit", "status": "completed", "createdFiles": "a"}], ProtocolError),
    (["a string event"], ProtocolError),
])
def test_streams_that_end_wrong(fake, events, cls):
    ws = workspace_for(fake)
    fake.routes[("POST", "/v1/workspaces/ws1/exec")] = Route(chunks=ndjson(*events))
    with pytest.raises(cls):
        ws.run("x")


def test_a_line_that_is_not_json(fake):
    ws = workspace_for(fake)
    fake.routes[("POST", "/v1/workspaces/ws1/exec")] = Route(chunks=[b'{"type":"started"}\n', b"{oops\n"])
    with pytest.raises(ProtocolError):
        ws.run("x")


def test_stream_cut_mid_body_is_connection_lost(fake):
    ws = workspace_for(fake)
    fake.routes[("POST", "/v1/workspaces/ws1/exec")] = Route(
        chunks=ndjson({"type": "started"}, {"type": "stdout", "offset": 0, "data": "half"}), cut=True)
    got = []
    with pytest.raises(ConnectionLostError):
        ws.run("x", on_stdout=got.append)
    assert got == [b"half"]


def test_log_stream_cut_reports_resume_offset(fake):
    ws = workspace_for(fake)
    fake.routes[("GET", "/v1/executions/e1/log")] = Route(
        chunks=ndjson({"type": "stdout", "offset": 0, "data": "abc"}), cut=True)
    ex = runbox.Execution(ws._client, "e1")
    chunks = []
    with pytest.raises(ConnectionLostError) as e:
        for c in ex.logs():
            chunks.append(c)
    assert chunks == [runbox.LogChunk("stdout", b"abc", 0)] and e.value.offset == 3


@pytest.mark.parametrize("body", [b"{}", b'{"entries": 3}', b'{"entries": [{"type": "file"}]}', b"[1]"])
def test_odd_listings(fake, body):
    ws = workspace_for(fake)
    fake.routes[("GET", "/v1/workspaces/ws1/files/")] = Route(200, body, {"X-Runbox-Entry-Type": "directory"})
    with pytest.raises(ProtocolError):
        ws.files.list()


def test_odd_execution_record(fake):
    ws = workspace_for(fake)
    fake.routes[("POST", "/v1/executions")] = Route(202, b'{"state": "queued"}')
    with pytest.raises(ProtocolError):
        ws.start("x")


def test_requests_are_signed_and_connections_kept_alive(fake):
    fake.routes[("GET", "/v1/health")] = Route(200, b"{}")
    agent = agent_for(fake)
    for _ in range(3):
        assert agent.health() == {}
    assert len(fake.connections) == 1, "three calls on one kept-alive connection"
    for method, target, headers, body in fake.requests:
        msg = "\n".join([method, target, headers["X-Runbox-Timestamp"], headers["X-Runbox-Nonce"],
                         hashlib.sha256(body).hexdigest()])
        assert headers["X-Runbox-Signature"] == hmac.new(TOKEN.encode(), msg.encode(), hashlib.sha256).hexdigest()
        assert headers["Authorization"] == "Bearer " + TOKEN
    nonces = {h["X-Runbox-Nonce"] for _, _, h, _ in fake.requests}
    assert len(nonces) == 3 and all(len(n) == 32 and n == n.lower() for n in nonces)


def test_a_connection_the_agent_closed_while_idle_is_replaced(fake):
    def close_after(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", "2")
        handler.end_headers()
        handler.wfile.write(b"{}")
        handler.close_connection = True  # closes without saying Connection: close

    fake.routes[("GET", "/v1/health")] = Route(handler=close_after)
    agent = agent_for(fake)
    assert agent.health() == {}
    time.sleep(0.2)
    assert agent.health() == {}
    assert len(fake.requests) == 2


def test_clock_offset_from_date(fake):
    skew_s = 3600

    def skewed(handler):
        server_ms = (time.time() + skew_s) * 1000
        ts = int(handler.headers["X-Runbox-Timestamp"])
        ok = abs(ts - server_ms) < 30000
        body = b"{}" if ok else b'{"error":{"code":"signature_expired","message":"skew"}}'
        handler.send_response_only(200 if ok else 401)
        handler.send_header("Date", email.utils.formatdate(time.time() + skew_s, usegmt=True))
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    fake.routes[("GET", "/v1/health")] = Route(handler=skewed)
    agent = agent_for(fake)
    assert agent.health() == {}, "the first signature_expired teaches the offset; the retry passes"
    assert abs(agent._session.clock_offset_ms - skew_s * 1000) < 3000
    assert agent.health() == {} and len(fake.requests) == 3


def test_download_resumes_after_a_cut(fake, tmp_path):
    ws = workspace_for(fake)
    content = b"0123456789"

    def serve(handler):
        rng = handler.headers.get("Range")
        handler.send_response(206 if rng else 200)
        handler.send_header("ETag", '"v1"')
        handler.send_header("X-Runbox-Entry-Type", "file")
        if rng:
            start = int(rng.split("=")[1].rstrip("-"))
            assert handler.headers.get("If-Range") == '"v1"'
            handler.send_header("Content-Length", str(len(content) - start))
            handler.end_headers()
            handler.wfile.write(content[start:])
            return
        handler.send_header("Content-Length", str(len(content)))
        handler.end_headers()
        handler.wfile.write(content[:4])
        handler.wfile.flush()
        handler.close_connection = True
        import socket
        handler.connection.shutdown(socket.SHUT_RDWR)

    fake.routes[("GET", "/v1/workspaces/ws1/files/big.bin")] = Route(handler=serve)
    n = ws.files.download("big.bin", tmp_path / "big.bin")
    assert n == 10 and (tmp_path / "big.bin").read_bytes() == content
    assert fake.requests[-1][2].get("Range") == "bytes=4-"


def test_an_upload_refused_on_its_head_is_reported(fake):
    ws = workspace_for(fake)

    def refuse(handler):
        body = b'{"error":{"code":"upload_too_large","message":"over uploadMaxFileBytes"}}'
        handler.send_response(413)
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(body)
        handler.close_connection = True

    fake.routes[("PUT", "/v1/workspaces/ws1/files/x.bin")] = Route(handler=refuse)
    with pytest.raises(TooLargeError) as e:
        ws.files.write("x.bin", b"z" * (8 << 20))
    assert e.value.code == "upload_too_large"
