"""Deliberately broken messages injected into a live stdio session through
`mcpwire proxy stdio`: each must get the right JSON-RPC error reply from the proxy, must never
reach the server, and the session must go on.

  python inject.py --mcpwire PATH --log LOG [--modern] -- SERVER [ARGS...]

Legacy (default): initialize handshake, then a duplicate-key smuggling attempt, invalid JSON
and a null request id. --modern (proxy runs with --profile 2026-07-28): server/discover, then
a request lacking the required _meta keys. Ends with a valid tools/list that must succeed.
Prints one line per check; exit status 1 when any check fails.
"""
import argparse
import json
import subprocess
import sys
import threading
import queue

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "mcpwire-inject", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}

NULL = "null"  # the reply carries "id": null (2025-06-18 requires an id on error responses)
LEGACY_BROKEN = [
    # (bytes sent, expected error code, expected id in the reply (None = no id member))
    # The parser rejects the duplicate key, but the id is unambiguous: the reply echoes it.
    (b'{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}},"method":"tools/list"}', -32600, 50),
    # The session negotiated 2025-06-18: a reply whose request id cannot be read has "id": null.
    (b'{"jsonrpc":"2.0","id":51,"method":"tools/list",}', -32700, NULL),
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600, NULL),
]
MODERN_BROKEN = [
    (b'{"jsonrpc":"2.0","id":60,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}', -32602, 60),
    (b'{"jsonrpc":"2.0","id":61,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/bogus":1}}}', None, 61),
]

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpwire", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--modern", action="store_true")
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    server = a.server[1:] if a.server and a.server[0] == "--" else a.server
    cmd = [a.mcpwire, "proxy", "stdio", "--log", a.log]
    if a.modern:
        cmd += ["--profile", "2026-07-28"]
    p = subprocess.Popen(cmd + ["--"] + server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = queue.Queue()

    def reader():
        for line in p.stdout:
            lines.put(line)

    threading.Thread(target=reader, daemon=True).start()

    def send(b):
        p.stdin.write(b + b"\n")
        p.stdin.flush()

    def response(timeout=20):
        """The next response (skips notifications and answers server requests with an error)."""
        while True:
            m = json.loads(lines.get(timeout=timeout))
            if "method" in m and "id" in m:
                send(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "not supported"}}).encode())
                continue
            if "method" in m:
                continue
            return m

    if a.modern:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}).encode())
        r = response()
        check(r.get("id") == 1 and "result" in r, "server/discover answered by the server")
        broken = MODERN_BROKEN
    else:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcpwire-inject", "version": "1"}}}).encode())
        r = response()
        check(r.get("id") == 1 and "result" in r, "initialize answered by the server")
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        broken = LEGACY_BROKEN
    for raw, code, rid in broken:
        send(raw)
        r = response()
        want = f"error {code if code is not None else 'any'} id {rid}"
        if rid == NULL:
            id_ok = "id" in r and r["id"] is None
        else:
            id_ok = r.get("id") == rid and (rid is not None or "id" not in r)
        ok = "error" in r and (code is None or r["error"]["code"] == code) and id_ok
        check(ok, f"{raw[:60].decode()}... -> {want}: got {json.dumps(r)[:160]}")
    # The session goes on: a valid request after the broken ones.
    params = {"_meta": META} if a.modern else {}
    send(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/list", "params": params}).encode())
    r = response()
    check(r.get("id") == 99 and "tools" in r.get("result", {}), "valid tools/list after the broken messages succeeds")
    p.stdin.close()
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
    check(p.returncode == 0, f"proxy exit status {p.returncode} (the server's)")
    recs = [json.loads(l) for l in open(a.log)]
    v = [r for r in recs if r["event"] == "violation"]
    replied = {(r["frame"]) for r in v if r["action"] == "replied" and r["dir"] == "c2s"}
    check(len(replied) == len(broken), f"{len(replied)} c2s frames replied by the proxy, {len(broken)} expected")
    check(all(r["dir"] == "c2s" for r in v), "no server-to-client violations")
    s = next(r for r in recs if r["event"] == "summary")
    forwarded = s["c2s"]["forwarded"]
    expected_forwarded = 2 if a.modern else 3  # handshake (+ initialized) + the final tools/list
    check(forwarded == expected_forwarded, f"{forwarded} client frames forwarded (broken ones never reach the server)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
