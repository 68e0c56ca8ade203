"""Measures what `mcpwire proxy http` adds: request round-trip latency (p50/p99) direct vs
through the proxy, against py_server.py over Streamable HTTP (2026-07-28 requests with their
mirrored headers, one keep-alive connection each way, requests alternating direct / proxied so
drift in the server hits both equally).

  python overhead_http.py --mcpwire target/release/mcpwire [--rounds 300]
"""
import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interop import free_port, wait_port, MODERN_META  # noqa: E402


def requests():
    def req(i, method, params, name=None):
        body = {"jsonrpc": "2.0", "id": i, "method": method, "params": dict(params, _meta=MODERN_META)}
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
        if name is not None:
            h["Mcp-Name"] = name
        return json.dumps(body).encode(), h
    return [
        lambda i: req(i, "tools/list", {}),
        lambda i: req(i, "tools/call", {"name": "echo", "arguments": {"text": "hello mcpwire"}}, "echo"),
        lambda i: req(i, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 40}}, "add"),
        lambda i: req(i, "resources/read", {"uri": "fixture://hello"}, "fixture://hello"),
        lambda i: req(i, "prompts/get", {"name": "greet", "arguments": {"name": "x"}}, "greet"),
    ]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpwire", required=True)
    ap.add_argument("--rounds", type=int, default=300)
    a = ap.parse_args()
    py = sys.executable
    sport, pport = free_port(), free_port()
    server = subprocess.Popen([py, "-W", "ignore", os.path.join(HERE, "py_server.py"), "--http", str(sport)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = f"/tmp/mcpwire-overhead-http-{os.getpid()}.log"
    proxy = subprocess.Popen([a.mcpwire, "proxy", "http", "--listen", f"127.0.0.1:{pport}",
                              "--upstream", f"http://127.0.0.1:{sport}/mcp", "--log", log])
    try:
        wait_port(sport, server)
        wait_port(pport, proxy)
        conns = {"direct": http.client.HTTPConnection("127.0.0.1", sport),
                 "proxy": http.client.HTTPConnection("127.0.0.1", pport)}
        lat = {"direct": [], "proxy": []}
        reqs = requests()
        i = 0
        for r in range(a.rounds + 20):
            for mk in reqs:
                for via in ("direct", "proxy") if r % 2 == 0 else ("proxy", "direct"):
                    i += 1
                    body, h = mk(i)
                    t0 = time.perf_counter_ns()
                    conns[via].request("POST", "/mcp", body, h)
                    resp = conns[via].getresponse()
                    data = resp.read()
                    dt = time.perf_counter_ns() - t0
                    if resp.status != 200 or b'"result"' not in data:
                        raise RuntimeError(f"{via}: HTTP {resp.status} {data[:200]!r}")
                    if r >= 20:  # warm-up rounds left out
                        lat[via].append(dt / 1000)
        for via in ("direct", "proxy"):
            print(f"{via:6}: n={len(lat[via])} p50={pct(lat[via], 50):.0f} us p99={pct(lat[via], 99):.0f} us")
        print(f"added : p50 {pct(lat['proxy'], 50) - pct(lat['direct'], 50):+.0f} us, "
              f"p99 {pct(lat['proxy'], 99) - pct(lat['direct'], 99):+.0f} us")
    finally:
        proxy.send_signal(signal.SIGTERM)
        proxy.wait(10)
        server.terminate()
        server.wait(10)
    recs = [json.loads(l) for l in open(log)]
    viol = [r for r in recs if r["event"] == "violation"]
    summ = next(r for r in recs if r["event"] == "summary")
    print(f"proxy: {summ['c2s']['frames']} c2s / {summ['s2c']['frames']} s2c messages judged, {len(viol)} violations")
    os.remove(log)
    return 1 if viol else 0


if __name__ == "__main__":
    sys.exit(main())
