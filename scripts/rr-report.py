#!/usr/bin/env python3
"""Tables for PERF.md from several round-robin runs of benches/peers.rs.

Usage: scripts/rr-report.py DIR...   (each DIR holds one run's roundrobin.csv, written with
MCPWIRE_BENCH_RR=1 MCPWIRE_BENCH_OUT=DIR)

Per class and implementation: best p10 (lowest 10th percentile of the runs), median of the
runs' medians, and peer time / mcpwire time for both. Then, per run, the best fully
validating peer's median / mcpwire's median (ratios inside one run are steadier than ratios
of aggregates on a noisy machine) and the median of those per-run ratios.
"""
import csv
import statistics
import sys
from collections import defaultdict

# Peers that validate the whole frame (RFC 8259 + UTF-8 everywhere); see PERF.md §3.
FULL = {"serde_value", "serde_peek_utf8", "simd_borrowed", "simd_tape", "sonic_value"}
VALIDATES = {
    "serde_raw_2pass": "full−U",
    "serde_peek": "full−U",
    "sonic_get_many": "partial",
}

runs = []
for d in sys.argv[1:]:
    rows = defaultdict(dict)
    with open(f"{d}/roundrobin.csv") as f:
        for r in csv.DictReader(f):
            rows[r["class"]][r["impl"]] = (
                float(r["median_ns_per_msg"]),
                float(r["p10_ns_per_msg"]),
                float(r["mb_per_s"]),
            )
    runs.append(rows)

classes = []
for r in runs:
    for c in r:
        if c not in classes:
            classes.append(c)

for c in classes:
    per = [r[c] for r in runs if c in r]
    impls = list(per[0].keys())
    best_p10 = {i: min(p[i][1] for p in per) for i in impls}
    med = {i: statistics.median(p[i][0] for p in per) for i in impls}
    # MB/s at best p10: bytes per message is fixed per class, recover it from the first run.
    mb = {i: per[0][i][2] * per[0][i][0] / best_p10[i] for i in impls}
    o10, om = best_p10["mcpwire"], med["mcpwire"]
    print(f"\n##### {c} ({len(per)} runs)\n")
    print("| impl | validates | best p10 ns/msg | MB/s at best p10 | median of medians ns/msg "
          "| peer ÷ mcpwire (best p10) | peer ÷ mcpwire (medians) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for i in sorted(impls, key=lambda i: best_p10[i]):
        v = VALIDATES.get(i, "full")
        print(f"| {i} | {v} | {best_p10[i]:,.0f} | {mb[i]:,.0f} | {med[i]:,.0f} "
              f"| {best_p10[i] / o10:.2f} | {med[i] / om:.2f} |")
    ratios_med, ratios_p10 = [], []
    for p in per:
        full = [i for i in p if i in FULL]
        ratios_med.append(min(p[i][0] for i in full) / p["mcpwire"][0])
        ratios_p10.append(min(p[i][1] for i in full) / p["mcpwire"][1])
    print(f"\nbest fully validating peer ÷ mcpwire per run, medians: "
          f"{', '.join(f'{x:.2f}' for x in ratios_med)} (median {statistics.median(ratios_med):.2f}); "
          f"p10s: {', '.join(f'{x:.2f}' for x in ratios_p10)} (median {statistics.median(ratios_p10):.2f})")
    p10s = ", ".join(f"{p['mcpwire'][1]:,.0f}" for p in per)
    print(f"mcpwire p10 per run (ns/msg): {p10s}")
