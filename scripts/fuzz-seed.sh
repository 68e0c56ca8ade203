#!/usr/bin/env bash
# (Re)creates the seed files of fuzz/corpus/<target>/ from the project's corpora/ and, when
# present, ../shared (captures, spec examples, JSONTestSuite, JSON-RPC examples).
#
# Seeds are named seed-<source>-<n>; files the fuzzer added (40-hex names) are kept. Stream
# targets (ndjson, sse) take the input layout of mcpwire::oracle::targets::split_input:
#   byte 0: number of read boundaries k (mod 32); byte 1: frame-limit selector;
#   then k little-endian u16 boundaries; then the stream. Seeds use the real read boundaries
#   recorded in captures/*/chunks.jsonl where there are some.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="${MCPWIRE_SHARED:-$ROOT/../shared}"
exec python3 - "$ROOT" "$SHARED" <<'PY'
import glob, hashlib, json, os, struct, sys

root, shared = sys.argv[1], sys.argv[2]
corpus = os.path.join(root, "fuzz", "corpus")
have_shared = os.path.isdir(shared)
if not have_shared:
    print(f"note: {shared} not found; seeding from corpora/ only")

MAX_FRAME = 16384
MAX_STREAM = 65536 - 2 - 64

def reset(target):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    for f in glob.glob(os.path.join(d, "seed-*")):
        os.remove(f)
    return d

seen = {}
def put(target, source, data):
    key = (target, hashlib.sha1(data).hexdigest())
    if key in seen:
        return
    n = sum(1 for k in seen if k[0] == target)
    seen[key] = True
    with open(os.path.join(corpus, target, f"seed-{source}-{n:04}"), "wb") as f:
        f.write(data)

def stream_input(stream, boundaries, limit_sel=0):
    b = sorted(set(x for x in boundaries if 0 < x < len(stream) and x < 65536))[:31]
    return bytes([len(b), limit_sel]) + b"".join(struct.pack("<H", x) for x in b) + stream

frames = []  # (source, bytes)
def add_frames_from_jsonl(path, source):
    with open(path, "rb") as f:
        for line in f:
            line = line.rstrip(b"\n").rstrip(b"\r")
            if line and len(line) <= MAX_FRAME:
                frames.append((source, line))

# The project's own corpora/: *.jsonl streams of frames (also NDJSON stream seeds), *.sse
# event streams, *.json single frames (e.g. hostile/fuzz-*.json crash cases).
corpora_streams = {"ndjson": [], "sse": []}
for path in sorted(glob.glob(os.path.join(root, "corpora", "**", "*"), recursive=True)):
    # fuzz-*.json are crash cases: they live in fuzz/regressions/ (replayed there).
    if not os.path.isfile(path) or "/tools/" in path or os.path.basename(path).startswith("fuzz-"):
        continue
    data = open(path, "rb").read()
    if path.endswith(".jsonl"):
        add_frames_from_jsonl(path, "corpora")
        if len(data) > MAX_STREAM:
            data = data[: data.rfind(b"\n", 0, MAX_STREAM) + 1]
        corpora_streams["ndjson"].append(data)
    elif path.endswith(".sse"):
        corpora_streams["sse"].append(data[:MAX_STREAM])
    elif path.endswith(".json") and len(data) <= MAX_FRAME:
        frames.append(("corpora", data))

if have_shared:
    for path in sorted(glob.glob(os.path.join(shared, "ext", "JSONTestSuite", "test_parsing", "*.json"))):
        frames.append(("jsontestsuite", open(path, "rb").read()))
    for path in sorted(glob.glob(os.path.join(shared, "spec-examples", "**", "*.jsonl"), recursive=True)):
        add_frames_from_jsonl(path, "spec")
    with open(os.path.join(shared, "ext", "jsonrpc2-examples.jsonl")) as f:
        for line in f:
            ex = json.loads(line)
            frames.append(("jsonrpc2", ex["request"].encode()))
    for path in sorted(glob.glob(os.path.join(shared, "captures", "*", "*.jsonl"))):
        if os.path.basename(path) in ("client-to-server.jsonl", "server-to-client.jsonl"):
            add_frames_from_jsonl(path, "capture")

# Frame targets: every distinct frame (captures: at most 400, they repeat shapes).
for t in ("envelope", "scalar_vs_simd", "profile", "envelope_structured"):
    reset(t)
caps = 0
for source, data in frames:
    if source == "capture":
        caps += 1
        if caps > 400:
            continue
    for t in ("envelope", "scalar_vs_simd", "profile"):
        put(t, source, data)
# Structured: the bytes decode into some model; a sample keeps the corpus small.
for i, (source, data) in enumerate(frames):
    if i % 8 == 0:
        put("envelope_structured", source, data)

# NDJSON: stdio captures with their real read boundaries, cut at a line end.
reset("ndjson")
reset("sse")
if have_shared:
    for d in sorted(glob.glob(os.path.join(shared, "captures", "stdio_*"))):
        chunks = [json.loads(l) for l in open(os.path.join(d, "chunks.jsonl"))]
        for direction, name in (("c2s", "client-to-server.jsonl"), ("s2c", "server-to-client.jsonl")):
            data = open(os.path.join(d, name), "rb").read()
            if len(data) > MAX_STREAM:
                data = data[: data.rfind(b"\n", 0, MAX_STREAM) + 1]
            bounds = [c["off"] for c in chunks if c["dir"] == direction]
            put("ndjson", "capture", stream_input(data, bounds))
    # SSE: HTTP captures, with boundaries inside CRLF pairs and at every 7th byte.
    for path in sorted(glob.glob(os.path.join(shared, "captures", "http_*", "*.sse"))):
        data = open(path, "rb").read()[:MAX_STREAM]
        crlf = [i + 1 for i in range(len(data) - 1) if data[i:i + 2] == b"\r\n"]
        put("sse", "capture", stream_input(data, crlf[:16] + list(range(7, len(data), 7))[:15]))
for t in ("ndjson", "sse"):
    for data in corpora_streams[t]:
        put(t, "corpora", stream_input(data, [1, 2, 5, 64, 65, 66, 4096]))
# Hand-written stream seeds: CR/LF/CRLF mixes, blank lines, BOM, comments, unterminated ends.
for s in (b'{"a":1}\n\n\r\n{"b":2}\r\n{"c":3}', b"x\r\ry\n\xef\xbb\xbf{}\n"):
    put("ndjson", "hand", stream_input(s, [1, 8, 9, 10]))
    put("ndjson", "hand", stream_input(s, [3], limit_sel=129))
for s in (b"\xef\xbb\xbfdata: {}\r\n\r\n", b": keep-alive\r\rdata\rdata: x\r\n\nid: 1\nretry: 5\n\n",
          b"event: message\ndata: {\"jsonrpc\":\"2.0\"}\ndata:\n\n:\ndata: tail"):
    put("sse", "hand", stream_input(s, [1, 2, 3, 17, 18]))
for t in ("envelope", "envelope_structured", "ndjson", "sse", "scalar_vs_simd", "profile"):
    print(t, len(glob.glob(os.path.join(corpus, t, "seed-*"))), "seeds")
PY
