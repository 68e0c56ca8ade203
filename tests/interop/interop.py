"""Interop matrix for `mcpwire proxy stdio` and `proxy http` with real MCP peers (run by
.ci/interop.sh).

For each server (@modelcontextprotocol/server-everything on Node, tests/interop/py_server.py
on the Python SDK) and each client mode (auto = server/discover first, legacy = initialize),
session.py runs a full session once directly and once through the proxy; the normalised
results must be equal and the proxy log must hold zero violations. Then inject.py checks the
error replies for deliberately broken messages. Over Streamable HTTP the same session runs
against py_server.py (`--http`, SSE responses, and `--json-response`) directly and through
`mcpwire proxy http`, and broken POSTs sent through the proxy must get the right error reply.

  python interop.py --mcpwire PATH --everything PATH/TO/dist/index.js --work DIR
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# Wall-clock times the everything server prints into resource texts.
VOLATILE = re.compile(r"\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b")


def normalised(path):
    with open(path) as f:
        return json.loads(VOLATILE.sub("<time>", f.read()))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited early ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def post(url, body, headers):
    req = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "mcpwire-interop", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def http_inject(url):
    """Broken POSTs through the proxy; returns a list of failure lines."""
    call = {"jsonrpc": "2.0", "id": 90, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "x"}, "_meta": MODERN_META}}
    good = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
    cases = [
        ("valid call", json.dumps(call).encode(), good, 200, None),
        ("Mcp-Name mismatch", json.dumps(call).encode(), dict(good, **{"Mcp-Name": "add"}), 400, -32020),
        ("Mcp-Method missing", json.dumps(call).encode(), {k: v for k, v in good.items() if k != "Mcp-Method"}, 400, -32020),
        ("not JSON", b'{"jsonrpc": "2.0", "id": 91, ', good, 400, -32700),
        ("duplicate key", b'{"jsonrpc":"2.0","id":92,"id":93,"method":"tools/call","params":{}}', good, 400, -32600),
    ]
    out = []
    for name, body, headers, want_status, want_code in cases:
        status, resp = post(url, body, headers)
        code = None
        if want_code is not None:
            try:
                code = json.loads(resp)["error"]["code"]
            except Exception:
                code = "unreadable: " + resp[:200].decode(errors="replace")
        ok = status == want_status and code == want_code
        out.append(f"{'ok  ' if ok else 'FAIL'} {name}: HTTP {status}, code {code}")
    return out


def http_matrix(a, py):
    failures = 0
    server_py = os.path.join(HERE, "py_server.py")
    for variant, extra in (("sse", []), ("json", ["--json-response"])):
        for mode in ("auto", "legacy"):
            tag = f"http pyserver-{variant}/{mode}"
            out = {}
            log = os.path.join(a.work, f"http-{variant}-{mode}-proxy.log")
            for via in ("direct", "proxy"):
                sport = free_port()
                server = subprocess.Popen([py, "-W", "ignore", server_py, "--http", str(sport)] + extra,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                proxy = None
                try:
                    wait_port(sport, server)
                    url = f"http://127.0.0.1:{sport}/mcp"
                    if via == "proxy":
                        pport = free_port()
                        proxy = subprocess.Popen([a.mcpwire, "proxy", "http", "--listen", f"127.0.0.1:{pport}",
                                                  "--upstream", url, "--log", log])
                        wait_port(pport, proxy)
                        url = f"http://127.0.0.1:{pport}/mcp"
                    res = os.path.join(a.work, f"http-{variant}-{mode}-{via}.json")
                    r = subprocess.run(
                        [py, "-W", "ignore", os.path.join(HERE, "session.py"), "--mode", mode, "--out", res, "--", url],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                    )
                    inject = http_inject(url) if via == "proxy" and variant == "sse" and mode == "auto" else []
                finally:
                    if proxy is not None:
                        stop(proxy)
                    stop(server)
                if r.returncode != 0:
                    print(f"FAIL {tag} {via}: session failed\n{r.stdout.decode(errors='replace')[-3000:]}")
                    failures += 1
                    break
                out[via] = normalised(res)
            else:
                same = out["direct"] == out["proxy"]
                recs = [json.loads(l) for l in open(log)]
                # The injected broken POSTs are the only violations allowed (counted apart).
                viol = [r for r in recs if r["event"] == "violation"]
                session_viol = [v for v in viol if not (v["dir"] == "c2s" and v["action"] == "replied")]
                summ = next((r for r in recs if r["event"] == "summary"), None)
                d = out["direct"]
                ok = same and not session_viol and summ is not None and len(viol) == sum(1 for l in inject if "valid call" not in l)
                print(
                    f"{'ok  ' if ok else 'FAIL'} {tag}: protocol {d['protocol_version']}, "
                    f"{len(d['tools'])} tool calls, {len(d.get('resources', {}))} resource reads, "
                    f"{len(d.get('prompts', {}))} prompts, cancelled={d.get('cancelled')}, "
                    f"callbacks={sorted(k for k, v in d['notifications'].items() if v)}; "
                    f"same results through the proxy: {same}; proxy violations on the session: {len(session_viol)}; "
                    f"messages c2s/s2c judged: {summ and summ['c2s']['frames']}/{summ and summ['s2c']['frames']}"
                )
                for v in session_viol[:10]:
                    print("     ", json.dumps(v))
                for l in inject:
                    print("      inject:", l)
                    if l.startswith("FAIL"):
                        ok = False
                if not same:
                    print("      results differ:", os.path.join(a.work, f"http-{variant}-{mode}-direct.json"),
                          os.path.join(a.work, f"http-{variant}-{mode}-proxy.json"))
                if not ok:
                    failures += 1
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpwire", required=True)
    ap.add_argument("--everything", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", choices=("stdio", "http"), help="run one transport's checks only")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    py = sys.executable
    servers = {
        "everything": ["node", a.everything, "stdio"],
        "pyserver": [py, "-W", "ignore", os.path.join(HERE, "py_server.py")],
    }
    failures = 0
    if a.only == "http":
        servers = {}
    for name, server in servers.items():
        for mode in ("auto", "legacy"):
            tag = f"{name}/{mode}"
            out = {}
            for via in ("direct", "proxy"):
                res = os.path.join(a.work, f"{name}-{mode}-{via}.json")
                log = os.path.join(a.work, f"{name}-{mode}-proxy.log")
                cmd = server if via == "direct" else [a.mcpwire, "proxy", "stdio", "--log", log, "--"] + server
                r = subprocess.run(
                    [py, "-W", "ignore", os.path.join(HERE, "session.py"), "--mode", mode, "--out", res, "--"] + cmd,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                )
                if r.returncode != 0:
                    print(f"FAIL {tag} {via}: session failed\n{r.stdout.decode(errors='replace')[-3000:]}")
                    failures += 1
                    break
                out[via] = normalised(res)
            else:
                same = out["direct"] == out["proxy"]
                recs = [json.loads(l) for l in open(log)]
                viol = [r for r in recs if r["event"] == "violation"]
                summ = next((r for r in recs if r["event"] == "summary"), None)
                d = out["direct"]
                print(
                    f"{'ok  ' if same and not viol and summ else 'FAIL'} {tag}: protocol {d['protocol_version']}, "
                    f"{len(d['tools'])} tool calls, {len(d.get('resources', {}))} resource reads, "
                    f"{len(d.get('prompts', {}))} prompts, cancelled={d.get('cancelled')}, "
                    f"callbacks={sorted(k for k, v in d['notifications'].items() if v)}; "
                    f"same results through the proxy: {same}; proxy violations: {len(viol)}; "
                    f"frames c2s/s2c: {summ and summ['c2s']['frames']}/{summ and summ['s2c']['frames']}"
                )
                for v in viol[:10]:
                    print("     ", json.dumps(v))
                if not same:
                    print("      results differ:", os.path.join(a.work, f"{name}-{mode}-direct.json"), os.path.join(a.work, f"{name}-{mode}-proxy.json"))
                if not (same and not viol and summ):
                    failures += 1
    for name, server, modern in () if a.only == "http" else (
        ("everything", servers["everything"], False),
        ("pyserver", servers["pyserver"], False),
        ("pyserver", servers["pyserver"], True),
    ):
        log = os.path.join(a.work, f"inject-{name}-{'modern' if modern else 'legacy'}.log")
        cmd = [py, os.path.join(HERE, "inject.py"), "--mcpwire", a.mcpwire, "--log", log]
        if modern:
            cmd.append("--modern")
        r = subprocess.run(cmd + ["--"] + server, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        text = r.stdout.decode(errors="replace")
        print(f"{'ok  ' if r.returncode == 0 else 'FAIL'} inject {name} ({'2026-07-28' if modern else 'legacy'}):")
        print("".join("      " + l + "\n" for l in text.splitlines()), end="")
        if r.returncode != 0:
            failures += 1
    if a.only != "stdio":
        failures += http_matrix(a, py)
    print("interop: " + ("ok" if failures == 0 else f"{failures} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
