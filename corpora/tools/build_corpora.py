#!/usr/bin/env python3
"""Rebuilds corpora/real, corpora/spec and corpora/legacy from ../shared (byte-exact copies
and line selections, no message rewritten) and writes corpora/hostile (hand-made cases).

Usage (from the repository root): python3 corpora/tools/build_corpora.py [SHARED_DIR]
"""
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "..", "shared")
CAP = os.path.join(SHARED, "captures")
SPEC = os.path.join(SHARED, "spec-examples")

STDIO_SESSIONS = [
    "stdio_py-client_everything_2024-11-05",
    "stdio_py-client_pyserver_2025-03-26",
    "stdio_py-client_everything_2025-06-18",
    "stdio_ts-client_everything_2025-11-25",
    "stdio_py-client_pyserver_2026-07-28",
]
SSE_STREAMS = [
    ("http_py-client_pyserver_2026-07-28", "019-post.sse"),
    ("http_py-client_pyserver_2025-11-25", "006-post.sse"),
    ("http_py-client_pyserver-resumable_2025-11-25", "001-post.sse"),
    ("http_py-client_pyserver-resumable_2025-11-25", "003-get.sse"),
    ("http_ts-client_conformance-harness_sse-retry", "006-get.sse"),
    ("http_ts-client_conformance-harness_elicitation-sep1034-client-defaults", "003-get.sse"),
]
# (session, seq, "request"|"response", output name): HTTP bodies from requests.jsonl.
HTTP_BODIES = [
    ("http_py-client_pyserver_2026-07-28", 1, "request", "server-discover.request.json"),
    ("http_py-client_pyserver_2026-07-28", 1, "response", "server-discover.response.json"),
    ("http_py-client_pyserver_2026-07-28", None, "request", "tools-call.request.json"),
    ("http_py-client_pyserver-json_2025-11-25", None, "response", "initialize.response.json"),
]

LOCAL_NAME_MARKERS = [b"/home/", b"/Users/", b"/tmp/", b"/root/", b"C:\\\\Users"]


def check_neutral(path, data):
    for m in LOCAL_NAME_MARKERS:
        if m in data:
            sys.exit(f"{path}: contains local name marker {m!r}; replace it before copying")


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as f:
        data = f.read()
    check_neutral(src, data)
    with open(dst, "wb") as f:
        f.write(data)


def real():
    out = os.path.join(ROOT, "real")
    shutil.rmtree(out, ignore_errors=True)
    for s in STDIO_SESSIONS:
        for name in ("client-to-server.jsonl", "server-to-client.jsonl"):
            copy(os.path.join(CAP, s, name), os.path.join(out, "stdio", s, name))
    for s, f in SSE_STREAMS:
        copy(os.path.join(CAP, s, f), os.path.join(out, "sse", s, "server-to-client." + f))
    for s, seq, side, name in HTTP_BODIES:
        with open(os.path.join(CAP, s, "requests.jsonl"), "rb") as fh:
            recs = [json.loads(l) for l in fh]
        if seq is None:
            want = "tools/call" if side == "request" else "initialize"
            recs = sorted(recs, key=lambda r: r["seq"])
            if side == "request":
                rec = next(r for r in recs if want.encode() in r["body"].encode()
                           and r["headers"].get("mcp-method") == want)
            else:
                rec = next(r for r in recs if '"protocolVersion"' in (r["response"].get("body") or "")
                           and '"serverInfo"' in (r["response"].get("body") or ""))
        else:
            rec = next(r for r in recs if r["seq"] == seq)
        body = rec["body"] if side == "request" else rec["response"]["body"]
        data = body.encode("utf-8", "surrogatepass")
        check_neutral(name, data)
        d = "client-to-server" if side == "request" else "server-to-client"
        p = os.path.join(out, "http-body", s, f"{d}.{name}")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)


def spec():
    out = os.path.join(ROOT, "spec")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "negative"), exist_ok=True)
    index = [json.loads(l) for l in open(os.path.join(SPEC, "index.jsonl"), "rb")]
    omitted = {(r["file"], r["line"]) for r in index if "meta-omitted" in " ".join(r.get("flags") or [])}
    topics = sorted(f for f in os.listdir(SPEC) if f.endswith(".jsonl") and f != "index.jsonl")
    neg = []
    for sub, files in (("", topics), ("extensions/", ["tasks.jsonl"])):
        for f in files:
            lines = open(os.path.join(SPEC, sub + f), "rb").read().splitlines(keepends=True)
            keep = []
            for i, l in enumerate(lines, 1):
                (neg if (sub + f, i) in omitted else keep).append((sub + f, i, l))
            name = ("extension-" if sub else "") + f
            with open(os.path.join(out, name), "wb") as fh:
                fh.writelines(l for _, _, l in keep)
    with open(os.path.join(out, "negative", "meta-omitted.jsonl"), "wb") as fh:
        fh.writelines(l for _, _, l in neg)
    with open(os.path.join(out, "negative", "meta-omitted.sources.txt"), "w") as fh:
        for f, i, _ in neg:
            fh.write(f"spec-examples/{f}:{i}\n")


def legacy():
    out = os.path.join(ROOT, "legacy")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for rev in ("2025-11-25", "2025-06-18"):
        d = os.path.join(SPEC, "legacy", rev)
        with open(os.path.join(out, f"spec-{rev}.jsonl"), "wb") as fh:
            for f in sorted(os.listdir(d)):
                fh.write(open(os.path.join(d, f), "rb").read())
    # JSON-RPC 2.0 batch examples (legal up to MCP 2025-03-26), request side only.
    with open(os.path.join(SHARED, "ext", "jsonrpc2-examples.jsonl"), "rb") as fh:
        ex = [json.loads(l) for l in fh]
    with open(os.path.join(out, "jsonrpc2-batches-2025-03-26.jsonl"), "wb") as fh:
        for e in ex:
            if e.get("batch"):
                fh.write(e["request"].encode() + b"\n")


if __name__ == "__main__":
    real()
    spec()
    legacy()
    print("ok")
