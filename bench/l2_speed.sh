#!/usr/bin/env bash
# Embedded L2 replay at --speed 0 against the mock adapter, whole process (docs/benchmarks.md,
# "L2 replay"; goal: >= 1M L2 operations/s). Prints, best of RUNS each, measured in this run:
#   read     `lct info` (the reader alone: frames, msgpack, every record's args decoded)
#   plan     `coordinator --prepare-only` (read + plan + an empty prepare: the plan's cost)
#   whole    `coordinator --speed 0` (read + plan + replay + l2_replay_stats.json + report.html)
# and the whole process's L2 operations per second with its ratio to the goal.
#
#   bench/l2_speed.sh [BUILD_DIR] [REQUESTS] [RUNS]     (defaults: build, 100000, 3)
set -euo pipefail
build=${1:-build}
requests=${2:-100000}
runs=${3:-3}
goal=1000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mock='{"type":"mock","max_size_gb":1024,"mock_bandwidth_gb":1024}'

best_of() {  # best_of CMD...: the fastest of $runs wall times, in seconds
  local best=
  for _ in $(seq "$runs"); do
    local start end secs
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    secs=$(python3 -c "print($end - $start)")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $secs < $best else 1)"; then
      best=$secs
    fi
  done
  echo "$best"
}

"$build/bench/l2_trace_gen" "$work/big.lct" --requests "$requests" --rate 100000 >/dev/null
read_s=$(best_of "$build/tools/lct/lct" info "$work/big.lct")
plan_s=$(best_of "$build/coordinator/coordinator" "$work/big.lct" --l2-adapter "$mock" \
  --prepare-only --output-dir "$work/prep" -q)
whole_s=$(best_of "$build/coordinator/coordinator" "$work/big.lct" --speed 0 \
  --l2-adapter "$mock" --output-dir "$work/out" -q)
python3 - "$work/out/l2_replay_stats.json" "$read_s" "$plan_s" "$whole_s" "$goal" \
  "$(stat -c %s "$work/big.lct")" <<'PY'
import json, sys
stats, read_s, plan_s, whole_s, goal, size = sys.argv[1:]
j = json.load(open(stats))
ops = sum(j["operations_submitted"].values())
read_s, plan_s, whole_s, goal = float(read_s), float(plan_s), float(whole_s), float(goal)
rate = ops / whole_s
print(f"trace: {ops} L2 operations, {int(size) / 2**20:.0f} MiB")
print(f"read (lct info): {read_s:.3f} s; read + plan (--prepare-only): {plan_s:.3f} s; "
      f"whole process (--speed 0): {whole_s:.3f} s")
print(f"speed 0, mock, whole process: {rate / 1e6:.2f} M L2 ops/s = {rate / goal:.2f} x the "
      f"goal ({goal / 1e6:.0f} M/s); dependency violations "
      f"{j['fleet']['dependency_violations']}")
PY
