#!/usr/bin/env bash
# Embedded L2 replay against the mock adapter (docs/benchmarks.md, "L2 replay"):
#  1. throughput: a large generated L2 trace at --speed 0, whole process (read, plan, replay,
#     stats) timed from outside -> L2 operations per second (goal: >= 1M/s);
#  2. pacing: a smaller trace at --speed 1 and --speed 10 -> outcome mismatches of each (goal:
#     speed 10 <= speed 1 + 0.1 % of the operations) and dependency violations (goal: 0).
#
#   bench/l2_replay.sh [BUILD_DIR] [REQUESTS]     (defaults: build, 1000000)
set -euo pipefail
build=${1:-build}
requests=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mock='{"type":"mock","max_size_gb":1024,"mock_bandwidth_gb":1024}'

field() {  # field FILE python-expression-over-j
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

"$build/bench/l2_trace_gen" "$work/big.lct" --requests "$requests" --rate 100000 >/dev/null
ops=0
best=
for run in 1 2 3; do
  start=$(date +%s.%N)
  "$build/coordinator/coordinator" "$work/big.lct" --speed 0 --l2-adapter "$mock" \
    --output-dir "$work/out0" -q
  end=$(date +%s.%N)
  secs=$(python3 -c "print($end - $start)")
  if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $secs < $best else 1)"; then best=$secs; fi
done
ops=$(field "$work/out0/l2_replay_stats.json" "sum(j['operations_submitted'].values())")
viol=$(field "$work/out0/l2_replay_stats.json" "j['fleet']['dependency_violations']")
mism=$(field "$work/out0/l2_replay_stats.json" "j['outcome_mismatch_count']")
python3 -c "print(f'speed 0: {$ops} L2 operations in {$best:.3f} s whole process (best of 3) = {$ops/$best/1e6:.2f} M ops/s; dependency violations $viol; outcome mismatches $mism')"

"$build/bench/l2_trace_gen" "$work/paced.lct" --requests 20000 --rate 10000 >/dev/null
for speed in 1 10; do
  "$build/coordinator/coordinator" "$work/paced.lct" --speed "$speed" --l2-adapter "$mock" \
    --output-dir "$work/out$speed" -q
done
m1=$(field "$work/out1/l2_replay_stats.json" "j['outcome_mismatch_count']")
m10=$(field "$work/out10/l2_replay_stats.json" "j['outcome_mismatch_count']")
n=$(field "$work/out1/l2_replay_stats.json" "sum(j['operations_submitted'].values())")
v10=$(field "$work/out10/l2_replay_stats.json" "j['fleet']['dependency_violations']")
lag10=$(field "$work/out10/l2_replay_stats.json" "j['max_schedule_lag_seconds']")
echo "paced: $n operations; outcome mismatches speed 1: $m1, speed 10: $m10 (allowed: $m1 + $((n / 1000))); dependency violations at speed 10: $v10; max schedule lag at speed 10: ${lag10} s"
python3 -c "import sys; sys.exit(0 if $m10 <= $m1 + $n * 0.001 and $v10 == 0 else 1)"
