#!/usr/bin/env python3
"""Deterministic generator of the benchmark corpora in corpora/bench/.

Writes NDJSON files (one MCP message per line, LF) modelled on the real 2026-07-28 traffic in
../shared/captures (Python SDK 2.3.0 client and server: member order, `_meta` keys, result
shapes), plus a capture-stream file cut from the real captures themselves:

  small.jsonl   1024 frames, ~200 B: progress / log notifications, tools/call and
                resources/read requests with `_meta`, small tools/call results, errors.
  medium.jsonl   128 frames, ~4 KB: tools/list results with input/output schemas,
                tools/call results with 2-4 KB of code text, tools/call requests with a
                2-3.5 KB argument; `_meta` first in some, last in most.
  large.jsonl      8 frames, ~150 KB: resources/read results with a 96-150 KiB base64 blob
                and tools/call results with 100-160 KiB of code text; `_meta` after the
                payload in most, before it in some.
  capture-stream.jsonl  real SDK traffic (see CAPTURE_SOURCES), only when ../shared/captures
                exists; lines over 64 KiB are left out to keep the file small.

Usage: python3 corpora/bench/generate.py [--shared PATH]
Same seed, same bytes: the output is checked into git and must not change unless this script
changes.
"""

import argparse
import base64
import json
import os
import random

SEED = 20260728
HERE = os.path.dirname(os.path.abspath(__file__))

PROTO = "2026-07-28"
CLIENT_INFO = {"name": "capture-py-client", "version": "1.0.0"}
CLIENT_CAPS_FULL = {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}}
SERVER_INFO = {"name": "capture-py-server", "title": "Capture fixture server", "version": "1.0.0"}

WORDS = ("alpha beta gamma delta request server client tool resource prompt token stream "
         "frame buffer parse value schema result error cache index shard batch queue").split()
NON_ASCII = ["é", "中文", "🚀", "ü", "ß", "Ω", "\u2028", "ñ", "✓"]


def dumps(obj):
    # Python SDK wire form: no spaces, raw UTF-8 (ensure_ascii=False), insertion order.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def req_meta(rng, full, progress_token=None):
    meta = {"io.modelcontextprotocol/protocolVersion": PROTO}
    if full:
        meta["io.modelcontextprotocol/clientInfo"] = CLIENT_INFO
        meta["io.modelcontextprotocol/clientCapabilities"] = CLIENT_CAPS_FULL
        meta["io.modelcontextprotocol/logLevel"] = rng.choice(["debug", "info", "warning"])
    else:
        meta["io.modelcontextprotocol/clientCapabilities"] = {}
    if progress_token is not None:
        meta["progressToken"] = progress_token
    return meta


def res_meta():
    return {"io.modelcontextprotocol/serverInfo": SERVER_INFO}


def sentence(rng, n):
    out = []
    for _ in range(n):
        w = rng.choice(WORDS)
        if rng.random() < 0.04:
            w += rng.choice(NON_ASCII)
        out.append(w)
    return " ".join(out)


def code_text(rng, size):
    """Source-code-like text of about `size` bytes: newlines, quotes, tabs, backslashes."""
    lines = []
    total = 0
    indent = 0
    while total < size:
        kind = rng.random()
        name = rng.choice(WORDS) + "_" + str(rng.randrange(100))
        if kind < 0.15:
            line = "def %s(%s, %s):" % (name, rng.choice(WORDS), rng.choice(WORDS))
            indent = 4
        elif kind < 0.35:
            line = ' ' * indent + '%s = "%s"' % (name, sentence(rng, rng.randrange(2, 8)))
        elif kind < 0.5:
            line = ' ' * indent + 'print(f"{%s}\\t%s")' % (name, rng.choice(WORDS))
        elif kind < 0.6:
            line = ' ' * indent + "# " + sentence(rng, rng.randrange(3, 12))
        elif kind < 0.7:
            line = "\t" + 'path = "C:\\\\temp\\\\%s"' % name
        elif kind < 0.8:
            line = ' ' * indent + "return {%r: %d, 'ok': True}" % (name, rng.randrange(10**6))
        else:
            line = ' ' * indent + "%s += %s(%d)" % (name, rng.choice(WORDS), rng.randrange(1000))
        lines.append(line)
        total += len(line.encode("utf-8")) + 1
    return "\n".join(lines)


def make_id(rng, counter):
    # Python client: integers from 1; the odd string id (subscriptions/listen style).
    if rng.random() < 0.05:
        return "listen-%d" % counter
    return counter


def envelope(rng, members, id_last=False):
    """Python order: jsonrpc, id, method/result/error; TS order (id_last): payload, jsonrpc, id."""
    if id_last:
        out = {k: v for k, v in members.items() if k not in ("jsonrpc", "id")}
        out["jsonrpc"] = "2.0"
        if "id" in members:
            out["id"] = members["id"]
        return out
    return members


# ---------------------------------------------------------------- small (~200 B)

def small_frame(rng, i):
    r = rng.random()
    id_last = rng.random() < 0.15
    if r < 0.35:
        total = rng.choice([3, 5, 10, 100])
        p = rng.randrange(1, total + 1)
        params = {"progressToken": rng.choice([rng.randrange(1, 500), "tok-%d" % rng.randrange(99)]),
                  "progress": p, "total": total, "message": "step %d of %d" % (p, total)}
        if rng.random() < 0.3:
            params["_meta"] = {"io.modelcontextprotocol/subscriptionId": "listen-%d" % rng.randrange(9)}
        m = {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
    elif r < 0.60:
        tool = rng.choice(["echo", "add", "weather", "inventory", "search"])
        if tool == "add":
            args = {"a": rng.randrange(-50, 500), "b": rng.randrange(1000)}
        elif tool == "weather":
            args = {"city": rng.choice(["Lisbon", "Zürich", "東京", "Oslo"])}
        else:
            args = {"text": sentence(rng, rng.randrange(1, 6))}
        params = {"name": tool, "arguments": args,
                  "_meta": req_meta(rng, rng.random() < 0.25,
                                    rng.randrange(1, 999) if rng.random() < 0.6 else None)}
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1), "method": "tools/call", "params": params}
    elif r < 0.75:
        text = rng.choice([str(rng.randrange(10**5)), sentence(rng, rng.randrange(1, 5)),
                           'line1\nline2\r\nquote" tab\t \u0001 é 🚀'])
        res = {"content": [{"text": text, "type": "text"}], "isError": rng.random() < 0.1,
               "resultType": "complete"}
        if rng.random() < 0.3:
            res["structuredContent"] = {"result": text}
        if rng.random() < 0.5:
            res["_meta"] = res_meta()
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1), "result": res}
    elif r < 0.85:
        uri = rng.choice(["capture://docs/readme", "file:///srv/data/%s.json" % rng.choice(WORDS),
                          "capture://users/%d/profile" % rng.randrange(100)])
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1), "method": "resources/read",
             "params": {"uri": uri, "_meta": req_meta(rng, False)}}
    elif r < 0.95:
        m = {"jsonrpc": "2.0", "method": "notifications/message",
             "params": {"level": rng.choice(["info", "debug", "warning", "error"]),
                        "logger": rng.choice(["mcp.server", "tools"]),
                        "data": sentence(rng, rng.randrange(2, 10))}}
    else:
        code, msg = rng.choice([(-32601, "Method not found"), (-32602, "Invalid params"),
                                (-32603, "Internal error"), (-32022, "Unsupported protocol version")])
        err = {"code": code, "message": msg}
        if rng.random() < 0.5:
            err["data"] = rng.choice(["ping", {"uri": "capture://nope"},
                                      {"supported": [PROTO], "requested": "2025-11-25"}])
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1), "error": err}
    return envelope(rng, m, id_last)


# ---------------------------------------------------------------- medium (~4 KB)

def schema_props(rng, n):
    props = {}
    for _ in range(n):
        name = rng.choice(WORDS) + "_" + rng.choice(WORDS)
        t = rng.choice(["string", "integer", "number", "boolean", "array", "object"])
        p = {"title": name.replace("_", " ").title(), "type": t}
        if t == "array":
            p["items"] = {"type": rng.choice(["string", "number"])}
        if t == "integer" and rng.random() < 0.5:
            p["minimum"] = 0
            p["maximum"] = rng.randrange(10, 10000)
        if rng.random() < 0.4:
            p["description"] = sentence(rng, rng.randrange(3, 12))
        if rng.random() < 0.2:
            p["default"] = {"string": "", "integer": 0, "number": 0.5, "boolean": False,
                            "array": [], "object": {}}[t]
        props[name] = p
    return props


def tool_def(rng):
    name = rng.choice(WORDS) + "_" + rng.choice(WORDS)
    inp = schema_props(rng, rng.randrange(1, 6))
    out = schema_props(rng, rng.randrange(1, 4))
    t = {"description": sentence(rng, rng.randrange(5, 25)),
         "inputSchema": {"type": "object", "properties": inp,
                         "required": sorted(inp)[: rng.randrange(1, len(inp) + 1)],
                         "title": name + "Arguments"},
         "name": name}
    if rng.random() < 0.7:
        t["outputSchema"] = {"properties": out, "required": sorted(out), "title": name + "Output",
                             "type": "object"}
    if rng.random() < 0.3:
        t["annotations"] = {"readOnlyHint": True, "idempotentHint": rng.random() < 0.5}
    if rng.random() < 0.2:
        t["execution"] = {"taskSupport": "optional"}
    return t


def with_meta(res, meta, first):
    if first:
        out = {"_meta": meta}
        out.update(res)
        return out
    res["_meta"] = meta
    return res


def medium_frame(rng, i):
    r = rng.random()
    id_last = rng.random() < 0.15
    meta_first = rng.random() < 0.3
    if r < 0.5:
        tools = []
        target = rng.randrange(2200, 6400)
        while len(dumps(tools)) < target - 250:
            tools.append(tool_def(rng))
        res = {"cacheScope": "private", "resultType": "complete", "tools": tools, "ttlMs": 0}
        if rng.random() < 0.3:
            res["nextCursor"] = base64.b64encode(rng.randbytes(12)).decode()
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1),
             "result": with_meta(res, res_meta(), meta_first)}
    elif r < 0.8:
        text = code_text(rng, rng.randrange(2000, 4000))
        res = {"content": [{"text": text, "type": "text"}], "isError": False,
               "resultType": "complete"}
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1),
             "result": with_meta(res, res_meta(), meta_first)}
    else:
        arg = code_text(rng, rng.randrange(2000, 3500))
        params = {"name": rng.choice(["run_python", "format_code", "lint"]),
                  "arguments": {"code": arg, "language": "python"}}
        m = {"jsonrpc": "2.0", "id": make_id(rng, i + 1), "method": "tools/call",
             "params": with_meta(params, req_meta(rng, True, rng.randrange(1, 999)), meta_first)}
    return envelope(rng, m, id_last)


# ---------------------------------------------------------------- large (~150 KB)

def large_frame(rng, i):
    meta_first = i in (2, 5, 7)  # `_meta` after the payload in the other five
    if i % 2 == 0:
        blob = base64.b64encode(rng.randbytes(rng.randrange(72 * 1024, 112 * 1024))).decode()
        res = {"contents": [{"blob": blob, "mimeType": "application/octet-stream",
                             "uri": "capture://blobs/random-%d.bin" % i}],
               "resultType": "complete", "ttlMs": 0}
    else:
        text = code_text(rng, rng.randrange(100 * 1024, 160 * 1024))
        res = {"content": [{"text": text, "type": "text"}], "isError": False,
               "resultType": "complete"}
    return {"jsonrpc": "2.0", "id": make_id(rng, i + 1),
            "result": with_meta(res, res_meta(), meta_first)}


# ---------------------------------------------------------------- real capture stream

CAPTURE_SOURCES = [
    "stdio_py-client_pyserver_2026-07-28/client-to-server.jsonl",
    "stdio_py-client_pyserver_2026-07-28/server-to-client.jsonl",
    "stdio_ts-client_everything_2025-11-25/client-to-server.jsonl",
    "stdio_ts-client_everything_2025-11-25/server-to-client.jsonl",
    "stdio_py-client_everything_auto/client-to-server.jsonl",
    "stdio_py-client_everything_auto/server-to-client.jsonl",
    "stdio_py-client_pyserver_2025-06-18/client-to-server.jsonl",
    "stdio_py-client_pyserver_2025-06-18/server-to-client.jsonl",
]
CAPTURE_MAX_LINE = 64 * 1024


def write(path, frames):
    data = b"".join(f.encode("utf-8") + b"\n" for f in frames)
    with open(path, "wb") as fh:
        fh.write(data)
    sizes = [len(f.encode("utf-8")) for f in frames]
    print("%-22s %5d frames %9d bytes  min/avg/max %d/%d/%d" % (
        os.path.basename(path), len(frames), len(data), min(sizes), sum(sizes) // len(sizes),
        max(sizes)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "..", "shared"))
    args = ap.parse_args()

    rng = random.Random(SEED)
    write(os.path.join(HERE, "small.jsonl"), [dumps(small_frame(rng, i)) for i in range(1024)])
    rng = random.Random(SEED + 1)
    write(os.path.join(HERE, "medium.jsonl"), [dumps(medium_frame(rng, i)) for i in range(128)])
    rng = random.Random(SEED + 2)
    write(os.path.join(HERE, "large.jsonl"), [dumps(large_frame(rng, i)) for i in range(8)])

    captures = os.path.join(args.shared, "captures")
    if not os.path.isdir(captures):
        print("capture-stream.jsonl: skipped (%s not found)" % captures)
        return
    lines = []
    for rel in CAPTURE_SOURCES:
        with open(os.path.join(captures, rel), "rb") as fh:
            for line in fh.read().split(b"\n"):
                if line and len(line) <= CAPTURE_MAX_LINE:
                    lines.append(line.decode("utf-8"))
    write(os.path.join(HERE, "capture-stream.jsonl"), lines)


if __name__ == "__main__":
    main()
