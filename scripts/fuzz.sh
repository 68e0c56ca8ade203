#!/usr/bin/env bash
# Build and run mcpwire's libFuzzer targets on the STABLE toolchain (see FUZZING.md).
#
# No nightly and no cargo-fuzz needed: the targets are built with plain `cargo build` and the
# SanitizerCoverage flags that cargo-fuzz passes (`-Cpasses=sancov-module` + `-Cllvm-args`,
# both stable). That is cargo-fuzz's `--sanitizer none` mode: coverage-guided, with debug
# assertions and overflow checks, without AddressSanitizer. FUZZ_ASAN=1 adds
# `-Zsanitizer=address` through RUSTC_BOOTSTRAP=1 (stable compiler, unstable flag).
#
# Usage:
#   scripts/fuzz.sh build [TARGET...]          build targets (default: all)
#   scripts/fuzz.sh run TARGET SECONDS [ARGS]  fuzz one target for SECONDS (extra libFuzzer args)
#   scripts/fuzz.sh campaign SECONDS [TARGET...]  run each target in turn, summary at the end
#   scripts/fuzz.sh merge TARGET               minimise fuzz/corpus/TARGET in place (-merge=1)
#   scripts/fuzz.sh repro TARGET FILE...       run the target binary on FILEs once
#   scripts/fuzz.sh triage TARGET              each artifact with its oracle message, grouped
#
# Environment: FUZZ_JOBS (libFuzzer -jobs/-workers, default 1), FUZZ_NICE (default 10),
# FUZZ_ASAN=1, FUZZ_LOG_DIR (default fuzz/logs), FUZZ_FORK=1 (libFuzzer -fork=1 with
# -ignore_crashes/-ignore_timeouts/-ignore_ooms: keep fuzzing after a finding, every crash
# saved in fuzz/artifacts/TARGET/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ="$ROOT/fuzz"; export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$FUZZ/target}"
ALL_TARGETS=(envelope envelope_structured ndjson sse scalar_vs_simd profile session)
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
NICE="${FUZZ_NICE:-10}"
LOG_DIR="${FUZZ_LOG_DIR:-$FUZZ/logs}"

rustflags() {
    local f="-Cpasses=sancov-module"
    f+=" -Cllvm-args=-sanitizer-coverage-level=4"
    f+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
    f+=" -Cllvm-args=-sanitizer-coverage-pc-table"
    f+=" -Cllvm-args=-sanitizer-coverage-trace-compares"
    f+=" -Cllvm-args=-sanitizer-coverage-stack-depth"
    f+=" --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
    if [[ "${FUZZ_ASAN:-0}" == 1 ]]; then
        f+=" -Zsanitizer=address"
    fi
    echo "$f"
}

bin_path() { echo "$CARGO_TARGET_DIR/$TRIPLE/release/$1"; }

# Per-target libFuzzer options: dictionary and maximum input length (bytes).
target_args() {
    case "$1" in
        sse) echo "-dict=$FUZZ/dict/sse.dict -max_len=65536" ;;
        ndjson) echo "-dict=$FUZZ/dict/json_mcp.dict -max_len=65536" ;;
        # Model bytes, not frame bytes: 4 KiB of input already renders frames of up to
        # hundreds of KiB, and the oracle's cost grows with the frame.
        envelope_structured) echo "-dict=$FUZZ/dict/json_mcp.dict -max_len=4096" ;;
        *) echo "-dict=$FUZZ/dict/json_mcp.dict -max_len=16384" ;;
    esac
}

build() {
    local targets=("$@")
    [[ ${#targets[@]} -eq 0 ]] && targets=("${ALL_TARGETS[@]}")
    local bins=()
    for t in "${targets[@]}"; do bins+=(--bin "$t"); done
    (
        cd "$FUZZ"
        if [[ "${FUZZ_ASAN:-0}" == 1 ]]; then export RUSTC_BOOTSTRAP=1; fi
        RUSTFLAGS="$(rustflags)" nice -n "$NICE" cargo build --release --target "$TRIPLE" "${bins[@]}"
    )
}

run() {
    local t="$1" secs="$2"
    shift 2
    local corpus="$FUZZ/corpus/$t" artifacts="$FUZZ/artifacts/$t"
    mkdir -p "$corpus" "$artifacts" "$LOG_DIR"
    local par=()
    # -jobs>1 makes libFuzzer write per-job fuzz-N.log files in the working directory.
    if [[ "${FUZZ_JOBS:-1}" -gt 1 ]]; then par=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
    if [[ "${FUZZ_FORK:-0}" == 1 ]]; then
        par+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    local before
    before="$(find "$artifacts" -type f | wc -l)"
    local log
    log="$LOG_DIR/$t-$(date -u +%Y%m%dT%H%M%SZ).log"
    echo "== $t for ${secs}s, log $log"
    # shellcheck disable=SC2046
    # /usr/bin/time records the CPU seconds (user + system) of libFuzzer and, in fork mode, of
    # every child it waited for: the figure a "CPU-minutes per target" claim rests on.
    local cpu_file="$log.cpu"
    # shellcheck disable=SC2046
    /usr/bin/time -o "$cpu_file" -f '%e %U %S' nice -n "$NICE" "$(bin_path "$t")" $(target_args "$t") \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "${par[@]}" "$@" "$corpus" >"$log" 2>&1 || true
    local found=$(($(find "$artifacts" -type f | wc -l) - before))
    summarise "$t" "$log" "$found" "$cpu_file"
}

# One line per run: target, wall and CPU seconds (user + system, from /usr/bin/time), executions, exec/s, coverage (edges), features, corpus, crash
# reports in the log, new files in fuzz/artifacts/TARGET.
summarise() {
    local t="$1" log="$2" found="${3:-?}" cpu_file="${4:-}"
    local execs rate cov ft corp crashes wall="?" cpu="?"
    if [[ -n "$cpu_file" && -s "$cpu_file" ]]; then
        # Last line: "%e %U %S" (wall, user and system seconds).
        read -r wall usr sys < <(tail -1 "$cpu_file")
        cpu="$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')"
    fi
    execs="$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -1)"
    # Fork mode prints no final stats: take the last status line's run count and rate.
    [[ -z "$execs" ]] && execs="$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')"
    rate="$(sed -n 's/^stat::average_exec_per_sec: //p' "$log" | tail -1)"
    [[ -z "$rate" ]] && rate="$(grep -oE 'exec/s: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)"
    cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)"
    ft="$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)"
    corp="$(grep -oE 'corp: [0-9]+(/[0-9]+[a-zA-Z]*)?' "$log" | tail -1 | cut -d' ' -f2)"
    crashes="$(grep -cE '^==[0-9]+== ERROR: libFuzzer' "$log" || true)"
    printf '%s\twall-s=%s\tcpu-s=%s\texecs=%s\texec/s=%s\tcov=%s\tft=%s\tcorpus=%s\tcrash-reports=%s\tnew-artifacts=%s\tlog=%s\n' \
        "$t" "$wall" "$cpu" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$found" "$log" |
        tee -a "$LOG_DIR/summary.tsv"
}

cmd="${1:-}"
shift || true
case "$cmd" in
    build) build "$@" ;;
    run)
        [[ $# -ge 2 ]] || { echo "usage: $0 run TARGET SECONDS [ARGS]" >&2; exit 2; }
        build "$1"
        run "$@"
        ;;
    campaign)
        [[ $# -ge 1 ]] || { echo "usage: $0 campaign SECONDS [TARGET...]" >&2; exit 2; }
        secs="$1"
        shift
        targets=("$@")
        [[ ${#targets[@]} -eq 0 ]] && targets=("${ALL_TARGETS[@]}")
        build "${targets[@]}"
        for t in "${targets[@]}"; do run "$t" "$secs"; done
        ;;
    merge)
        [[ $# -eq 1 ]] || { echo "usage: $0 merge TARGET" >&2; exit 2; }
        build "$1"
        tmp="$(mktemp -d)"
        # shellcheck disable=SC2046
        nice -n "$NICE" "$(bin_path "$1")" $(target_args "$1") -merge=1 "$tmp" "$FUZZ/corpus/$1"
        rm -rf "$FUZZ/corpus/$1"
        mv "$tmp" "$FUZZ/corpus/$1"
        ;;
    repro)
        [[ $# -ge 2 ]] || { echo "usage: $0 repro TARGET FILE..." >&2; exit 2; }
        t="$1"
        shift
        build "$t"
        "$(bin_path "$t")" "$@"
        ;;
    triage)
        [[ $# -eq 1 ]] || { echo "usage: $0 triage TARGET" >&2; exit 2; }
        for f in "$FUZZ/artifacts/$1"/*; do
            [[ -f "$f" ]] || continue
            out="$("$(bin_path "$1")" "$f" 2>&1 || true)"
            msg="$(grep -E 'oracle:' <<<"$out" | head -1 | cut -c1-160 || true)"
            [[ -z "$msg" ]] && msg="$(grep -E 'panicked|ERROR|deadly' <<<"$out" | head -1 | cut -c1-160 || true)"
            printf '%s\t%s\t%s\n' "$(wc -c <"$f")" "$(basename "$f")" "${msg:-no crash on replay}"
        done | sort -t$'\t' -k3,3 -k1,1n
        ;;
    *)
        sed -n '2,22p' "$0"
        exit 2
        ;;
esac
