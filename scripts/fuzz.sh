#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz/, one per untrusted input; docs/reliability.md), built with
# clang-14 under ASan+UBSan in ./build-fuzz (configured here when needed).
#
#   scripts/fuzz.sh [SECONDS]        every target's reproducers (tests/fuzz/regressions/) once,
#                                    then the target for SECONDS (default 20), one at a time,
#                                    over a scratch copy of its seed corpus (tests/fuzz/corpus/)
#   scripts/fuzz.sh --regress        every reproducer and every seed run once (seconds: CI)
#   FUZZ_TARGETS="batch node_result" restricts either mode to those targets
#   FUZZ_OUT=DIR                     where logs, grown corpora and artifacts go
#                                    (default build-fuzz/fuzz-out)
#
# Prints one line per target (execs/s, total execs, peak RSS) and exits 1 if any target found
# a crash, leak, timeout or out-of-memory, with the reproducer's path; replay one with
# `build-fuzz/tests/fuzz/<target>_fuzz <file>`. A fixed bug's reproducer goes into
# tests/fuzz/regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode=fuzz
seconds=20
case "${1:-}" in
  --regress) mode=regress ;;
  "") ;;
  *[!0-9]*) echo "fuzz.sh: usage: fuzz.sh [SECONDS] | --regress" >&2; exit 2 ;;
  *) seconds=$1 ;;
esac

build=${FUZZ_BUILD_DIR:-build-fuzz}
out=${FUZZ_OUT:-$build/fuzz-out}
all_targets=(trace_file record_op l2_record l2_plan wire_message batch node_result done_report hosts_file
             workers_spec engine_config lct_lint route_plan)
targets=(${FUZZ_TARGETS:-${all_targets[@]}})

# Only the libraries the targets need are built (tests and benchmarks off).
if [ ! -f "$build/build.ninja" ]; then
  nice flock /tmp/fleet-build.lock cmake --preset fuzz -B "$build" >/dev/null
fi
nice flock /tmp/fleet-build.lock ninja -C "$build" -j"${FUZZ_BUILD_JOBS:-2}" fuzz_targets >/dev/null

dict_for() {
  case "$1" in
    trace_file | record_op | l2_record | wire_message | batch | node_result | done_report | lct_lint)
      echo msgpack ;;
    engine_config) echo json ;;
    hosts_file | workers_spec) echo workers ;;
  esac
}

# A stats line from libFuzzer's -print_final_stats output.
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$out"
out=$(cd "$out" && pwd)
failed=0
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/${t}_fuzz"
  [ -x "$bin" ] || { echo "fuzz.sh: no target $bin" >&2; exit 2; }
  seeds="$root/tests/fuzz/corpus/$t"
  regress="$root/tests/fuzz/regressions/$t"
  flags=(-rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
  dict="$root/tests/fuzz/dict/$(dict_for "$t").dict"
  [ -f "$dict" ] && flags+=(-dict="$dict")
  # Inputs of these are small and every allocation should follow from bytes that exist: one
  # malloc above 32 MB is a finding (a blind allocation from a declared size). Batches and
  # DONE messages legitimately allocate their declared, bounded size (kMaxBatchRawBytes).
  case "$t" in
    batch | wire_message | node_result) ;;
    *) flags+=(-malloc_limit_mb=32) ;;
  esac
  log="$out/$t.log"
  art="$out/$t-artifacts"
  rm -rf "$art" && mkdir -p "$art"
  set +e
  rc=0
  if [ -d "$regress" ]; then
    # Reproducers of fixed bugs, once (kept out of the fuzzing corpus: a large one would raise
    # libFuzzer's -max_len for every mutation).
    "$bin" "${flags[@]}" -runs=0 -artifact_prefix="$art/" "$regress" >"$log.regress" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || log="$log.regress"
  fi
  if [ "$rc" -eq 0 ] && [ "$mode" = regress ]; then
    # Every seed once; nothing is written to the corpus.
    "$bin" "${flags[@]}" -runs=0 -artifact_prefix="$art/" "$seeds" >"$log" 2>&1 || rc=$?
  elif [ "$rc" -eq 0 ]; then
    # A scratch copy: new units libFuzzer finds never land in the repository's corpus.
    corpus="$out/$t-corpus"
    rm -rf "$corpus" && mkdir -p "$corpus"
    [ -d "$seeds" ] && cp -r "$seeds/." "$corpus/"
    nice "$bin" "${flags[@]}" -max_total_time="$seconds" -artifact_prefix="$art/" "$corpus" \
      >"$log" 2>&1 || rc=$?
  fi
  set -e
  execs=$(stat number_of_executed_units "$log")
  rate=$(stat average_exec_per_sec "$log")
  rss=$(stat peak_rss_mb "$log")
  found=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
            -o -name 'oom-*' \) | sort)
  if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
    failed=1
    printf '%-14s FAIL (exit %s) log %s\n' "$t" "$rc" "$log"
    for f in $found; do printf '%-14s   reproducer %s\n' "" "$f"; done
    grep -m3 -E '^==[0-9]+==ERROR|runtime error|SUMMARY|ALARM|out-of-memory|uncaught|terminate' \
      "$log" | sed 's/^/                 /' || true
  else
    printf '%-14s ok   %8s execs/s %12s execs  peak %s MB\n' "$t" "${rate:-?}" "${execs:-?}" \
      "${rss:-?}"
  fi
done
exit "$failed"
