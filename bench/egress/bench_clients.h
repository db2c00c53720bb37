#pragma once

// The Python client the egress benchmark runs as the bridge's child (kept out of the .cpp so
// that moc-free code stays plain). It measures, in one process and one run, a 256 MiB download
// and small-request latency directly over loopback, through bridge + gateway with absolute-form
// requests, and through a CONNECT tunnel (the https path), and prints one JSON line per mode.
// Downloads are repeated REPEAT times (default 3), interleaved, and the best time is kept.
// MODES (comma-separated) picks the modes: the agent variant runs `direct` on the host and the
// proxied modes inside a sandbox.

namespace {

const char* kBenchClient = R"PY(
import http.client, json, os, time
up = int(os.environ["UPSTREAM_PORT"])
proxy_host = os.environ.get("UPSTREAM_NAME", "mirror.test")
proxy = int(os.environ.get("BRIDGE_PORT", "18118"))
requests = int(os.environ["REQUESTS"])

def fetch(mode, path):
    if mode == "direct":
        c = http.client.HTTPConnection("127.0.0.1", up, timeout=120)
        c.request("GET", path)
    elif mode == "absolute-form":
        c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=120)
        c.request("GET", "http://%s:%d%s" % (proxy_host, up, path))
    else:
        c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=120)
        c.set_tunnel(proxy_host, up)
        c.request("GET", path)
    r = c.getresponse()
    total = 0
    while True:
        b = r.read(1 << 20)
        if not b:
            break
        total += len(b)
    c.close()
    return total

modes = tuple(os.environ.get("MODES", "direct,absolute-form,connect").split(","))
best = {mode: None for mode in modes}
size = {}
for _ in range(int(os.environ.get("REPEAT", "3"))):  # interleaved; best of N on a busy host
    for mode in modes:
        t = time.perf_counter()
        size[mode] = fetch(mode, "/blob")
        seconds = time.perf_counter() - t
        best[mode] = seconds if best[mode] is None else min(best[mode], seconds)
for mode in modes:
    latencies = []
    for _ in range(requests):
        t0 = time.perf_counter()
        fetch(mode, "/small")
        latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    print(json.dumps({"mode": mode, "bytes": size[mode], "seconds": best[mode],
                      "p50_ms": latencies[len(latencies) // 2],
                      "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]}),
          flush=True)
)PY";

} // namespace
