#!/usr/bin/env bash
# Instruction counts per message (callgrind "Ir") for mcpwire and its peers, per message
# class: a stable second figure next to the noisy wall-clock medians of `cargo bench`.
#
# Usage: scripts/callgrind.sh [OUTDIR] [IMPL...]
#   OUTDIR  where callgrind.out.* and icount.md/icount.csv go (default target/icount)
#   IMPL    implementations to count (default: mcpwire simd_tape serde_peek_utf8
#           sonic_get_many floor_simdutf8; `--list` on the icount binary lists all)
# Env: ICOUNT_BIN=path to a prebuilt icount bench binary (skips cargo);
#      ICOUNT_PASSES="small=4 medium=4 large=3" passes over each class;
#      ICOUNT_CLASSES="small medium large" (also: capture = corpora/bench/capture-stream.jsonl,
#      file:PATH = any NDJSON file; those get 2 passes unless ICOUNT_PASSES says otherwise).
#
# Only `icount_measured*` is collected (setup, the field check and a warm-up pass are
# excluded). Valgrind does not emulate AVX-512, so run-time dispatch picks the AVX2 (or
# lower) path under callgrind: these counts are for that path, portable build only (a
# `-C target-cpu=native` binary would use AVX-512 instructions valgrind cannot run).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/icount}
shift || true
mkdir -p "$OUT"
if [[ $# -gt 0 ]]; then IMPLS=("$@"); else
  IMPLS=(mcpwire simd_tape serde_peek_utf8 sonic_get_many floor_simdutf8)
fi
BIN=${ICOUNT_BIN:-}
if [[ -z "$BIN" ]]; then
  BIN=$(nice -n 10 cargo bench --bench icount --no-run --message-format=json 2>/dev/null \
    | grep -o '"executable":"[^"]*/icount-[^"]*"' | tail -1 | cut -d'"' -f4)
fi
[[ -x "$BIN" ]] || { echo "icount binary not found" >&2; exit 2; }
declare -A PASSES=([small]=4 [medium]=4 [large]=3)
CLASSES=${ICOUNT_CLASSES:-small medium large}
for kv in ${ICOUNT_PASSES:-}; do PASSES[${kv%%=*}]=${kv#*=}; done

CSV="$OUT/icount.csv"
echo "impl,class,frames,bytes,passes,ir_total,ir_per_msg,ir_per_byte" > "$CSV"
for class in $CLASSES; do
  [[ -n "${PASSES[$class]:-}" ]] || PASSES[$class]=2
  tag=${class//[^A-Za-z0-9_.-]/_}
  for impl in "${IMPLS[@]}"; do
    f="$OUT/callgrind.out.$impl.$tag"
    info=$(valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
      --toggle-collect='*icount_measured*' "$BIN" "$impl" "$class" "${PASSES[$class]}" \
      2>"$OUT/valgrind.$impl.$tag.log" | grep '^impl=')
    frames=$(sed 's/.*frames=\([0-9]*\).*/\1/' <<<"$info")
    bytes=$(sed 's/.*bytes=\([0-9]*\).*/\1/' <<<"$info")
    ir=$(grep -E '^(summary|totals):' "$f" | tail -1 | awk '{print $2}')
    awk -v i="$impl" -v c="$class" -v fr="$frames" -v by="$bytes" -v p="${PASSES[$class]}" -v ir="$ir" \
      'BEGIN { printf "%s,%s,%d,%d,%d,%d,%.1f,%.3f\n", i, c, fr, by, p, ir, ir/(fr*p), ir/(by*p) }' >> "$CSV"
  done
done
{
  echo "| impl | class | Ir/msg | Ir/byte |"
  echo "|---|---|---:|---:|"
  tail -n +2 "$CSV" | awk -F, '{ printf "| %s | %s | %.0f | %.2f |\n", $1, $2, $7, $8 }'
} > "$OUT/icount.md"
cat "$OUT/icount.md"
