"""Replays a recorded Streamable HTTP session at full speed against py_server.py, directly and
through `mcpwire proxy http`, and reports per-request latency (p50/p99) and throughput
(requests/s, request+response body MB/s) for both, plus the proxy log's violation count.

  python replay_http.py --mcpwire target/release/mcpwire [--rounds 40] [--warmup 5]
      [--capture ../shared/captures/http_py-client_pyserver_2026-07-28]

The capture's POST records are replayed in `seq` order with their recorded headers (Host and
Content-Length are set by the client for the new target) and raw bodies, one after the other on
one keep-alive connection. A pass is the whole session once; passes alternate direct / proxied
(the order flips every round) so drift in the server or machine load hits both sides.

Before timing, one probe pass goes direct and one through a separate proxy instance:
* a request that does not complete within --probe-timeout seconds direct (a long-lived stream,
  e.g. `subscriptions/listen`) is skipped;
* a request the proxy rejects under the default profile (a c2s violation in the probe proxy's
  log whose id matches the request) is skipped.
Both are counted and named in the output. Responses that are JSON-RPC errors or HTTP 4xx (the
capture was recorded against a different server, so some tool/resource names don't exist on
py_server) are kept: they are real round trips through the server and the proxy; the script
counts them and requires the direct and proxied status codes to agree.
"""
import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interop import free_port, wait_port  # noqa: E402

DEFAULT_CAPTURE = os.path.join(
    os.environ.get("MCPWIRE_SHARED", os.path.join(HERE, "..", "..", "..", "shared")),
    "captures", "http_py-client_pyserver_2026-07-28")


def load(capture):
    recs = [json.loads(l) for l in open(os.path.join(capture, "requests.jsonl")) if l.strip()]
    recs = sorted((r for r in recs if r["method"] == "POST"), key=lambda r: r["seq"])
    out = []
    for r in recs:
        h = {k: v for k, v in r["headers"].items() if k.lower() not in ("host", "content-length")}
        body = r["body"].encode()
        try:
            rid = json.loads(body).get("id")
        except ValueError:
            rid = None
        out.append({"seq": r["seq"], "path": r["path"], "headers": h, "body": body, "id": rid,
                    "method": h.get("mcp-method", "?")})
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def start_proxy(mcpwire, pport, sport, log):
    return subprocess.Popen([mcpwire, "proxy", "http", "--listen", f"127.0.0.1:{pport}",
                             "--upstream", f"http://127.0.0.1:{sport}/mcp", "--log", log])


def stop_proxy(proxy, log):
    proxy.send_signal(signal.SIGTERM)
    proxy.wait(10)
    recs = [json.loads(l) for l in open(log)]
    os.remove(log)
    return recs


def send(conn, req):
    """One round trip; returns (status, response body bytes, elapsed ns)."""
    t0 = time.perf_counter_ns()
    conn.request("POST", req["path"], req["body"], req["headers"])
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, data, time.perf_counter_ns() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpwire", required=True)
    ap.add_argument("--capture", default=DEFAULT_CAPTURE)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--probe-timeout", type=float, default=3.0)
    a = ap.parse_args()
    if not os.path.isdir(a.capture):
        print(f"skipped: capture {a.capture} not found")
        return 0
    reqs = load(a.capture)
    py = sys.executable
    sport = free_port()
    server = subprocess.Popen([py, "-W", "ignore", os.path.join(HERE, "py_server.py"), "--http", str(sport)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(sport, server)
        # Probe 1: direct, with a timeout, to find long-lived streams.
        skipped_stream = []
        keep = []
        conn = http.client.HTTPConnection("127.0.0.1", sport, timeout=a.probe_timeout)
        for r in reqs:
            try:
                send(conn, r)
                keep.append(r)
            except (socket.timeout, TimeoutError):
                skipped_stream.append(r)
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", sport, timeout=a.probe_timeout)
        conn.close()
        # Probe 2: through a separate proxy, to find what the default profile rejects.
        pport = free_port()
        plog = f"/tmp/mcpwire-replay-http-probe-{os.getpid()}.log"
        proxy = start_proxy(a.mcpwire, pport, sport, plog)
        wait_port(pport, proxy)
        conn = http.client.HTTPConnection("127.0.0.1", pport, timeout=30)
        for r in keep:
            send(conn, r)
        conn.close()
        probe = stop_proxy(proxy, plog)
        # The log gives the id as its raw JSON text ("2", "\"listen-1\"").
        rejected_ids = {v["id"] if isinstance(v.get("id"), str) else json.dumps(v.get("id")) for v in probe
                        if v["event"] == "violation" and v["dir"] == "c2s" and v.get("action") != "forwarded"}
        skipped_rejected = [r for r in keep if json.dumps(r["id"]) in rejected_ids]
        reqs = [r for r in keep if r not in skipped_rejected]
        probe_viol = [v for v in probe if v["event"] == "violation"]

        # Timed passes.
        pport = free_port()
        log = f"/tmp/mcpwire-replay-http-{os.getpid()}.log"
        proxy = start_proxy(a.mcpwire, pport, sport, log)
        wait_port(pport, proxy)
        conns = {"direct": http.client.HTTPConnection("127.0.0.1", sport, timeout=30),
                 "proxy": http.client.HTTPConnection("127.0.0.1", pport, timeout=30)}
        lat = {"direct": [], "proxy": []}
        wall = {"direct": 0, "proxy": 0}
        nbytes = {"direct": 0, "proxy": 0}
        nreq = {"direct": 0, "proxy": 0}
        statuses = {"direct": {}, "proxy": {}}
        errors = {"direct": 0, "proxy": 0}
        tool_errors = {"direct": 0, "proxy": 0}
        for rnd in range(a.warmup + a.rounds):
            for via in ("direct", "proxy") if rnd % 2 == 0 else ("proxy", "direct"):
                c = conns[via]
                t_pass = time.perf_counter_ns()
                samples, b, st = [], 0, []
                for r in reqs:
                    status, data, dt = send(c, r)
                    samples.append(dt / 1000)
                    b += len(r["body"]) + len(data)
                    st.append((status, b'"error"' in data, b'"isError":true' in data))
                t_pass = time.perf_counter_ns() - t_pass
                if rnd >= a.warmup:
                    lat[via] += samples
                    wall[via] += t_pass
                    nbytes[via] += b
                    nreq[via] += len(reqs)
                    for status, err, tool_err in st:
                        statuses[via][status] = statuses[via].get(status, 0) + 1
                        errors[via] += err
                        tool_errors[via] += tool_err
        for c in conns.values():
            c.close()
        recs = stop_proxy(proxy, log)
    finally:
        server.terminate()
        server.wait(10)

    print(f"capture : {a.capture} ({len(keep) + len(skipped_stream)} POSTs)")
    print(f"skipped : {len(skipped_stream)} long-lived stream(s) "
          f"{[(r['seq'], r['method']) for r in skipped_stream]}, "
          f"{len(skipped_rejected)} rejected by the proxy's default profile "
          f"{[(r['seq'], r['method']) for r in skipped_rejected]}")
    print(f"probe   : {len(probe_viol)} violations in the probe proxy's log")
    print(f"replayed: {len(reqs)} requests/pass x {a.rounds} passes each way ({a.warmup} warm-up rounds left out)")
    for via in ("direct", "proxy"):
        secs = wall[via] / 1e9
        print(f"{via:6}: n={len(lat[via])} p50={pct(lat[via], 50):.0f} us p99={pct(lat[via], 99):.0f} us "
              f"{nreq[via] / secs:.0f} req/s {nbytes[via] / secs / 1e6:.3f} MB/s (req+resp bodies) "
              f"status={dict(sorted(statuses[via].items()))} jsonrpc-error-bodies={errors[via]} "
              f"isError-tool-results={tool_errors[via]}")
    print(f"added : p50 {pct(lat['proxy'], 50) - pct(lat['direct'], 50):+.0f} us, "
          f"p99 {pct(lat['proxy'], 99) - pct(lat['direct'], 99):+.0f} us")
    viol = [r for r in recs if r["event"] == "violation"]
    summ = next(r for r in recs if r["event"] == "summary")
    print(f"proxy   : {summ['c2s']['frames']} c2s / {summ['s2c']['frames']} s2c messages judged, "
          f"{len(viol)} violations {summ.get('violations')}")
    seen = set()
    for v in probe_viol + viol:
        key = (v["dir"], v.get("kind"), v.get("method"), json.dumps(v.get("id")), v.get("action"))
        if key not in seen:
            seen.add(key)
            print(f"  violation: dir={key[0]} kind={key[1]} method={key[2]} id={key[3]} action={key[4]} "
                  f"{v.get('message', '')[:120]}")
    if statuses["direct"] != statuses["proxy"]:
        print("status codes differ between direct and proxied passes")
        return 1
    return 1 if viol else 0


if __name__ == "__main__":
    sys.exit(main())
