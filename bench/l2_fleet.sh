#!/usr/bin/env bash
# L2 traces across the fleet (docs/benchmarks.md, "L2 replay"; docs/l2-traces.md, "Across the
# fleet"): 3 recorded servers' L2 traces (bench/l2_trace_gen, seeds 1-3) replayed with
# `--local 3 --shard source` against one real redis-server, beside each server's trace replayed
# alone (embedded) against the same redis: merged and per-node L2 latency p50/p99 per operation
# and wall time, every operation accounted for, dependency violations.
#
#   bench/l2_fleet.sh [BUILD_DIR] [REQUESTS_PER_SERVER] [RATE] [SPEED]   (build, 300, 100, 1)
set -euo pipefail
build=$(realpath "${1:-build}")
requests=${2:-300}
rate=${3:-100}
speed=${4:-1}
work=$(mktemp -d)
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning \
  >"$work/redis.log" 2>&1 &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null; wait $redis_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
resp="{\"type\":\"resp\",\"host\":\"127.0.0.1\",\"port\":$port}"

files=()
for s in 1 2 3; do
  "$build/bench/l2_trace_gen" "$work/server$s.lct" --requests "$requests" --rate "$rate" \
    --seed "$s" >/dev/null
  files+=("$work/server$s.lct")
done

latency() {  # FILE JSON-PATH-TO-STATS LABEL
  python3 - "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for n in ([j] if sys.argv[2] == "merged" else j["nodes"]):
    b = n["fleet"]["by_operation"]
    name = sys.argv[3] if sys.argv[2] == "merged" else n["node"] + " (" + n["fleet"]["plan"]["files"][0].split("/")[-1] + ")"
    ops = sum(n["operations_submitted"].values())
    cells = " ".join(f"{k} {b[k]['latency_ms']['p50']:.3f}/{b[k]['latency_ms']['p99']:.3f}"
                     for k in ("store", "lookup_task", "load_task"))
    print(f"  {name}: {ops} ops, replay {n['total_replay_seconds']:.3f} s; p50/p99 ms {cells}; "
          f"dependency violations {n['fleet']['dependency_violations']}")
PY
}

echo "each server alone (embedded, speed $speed, redis flushed before each):"
for s in 1 2 3; do
  redis-cli -p "$port" flushall >/dev/null
  "$build/coordinator/coordinator" "$work/server$s.lct" --speed "$speed" --l2-adapter "$resp" \
    --output-dir "$work/alone$s" -q
  latency "$work/alone$s/l2_replay_stats.json" merged "server$s alone"
done
redis-cli -p "$port" flushall >/dev/null
start=$(date +%s.%N)
"$build/coordinator/coordinator" "${files[@]}" --local 3 --shard source --speed "$speed" \
  --l2-adapter "$resp" --output-dir "$work/fleet" -q --progress never 2>"$work/fleet.log"
end=$(date +%s.%N)
echo "--local 3 --shard source on one redis-server (speed $speed), wall $(python3 -c "print(f'{$end - $start:.3f}')") s whole coordinator:"
latency "$work/fleet/l2_replay_stats.json" merged "merged"
latency "$work/fleet/l2_replay_stats.json" nodes ""
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
alone = {}
for s in (1, 2, 3):
    for k, v in json.load(open(f"{w}/alone{s}/l2_replay_stats.json"))["operations_submitted"].items():
        alone[k] = alone.get(k, 0) + v
fleet = json.load(open(f"{w}/fleet/l2_replay_stats.json"))["operations_submitted"]
print(f"  accounted: fleet {sum(fleet.values())} = alone {sum(alone.values())}: {fleet == alone}")
PY
