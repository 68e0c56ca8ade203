#!/usr/bin/env bash
# The whole benchmark run behind PERF.md: criterion benches (portable build, then
# `-C target-cpu=native` into target/native), callgrind instruction counts, and the tables.
#
# Usage: scripts/bench.sh [--quick] [OUTDIR]
#   --quick   short mode (MCPWIRE_BENCH_QUICK=1: 10 samples, 0.5 s per bench; peers + floors
#             + batch took 66 s on the 2-core dev VM vs ~10 min in full mode)
#   OUTDIR    where the report and logs go (default target/bench-report)
# Env: BENCHES="peers floors batch framing" (which bench targets; framing is skipped if the
#      target does not exist), SKIP_NATIVE=1, SKIP_CALLGRIND=1.
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0
if [[ "${1:-}" == "--quick" ]]; then QUICK=1; shift; fi
OUT=${1:-target/bench-report}
mkdir -p "$OUT"
export MCPWIRE_BENCH_QUICK=$QUICK
BENCHES=${BENCHES:-peers floors batch framing}
ARGS=()
for b in $BENCHES; do
  if [[ -f "benches/$b.rs" ]]; then ARGS+=(--bench "$b"); fi
done
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "nproc: $(nproc)"
  echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512bw|avx512vl|avx512vbmi|pclmulqdq|vpclmulqdq|sse4_2|bmi2)$' | tr '\n' ' ')"
  echo "rustc: $(rustc -V)"
  echo "uptime before: $(uptime)"
} | tee "$OUT/machine.txt"

echo "== portable build: cargo bench ${ARGS[*]}"
CARGO_TARGET_DIR=target cargo bench "${ARGS[@]}" 2>&1 | tee "$OUT/portable.log" | grep -E '^(small|medium|large|batch|stream)|time:|thrpt:' || true

if [[ "${SKIP_NATIVE:-0}" != 1 ]]; then
  echo "== native build: RUSTFLAGS='-C target-cpu=native' CARGO_TARGET_DIR=target/native cargo bench ${ARGS[*]}"
  RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo bench "${ARGS[@]}" 2>&1 \
    | tee "$OUT/native.log" | grep -E 'time:' || true
fi

if [[ "${SKIP_CALLGRIND:-0}" != 1 ]]; then
  echo "== callgrind"
  scripts/callgrind.sh "$OUT/icount"
fi
echo "uptime after: $(uptime)" | tee -a "$OUT/machine.txt"
NATIVE_DIR=target/native/criterion
[[ "${SKIP_NATIVE:-0}" == 1 ]] && NATIVE_DIR=-
scripts/bench-report.sh target/criterion "$NATIVE_DIR" "$OUT/icount/icount.csv" | tee "$OUT/report.md"
