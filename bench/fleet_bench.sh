#!/usr/bin/env bash
# Fleet throughput benchmark (figures go to docs/benchmarks.md, "Fleet"):
#   bench/fleet_bench.sh [BUILD_DIR] [RECORDS] [MAX_CONTEXT_TOKENS]
# Replays a synthetic trace with --speed 0 and noop engines on --local 2 and --local 4, for
# --shard time (each record once) and --shard none (N copies), and prints aggregate records/s,
# the coordinator's CPU per routed record and what that projects to for 256 workers; then the
# cost of merging 4 nodes' DONE messages of 100k samples each. all_us/record is the CPU of
# every process (coordinator and workers) per replayed record: on this machine the aggregate
# cannot exceed 2 cores / that figure.
set -euo pipefail
build="${1:-$(cd "$(dirname "$0")/.." && pwd)/build}"
records="${2:-200000}"
context="${3:-32768}"  # 32768: ~1 KiB records (long chats); 2048: ~0.2 KiB records
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$build/bench/fleet_bench" gen "$work/bench.lct" "$records" "$context"
printf '%-8s %-6s %10s %9s %12s %12s %14s %16s %12s %14s\n' local shard records wall_s agg_rec/s \
  coord_cpu_s cpu_us/record 1core_max_rec/s all_cpu_s all_us/record
TIMEFORMAT='%3U %3S'
for n in 2 4; do
  for shard in time none; do
    out="$work/out-$n-$shard"
    start=$(date +%s.%N)
    # bash's `time` reports the CPU of the coordinator and of the workers it started and reaped.
    { time "$build/coordinator/coordinator" "$work/bench.lct" --local "$n" --shard "$shard" \
      --window 1 --engine noop --speed 0 --start-delay 0 -q --progress never \
      --output-dir "$out" 2>"$out.log" ; } 2>"$out.time"
    end=$(date +%s.%N)
    python3 - "$out/fleet_summary.json" "$n" "$shard" "$start" "$end" "$out.time" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
n, shard, start, end = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
all_cpu = sum(float(x) for x in open(sys.argv[6]).read().split())  # user + system, every process
c = s["coordinator"]
recs = s["records"]["total"]          # records replayed by all workers together
wall = end - start                    # whole process: spawn, handshake, stream, merge
cpu = c["cpu_user_s"] + c["cpu_system_s"]
per = cpu / c["records_sent"] * 1e6   # coordinator CPU per routed record
print(f"{n:<8} {shard:<6} {recs:>10} {wall:>9.2f} {recs / wall:>12.0f} {cpu:>12.2f} "
      f"{per:>14.2f} {1e6 / per:>16.0f} {all_cpu:>12.2f} {all_cpu / recs * 1e6:>14.2f}")
EOF
  done
done
echo "256 workers: one coordinator core feeds at most 1core_max_rec/s in total, i.e."
echo "1core_max_rec/s / 256 records/s per worker (the per-record cost is independent of N)."
"$build/bench/fleet_bench" merge 4 100000
