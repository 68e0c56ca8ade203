"""Measures what `mcpwire proxy stdio` adds: round-trip latency per request (p50/p99) and
throughput, direct vs through the proxy, replaying a recorded real session
(captures/stdio_py-client_pyserver_2026-07-28 by default) against replay_server.py.

  python overhead.py --mcpwire target/release/mcpwire [--capture DIR] [--rounds 30] [--reps 200]

Latency: the session's client messages are sent one at a time; each request waits for its
response (the ones the recording answered). Throughput: the session repeated --reps times
with ids renumbered, written as fast as the pipe takes it while a reader collects the
responses. The proxy's CPU time comes from wait4's rusage.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load(cap):
    """The client messages to send and the ids whose recorded response is a result.

    Requests the recording answered with an error (removed or unknown methods, which the proxy
    answers itself under 2026-07-28) are left out, so both runs carry the same traffic."""
    s2c = [json.loads(l) for l in open(f"{cap}/server-to-client.jsonl", "rb")]
    answered = {m["id"] for m in s2c if "result" in m}
    failed = {m.get("id") for m in s2c if "error" in m}
    c2s = [json.loads(l) for l in open(f"{cap}/client-to-server.jsonl", "rb")]
    c2s = [m for m in c2s if not ("method" in m and m.get("id") in failed)]
    return c2s, answered


def key(rid):
    """The recorded id of a renumbered id."""
    return rid % 100000 if isinstance(rid, int) else rid


def renumber(msgs, rep):
    out = []
    for m in msgs:
        m = dict(m)
        if "id" in m and isinstance(m["id"], int):
            m["id"] = m["id"] + rep * 100000
        if m.get("method") == "notifications/cancelled":
            p = dict(m["params"])
            if isinstance(p.get("requestId"), int):
                p["requestId"] += rep * 100000
            m["params"] = p
        out.append(m)
    return out


def start(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    p.out = io.BufferedReader(p.stdout, 1 << 16)
    return p


def finish(p):
    p.stdin.close()
    p.out.read()
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def latency(cmd, c2s, answered, rounds):
    p = start(cmd)
    rd = p.out
    rtts = []
    for r in range(rounds):
        for m in renumber(c2s, r + 1):
            line = json.dumps(m, separators=(",", ":")).encode() + b"\n"
            want = m.get("id") if "method" in m and key(m.get("id")) in answered else None
            t0 = time.perf_counter_ns()
            p.stdin.write(line)
            if want is None:
                continue
            while True:
                got = json.loads(rd.readline())
                if got.get("id") == want and "method" not in got:
                    break
            rtts.append((time.perf_counter_ns() - t0) / 1000)
    cpu = finish(p)
    rtts.sort()
    return rtts, cpu


def throughput(cmd, c2s, answered, reps):
    lines = []
    expect = 0
    for r in range(reps):
        for m in renumber(c2s, r + 1):
            lines.append(json.dumps(m, separators=(",", ":")).encode() + b"\n")
            if "method" in m and key(m.get("id")) in answered:
                expect += 1
    data = b"".join(lines)
    p = start(cmd)
    got = {"n": 0, "bytes": 0}

    def reader():
        for line in p.out:
            got["bytes"] += len(line)
            m = json.loads(line)
            if "id" in m and "method" not in m:
                got["n"] += 1
                if got["n"] == expect:
                    return

    t = threading.Thread(target=reader)
    t0 = time.perf_counter()
    t.start()
    p.stdin.write(data)
    t.join()
    wall = time.perf_counter() - t0
    cpu = finish(p)
    return {"requests": expect, "c2s_bytes": len(data), "s2c_bytes": got["bytes"], "seconds": wall,
            "frames": len(lines) + got["n"], "cpu_s": cpu}


def pct(xs, q):
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpwire", required=True)
    ap.add_argument("--capture", default=os.path.join(HERE, "../../../shared/captures/stdio_py-client_pyserver_2026-07-28"))
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--log", default="/dev/null")
    a = ap.parse_args()
    c2s, answered = load(a.capture)
    server = [sys.executable, os.path.join(HERE, "replay_server.py"), a.capture]
    proxied = [a.mcpwire, "proxy", "stdio", "--log", a.log, "--"] + server
    res = {}
    for name, cmd in (("direct", server), ("proxy", proxied)):
        rtts, _ = latency(cmd, c2s, answered, a.rounds)
        res[name] = {"rtt_us": {"n": len(rtts), "p50": pct(rtts, 0.5), "p99": pct(rtts, 0.99)}}
        res[name]["throughput"] = throughput(cmd, c2s, answered, a.reps)
    d, p = res["direct"], res["proxy"]
    print(json.dumps(res, indent=1))
    print(f"added latency p50 {p['rtt_us']['p50'] - d['rtt_us']['p50']:.1f} us, "
          f"p99 {p['rtt_us']['p99'] - d['rtt_us']['p99']:.1f} us (RTT direct p50/p99 "
          f"{d['rtt_us']['p50']:.1f}/{d['rtt_us']['p99']:.1f} us, proxied {p['rtt_us']['p50']:.1f}/{p['rtt_us']['p99']:.1f} us)")
    for n in ("direct", "proxy"):
        t = res[n]["throughput"]
        print(f"{n}: {t['requests'] / t['seconds']:.0f} requests/s, "
              f"{(t['c2s_bytes'] + t['s2c_bytes']) / t['seconds'] / 1e6:.1f} MB/s both ways")
    # wait4's rusage of the proxy includes the server it reaped; the direct run's rusage is
    # the server alone, so the difference is the proxy's own CPU time (approximately).
    t = p["throughput"]
    own = t["cpu_s"] - d["throughput"]["cpu_s"]
    mb = (t["c2s_bytes"] + t["s2c_bytes"]) / 1e6
    print(f"proxy CPU (proxied run {t['cpu_s']:.3f} s - direct server {d['throughput']['cpu_s']:.3f} s) = "
          f"{own:.3f} s for {t['frames']} frames, {mb:.1f} MB: {own / t['frames'] * 1e6:.2f} us/frame, "
          f"{mb / own if own > 0 else float('nan'):.1f} MB per CPU-second")


if __name__ == "__main__":
    main()
