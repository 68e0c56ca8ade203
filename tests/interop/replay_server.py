"""Replays the server side of a recorded stdio session (captures/stdio_*/server-to-client.jsonl)
for the overhead measurement (overhead.py): when a request arrives, it writes the recorded
server messages that led up to and include that request's response, with the id of the
request as received (recorded id = received id % 100000).

  python replay_server.py CAPTURE_DIR
"""
import json
import sys

cap = sys.argv[1]
groups = {}
pending = []
with open(f"{cap}/server-to-client.jsonl", "rb") as f:
    for line in f:
        m = json.loads(line)
        pending.append(m)
        if "id" in m and "method" not in m:
            groups[m["id"]] = pending
            pending = []

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    m = json.loads(line)
    rid = m.get("id")
    if rid is None or "method" not in m:
        continue
    g = groups.get(rid % 100000 if isinstance(rid, int) else rid)
    if not g:
        continue
    buf = []
    for x in g:
        if "id" in x and "method" not in x:
            x = dict(x, id=rid)
        buf.append(json.dumps(x, separators=(",", ":")).encode())
    out.write(b"\n".join(buf) + b"\n")
    out.flush()
