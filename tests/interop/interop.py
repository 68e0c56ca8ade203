"""Interop matrix for `mcpwire proxy stdio` with real MCP peers (run by .ci/interop.sh).

For each server (@modelcontextprotocol/server-everything on Node, tests/interop/py_server.py
on the Python SDK) and each client mode (auto = server/discover first, legacy = initialize),
session.py runs a full session once directly and once through the proxy; the normalised
results must be equal and the proxy log must hold zero violations. Then inject.py checks the
error replies for deliberately broken messages.

  python interop.py --mcpwire PATH --everything PATH/TO/dist/index.js --work DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Wall-clock times the everything server prints into resource texts.
VOLATILE = re.compile(r"\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b")


def normalised(path):
    with open(path) as f:
        return json.loads(VOLATILE.sub("<time>", f.read()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpwire", required=True)
    ap.add_argument("--everything", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    py = sys.executable
    servers = {
        "everything": ["node", a.everything, "stdio"],
        "pyserver": [py, "-W", "ignore", os.path.join(HERE, "py_server.py")],
    }
    failures = 0
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
    for name, server, modern in (
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
    print("interop: " + ("ok" if failures == 0 else f"{failures} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
