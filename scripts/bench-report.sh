#!/usr/bin/env bash
# Turns criterion results into the PERF.md tables: per message class, each implementation's
# median ns/msg and MB/s (10^6 bytes of frame payload per second, LF excluded), its ratio to
# mcpwire in the same run (time of the peer / time of mcpwire: > 1 means mcpwire is faster),
# and callgrind instructions per message when an icount.csv is given.
#
# Usage: scripts/bench-report.sh PORTABLE_CRITERION_DIR [NATIVE_CRITERION_DIR|-] [ICOUNT_CSV]
#   e.g. scripts/bench-report.sh target/criterion target/native/criterion target/icount/icount.csv
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import csv, json, os, sys

port = sys.argv[1]
native = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
icsv = sys.argv[3] if len(sys.argv) > 3 else None
VALID = {
    "mcpwire": "full", "mcpwire_avx512": "full", "mcpwire_avx2": "full", "mcpwire_scalar": "full",
    "serde_value": "full", "serde_raw_2pass": "full−U", "serde_peek": "full−U",
    "serde_peek_utf8": "full", "simd_borrowed": "full", "simd_tape": "full",
    "sonic_get_many": "partial", "sonic_value": "full",
    "memchr_newlines": "floor", "simdutf8": "floor (UTF-8)", "std_from_utf8": "floor (UTF-8)",
    "memcpy": "floor",
}
def frames_of(cls):
    with open(os.path.join("corpora/bench", cls + ".jsonl"), "rb") as f:
        return sum(1 for l in f.read().split(b"\n") if l)

def load(home):
    out = {}
    if not home or not os.path.isdir(home):
        return out
    for root, dirs, files in os.walk(home):
        if root.endswith(os.sep + "new") and "benchmark.json" in files:
            b = json.load(open(os.path.join(root, "benchmark.json")))
            e = json.load(open(os.path.join(root, "estimates.json")))
            out[(b["group_id"], b["function_id"])] = (
                e["median"]["point_estimate"], (b.get("throughput") or {}).get("Bytes"))
    return out

P, N = load(port), load(native)
IR = {}
if icsv and os.path.exists(icsv):
    for r in csv.DictReader(open(icsv)):
        IR[(r["impl"], r["class"])] = float(r["ir_per_msg"])

def fmt_ns(ns):
    return f"{ns:,.0f}" if ns >= 100 else f"{ns:.1f}"

for cls in ("small", "medium", "large"):
    n = frames_of(cls)
    rows = [(f, v) for (g, f), v in P.items() if g in (f"envelope/{cls}", f"floors/{cls}")]
    if not rows:
        continue
    ours = P.get((f"envelope/{cls}", "mcpwire"))
    ours_n = N.get((f"envelope/{cls}", "mcpwire"))
    print(f"\n#### {cls} ({n} frames, {rows[0][1][1]:,} bytes)\n")
    hdr = "| impl | validates | ns/msg | MB/s | peer ÷ mcpwire |"
    sep = "|---|---|---:|---:|---:|"
    if N:
        hdr += " native ns/msg | native MB/s | native peer ÷ mcpwire |"
        sep += "---:|---:|---:|"
    if IR:
        hdr += " Ir/msg |"
        sep += "---:|"
    print(hdr); print(sep)
    rows.sort(key=lambda r: (VALID.get(r[0], "").startswith("floor"), r[1][0]))
    for f, (ns, by) in rows:
        g = f"envelope/{cls}" if (f"envelope/{cls}", f) in P else f"floors/{cls}"
        line = f"| {f} | {VALID.get(f, '?')} | {fmt_ns(ns / n)} | {by / ns * 1e3:,.0f} |"
        line += f" {ns / ours[0]:.2f} |" if ours else " – |"
        if N:
            nv = N.get((g, f))
            if nv:
                line += f" {fmt_ns(nv[0] / n)} | {nv[1] / nv[0] * 1e3:,.0f} |"
                line += f" {nv[0] / ours_n[0]:.2f} |" if ours_n else " – |"
            else:
                line += " – | – | – |"
        if IR:
            key = "floor_simdutf8" if f == "simdutf8" else f
            line += f" {IR[(key, cls)]:,.0f} |" if (key, cls) in IR else " – |"
        print(line)

batch = sorted((g, f, v) for (g, f), v in P.items() if g.startswith("batch_"))
if batch:
    print("\n#### batch (whole streams)\n")
    print("| stream | impl / threads | median | GB/s |"); print("|---|---|---:|---:|")
    for g, f, (ns, by) in batch:
        print(f"| {g[6:]} | {f} | {ns / 1e3:,.1f} µs | {by / ns:.3f} |")
PY
