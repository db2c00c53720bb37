#!/usr/bin/env python3
"""A simulated Runbox agent for scripts/screenshots only.

It answers the routes the console uses with their documented shapes (quotas, executions, logs:
docs/managed.md; network policy, egress: agent/egress/README.md; NPU chips: docs/npu.md) and a
health answer that shows the sandbox degradations, so every console page can be rendered even
where the real agent has not landed a route yet. It does not check signatures and runs nothing: never use it for tests.

Usage: simulated_agent.py PORT_FILE   (listens on 127.0.0.1:0 and writes its URL to PORT_FILE)
"""
import hashlib
import json
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

NOW = datetime.now(timezone.utc)


def iso(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


GIB = 1 << 30
STATE = {
    "quotas": {
        "maxWorkspaceBytes": 20 * GIB,
        "maxOutputBytes": 1 * GIB,
        "uploadMaxFileBytes": 2 * GIB,
        "uploadMaxRequestBytes": 10 * GIB,
        "defaultExecutionTimeoutMs": 2 * 3600 * 1000,
        "maxExecutionTimeoutMs": 24 * 3600 * 1000,
        "maxConcurrentExecutions": 16,
    },
    "lastChange": {"id": 7, "at": iso(NOW - timedelta(hours=3)), "tokenId": "agent",
                   "key": "quota.maxWorkspaceBytes", "before": 10 * GIB, "after": 20 * GIB},
    "policy": {"mode": "domain-allowlist",
               "allowedDomains": ["*.pythonhosted.org:443", "files.example-mirror.org",
                                  "pypi.org:443"],
               "allowPrivateCidrs": ["10.20.0.0/16"]},
}


def revision(policy):
    if policy["mode"] == "none":
        return "none"
    canon = json.dumps({"allowPrivateCidrs": policy["allowPrivateCidrs"],
                        "allowedDomains": policy["allowedDomains"], "mode": policy["mode"]},
                       separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canon.encode()).hexdigest()


def health():
    return {
        "status": "ok", "version": "0.1.0", "protocol": 1,
        "uptimeMs": 3 * 86400 * 1000 + 5 * 3600 * 1000,
        "sandbox": {"usable": True, "ready": True, "bwrapPath": "/usr/bin/bwrap",
                    "bwrapVersion": "bubblewrap 0.6.2", "procMode": "bind",
                    "nestedUserns": "option-unknown",
                    "procDetail": "bwrap: Can't mount proc on /newroot/proc: Operation not "
                                  "permitted",
                    "detail": "", "unusableReason": "",
                    "warnings": ["/proc is bound from the host: sandboxed code can list host "
                                 "processes (container without a fresh procfs)"]},
        "seccomp": {"arch": "aarch64", "profiles": ["baseline", "network", "npu"],
                    "deniedAction": "EPERM"},
        "landlock": {"abi": 4},
        "egress": {"available": True, "reason": "gateway ready for revision " +
                   revision(STATE["policy"])[:12]},
        "limits": {"executionTimeoutMs": 7200000, "maxOutputBytes": GIB, "setupTimeoutMs": 10000},
        "languages": ["shell", "python", "r"],
        "workspaces": {"count": 12, "bytes": int(37.4 * GIB)},
        "executions": {"running": 3, "queued": 2},
    }


def chip(logic, name="910B3", health="OK", usable=True, reason="", temp=41, core=0.0,
         used=3100, total=65536, npu=None, supported=True):
    return {"logicId": logic, "npuId": npu if npu is not None else logic, "chipId": 0,
            "name": name, "supported": supported, "health": health, "powerW": 92.5 + logic,
            "temperatureC": temp, "aiCorePercent": core, "hbmUsedMb": used, "hbmTotalMb": total,
            "probe": {"usable": usable, "reason": reason, "at": iso(NOW - timedelta(minutes=2))}}


CHIPS = {
    "capturedAt": iso(NOW - timedelta(minutes=2)), "source": "npu-smi",
    "chips": [chip(0, core=87.0, used=52100, temp=63), chip(1), chip(2, core=12.5, used=20400),
              chip(3, usable=False, reason="NPU 3 cannot be opened inside the sandbox: "
                   "dcmi_get_device_info failed, ret is -8020 (held by another tenant)",
                   core=99.0, used=61000, temp=71, health="Warning"),
              chip(4), chip(5, used=8000), chip(6, health="Alarm", usable=False,
                                                  reason="health Alarm: chip reports an ECC "
                                                         "error", temp=78),
              chip(7),
              chip(8, name="310P3", supported=False, usable=False, used=1200, total=24576,
                   reason="310P3 is not supported: only the Ascend 910 series can be selected",
                   npu=8)],
    # Reserved now by execution 0 (running on chips 0 and 1): `held`, and `holders` for the
    # agent token (GET /v1/npu/chips, docs/npu.md).
    "held": [0, 1],
    "holders": [{"chip": 0, "execution": f"ex_{hashlib.md5(b'0').hexdigest()[:20]}"},
                {"chip": 1, "execution": f"ex_{hashlib.md5(b'0').hexdigest()[:20]}"}],
}

KINDS = ["python", "shell", "python", "r", "shell", "python"]
STATES = ["running", "running", "running", "queued", "queued", "completed", "failed",
          "timed_out", "cancelled", "completed", "output_limited", "setup_failed", "completed",
          "lost", "completed", "quota_exceeded"]


def execution(i):
    state = STATES[i % len(STATES)]
    created = NOW - timedelta(minutes=7 * i + 1)
    started = None if state == "queued" else created + timedelta(seconds=2)
    finished = None if state in ("queued", "running") else started + timedelta(seconds=30 + 17 * i)
    exit_code = {"completed": 0, "failed": 1, "timed_out": 137, "cancelled": 143,
                 "output_limited": 137}.get(state)
    chips = [0, 1] if i % 5 == 0 else ([2] if i % 7 == 2 else [])
    return {
        "executionId": f"ex_{hashlib.md5(str(i).encode()).hexdigest()[:20]}",
        "workspace": f"w{hashlib.md5(str(i % 4).encode()).hexdigest()[:16]}",
        "kind": KINDS[i % len(KINDS)], "state": state,
        "queuePosition": (i - 3) if state == "queued" else None,
        "createdAt": iso(created), "startedAt": iso(started) if started else None,
        "finishedAt": iso(finished) if finished else None, "exitCode": exit_code,
        "signal": 9 if state in ("timed_out", "output_limited") else None,
        "durationMs": int((finished - started).total_seconds() * 1000) if finished else None,
        "statusReason": {"timed_out": "timed out after 600000 ms",
                         "setup_failed": "NPU 3 cannot be opened inside the sandbox",
                         "cancelled": "cancelled by token agent",
                         "lost": "the agent stopped while it was running (it had started)",
                         "quota_exceeded": "the workspace grew past 20 GiB"}.get(state, ""),
        "permissionEpoch": {"networkPolicy": "domain-allowlist",
                            "networkAccessRevision": revision(STATE["policy"]),
                            "quotas": {"maxOutputBytes": GIB, "maxWorkspaceBytes": 20 * GIB,
                                       "executionTimeoutMs": 7200000},
                            "npuDevices": chips},
        "provenance": {"cwd": "experiments/run-%d" % i, "argv": ["python3", "-I", "-"],
                       "env": {"PYTHONHASHSEED": "0", "ASCEND_RT_VISIBLE_DEVICES": "0,1",
                               "HTTPS_PROXY": "http://127.0.0.1:18118"}},
        "createdFiles": ["results/metrics.json", "results/model.ckpt"] if finished else [],
        "modifiedFiles": ["train.log"] if finished else [],
        "deletedFiles": [],
        "logBytes": {"stdout": 18432, "stderr": 512, "dropped": 0, "retentionTruncated": False},
    }


EXECUTIONS = [execution(i) for i in range(120)]
LOG_LINES = [("stdout", "Loading dataset shard %d/8 …\n" % (i + 1)) for i in range(8)] + [
    ("stderr", "[W] torch_npu: HCCL_CONNECT_TIMEOUT not set, using 120 s\n"),
    ("stdout", "epoch 1/20  loss=2.3012  acc=0.112  620 samples/s\n"),
    ("stdout", "epoch 2/20  loss=1.8790  acc=0.347  633 samples/s\n"),
    ("stdout", "epoch 3/20  loss=1.4021  acc=0.529  641 samples/s\n"),
    ("stderr", "[W] pip: retrying files.pythonhosted.org (connection reset)\n"),
    ("stdout", "epoch 4/20  loss=1.1135  acc=0.641  638 samples/s\n"),
]
EGRESS = [
    {"at": iso(NOW - timedelta(minutes=5)), "host": "pypi.org", "port": 443, "allowed": True,
     "reason": "allowlist pypi.org:443", "bytesUp": 2410, "bytesDown": 88231},
    {"at": iso(NOW - timedelta(minutes=5)), "host": "files.pythonhosted.org", "port": 443,
     "allowed": True, "reason": "allowlist *.pythonhosted.org:443", "bytesUp": 5012,
     "bytesDown": 14302311},
    {"at": iso(NOW - timedelta(minutes=4)), "host": "169.254.169.254", "port": 80,
     "allowed": False, "reason": "ip_literal", "bytesUp": 0, "bytesDown": 0},
    {"at": iso(NOW - timedelta(minutes=3)), "host": "github.com", "port": 443, "allowed": False,
     "reason": "not in allowlist", "bytesUp": 0, "bytesDown": 0},
]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, message):
        self.reply(status, {"error": {"code": code, "message": message}})

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"{}")

    def stream(self, events, delay=0.0):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for ev in events:
                line = (json.dumps(ev) + "\n").encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.flush()
                time.sleep(delay)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the console closed the window: fine

    def do_GET(self):
        url = urlparse(self.path)
        q = parse_qs(url.query)
        p = url.path.rstrip("/")
        if p == "/health":
            return self.reply(200, {"status": "ok", "version": "0.1.0", "protocol": 1})
        if p == "/v1/health":
            return self.reply(200, health())
        if p == "/v1/settings/quotas":
            return self.reply(200, dict(STATE["quotas"], lastChange=STATE["lastChange"]))
        if p == "/v1/settings/network-policy":
            return self.reply(200, dict(STATE["policy"], revision=revision(STATE["policy"])))
        if p == "/v1/npu/chips":
            if q.get("refresh"):
                time.sleep(1.5)
            return self.reply(200, CHIPS)
        if p == "/v1/workspaces":
            ids = sorted({e["workspace"] for e in EXECUTIONS})
            return self.reply(200, {"workspaces": [{"id": i, "isolation": "strong",
                                                    "createdAt": iso(NOW)} for i in ids]})
        if p == "/v1/executions":
            items = [e for e in EXECUTIONS
                     if (not q.get("state") or e["state"] == q["state"][0])
                     and (not q.get("workspace") or e["workspace"] == q["workspace"][0])]
            start = int(q.get("cursor", ["0"])[0])
            limit = int(q.get("limit", ["50"])[0])
            page = items[start:start + limit]
            nxt = str(start + limit) if start + limit < len(items) else ""
            return self.reply(200, {"executions": page, "nextCursor": nxt})
        parts = p.split("/")
        if len(parts) >= 4 and parts[1:3] == ["v1", "executions"]:
            rec = next((e for e in EXECUTIONS if e["executionId"] == parts[3]), None)
            if rec is None:
                return self.error(404, "execution_not_found", "no execution " + parts[3])
            if len(parts) == 4:
                return self.reply(200, rec)
            if parts[4] == "egress":
                return self.reply(200, {"decisions": EGRESS})
            if parts[4] == "log":
                events, offset = [], 0
                for stream, text in LOG_LINES:
                    events.append({"type": stream, "data": text, "offset": offset})
                    offset += len(text.encode())
                if rec["state"] != "running":
                    events.append({"type": "exit", "status": rec["state"],
                                   "exitCode": rec["exitCode"], "durationMs": rec["durationMs"]})
                    return self.stream(events)
                self.stream(events + [{"type": "ping"}] * 3, delay=0.3)
                return
        return self.error(404, "not_found", "no route " + p)

    def do_PUT(self):
        p = urlparse(self.path).path
        if p == "/v1/settings/quotas":
            STATE["quotas"].update(self.body())
            return self.reply(200, STATE["quotas"])
        if p == "/v1/settings/network-policy":
            STATE["policy"] = self.body()
            return self.reply(200, dict(STATE["policy"], revision=revision(STATE["policy"])))
        return self.error(404, "not_found", "no route " + p)

    def do_POST(self):
        return self.error(404, "not_found", "no route " + urlparse(self.path).path)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write("http://127.0.0.1:%d\n" % server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
