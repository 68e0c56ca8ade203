#!/usr/bin/env bash
# Multi-core scaling of batch validation, from a prebuilt bench binary (no cargo needed).
#
# Usage: scripts/bench-scaling.sh BATCH_BIN OUTDIR [THREADS]
#   BATCH_BIN  the compiled benches/batch.rs binary: `cargo bench --bench batch --no-run`
#              prints its path (target/release/deps/batch-<hash>)
#   OUTDIR     results: batch.csv (GB/s and msgs/s per implementation and thread count),
#              batch.log (criterion output), machine.txt, criterion/ (raw estimates)
#   THREADS    comma list (default 1,2,4,8,16 capped at nproc, plus nproc)
# Env passed through: MCPWIRE_BENCH_QUICK=1 (short mode), MCPWIRE_SHARED (folder holding
# captures/ for the `shared` stream), MCPWIRE_BENCH_STREAM (an extra NDJSON file).
set -euo pipefail
BIN=${1:?usage: bench-scaling.sh BATCH_BIN OUTDIR [THREADS]}
OUT=${2:?usage: bench-scaling.sh BATCH_BIN OUTDIR [THREADS]}
N=$(nproc)
if [[ -n "${3:-}" ]]; then THREADS=$3; else
  THREADS=""
  for t in 1 2 4 8 16; do (( t <= N )) && THREADS+="${THREADS:+,}$t"; done
  [[ ",$THREADS," == *",$N,"* ]] || THREADS+=",$N"
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "nproc: $N"
  echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512bw|avx512vl|pclmulqdq|sse4_2|bmi2)$' | tr '\n' ' ')"
  echo "threads: $THREADS"
  echo "uptime: $(uptime)"
} | tee "$OUT/machine.txt"
CRITERION_HOME="$OUT/criterion" MCPWIRE_BENCH_OUT="$OUT" MCPWIRE_BENCH_THREADS="$THREADS" \
  "$BIN" --bench 2>&1 | tee "$OUT/batch.log" | grep -E '^(batch|stream)|GB/s|µs' || true
echo "results: $OUT/batch.csv"
