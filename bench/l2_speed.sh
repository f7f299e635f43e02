#!/usr/bin/env bash
# Embedded L2 replay at --speed 0 against the mock adapter, whole process (docs/benchmarks.md,
# "L2 replay"; goal: >= 1M L2 operations/s). Prints, best of RUNS each (the whole process's
# median too: this VM runs at two speeds, docs/benchmarks.md), measured in this run:
#   read     `lct info` (the reader alone: frames, msgpack, every record's args decoded)
#   plan     `coordinator --prepare-only` (read + plan + an empty prepare: the plan's cost)
#   whole    `coordinator --speed 0` (read + plan + replay + l2_replay_stats.json + report.html)
# and the whole process's L2 operations per second with its ratio to the goal. With BASE_BUILD,
# the whole process of both builds alternating (base, new, base, new, ...: RUNS pairs), each one's
# min / median wall and the median of the pairs' ratios new/base: on a VM whose speed drifts by
# more than a change gains, a ratio taken pair by pair still separates the two.
#
#   bench/l2_speed.sh [BUILD_DIR] [REQUESTS] [RUNS] [BASE_BUILD]   (defaults: build, 100000, 3)
set -euo pipefail
build=${1:-build}
requests=${2:-100000}
runs=${3:-3}
base=${4:-}
goal=1000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mock='{"type":"mock","max_size_gb":1024,"mock_bandwidth_gb":1024}'

walls_of() {  # walls_of CMD...: the wall times of $runs runs, in seconds, space-separated
  local all=
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    all="$all $(python3 -c "print($end - $start)")"
  done
  echo "$all"
}
best_of() {  # best_of CMD...: the fastest of $runs wall times, in seconds
  python3 -c 'import sys; print(min(float(x) for x in sys.argv[1:]))' $(walls_of "$@")
}

"$build/bench/l2_trace_gen" "$work/big.lct" --requests "$requests" --rate 100000 >/dev/null
read_s=$(best_of "$build/tools/lct/lct" info "$work/big.lct")
plan_s=$(best_of "$build/coordinator/coordinator" "$work/big.lct" --l2-adapter "$mock" \
  --prepare-only --output-dir "$work/prep" -q)
whole_s=$(walls_of "$build/coordinator/coordinator" "$work/big.lct" --speed 0 \
  --l2-adapter "$mock" --output-dir "$work/out" -q)
python3 - "$work/out/l2_replay_stats.json" "$read_s" "$plan_s" "$goal" \
  "$(stat -c %s "$work/big.lct")" $whole_s <<'PY'
import json, statistics, sys
stats, read_s, plan_s, goal, size, *walls = sys.argv[1:]
j = json.load(open(stats))
ops = sum(j["operations_submitted"].values())
read_s, plan_s, goal = float(read_s), float(plan_s), float(goal)
walls = sorted(float(w) for w in walls)
whole_s, median_s = walls[0], statistics.median(walls)
rate = ops / whole_s
print(f"trace: {ops} L2 operations, {int(size) / 2**20:.0f} MiB")
print(f"read (lct info): {read_s:.3f} s; read + plan (--prepare-only): {plan_s:.3f} s; "
      f"whole process (--speed 0): best {whole_s:.3f} s, median {median_s:.3f} s of {len(walls)}")
print(f"speed 0, mock, whole process: best {rate / 1e6:.2f} M L2 ops/s = {rate / goal:.2f} x the "
      f"goal ({goal / 1e6:.0f} M/s), median {ops / median_s / 1e6:.2f} M/s; dependency "
      f"violations {j['fleet']['dependency_violations']}")
PY

[ -n "$base" ] || exit 0
wall_of() {  # wall_of BUILD: one whole-process run's wall seconds (a build tree or a bin dir)
  local bin=$1/coordinator/coordinator start end
  [ -x "$bin" ] || bin=$1/coordinator
  start=$(date +%s.%N)
  if ! "$bin" "$work/big.lct" --speed 0 --l2-adapter "$mock" --output-dir "$work/pair" -q \
    >/dev/null 2>"$work/pair.err"; then
    echo "l2_speed.sh: $bin failed: $(head -c 300 "$work/pair.err")" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  python3 -c "print($end - $start)"
}
pairs=()
for _ in $(seq "$runs"); do
  b=$(wall_of "$base")
  n=$(wall_of "$build")
  pairs+=("$b:$n")
done
python3 - "$base" "$build" "${pairs[@]}" <<'PY'
import statistics, sys
base, new, *pairs = sys.argv[1:]
b = [float(p.split(":")[0]) for p in pairs]
n = [float(p.split(":")[1]) for p in pairs]
r = [y / x for x, y in zip(b, n)]
print(f"paired, {len(pairs)} pairs (base first): base {base} min / median {min(b):.3f} / "
      f"{statistics.median(b):.3f} s; new {new} {min(n):.3f} / {statistics.median(n):.3f} s; "
      f"new/base: median of the pair ratios {statistics.median(r):.3f} "
      f"(min {min(r):.3f}, max {max(r):.3f})")
PY
