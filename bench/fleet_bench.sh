#!/usr/bin/env bash
# Fleet throughput benchmark (figures go to docs/benchmarks.md, "Fleet"):
#   bench/fleet_bench.sh [BUILD_DIR] [RECORDS] [MAX_CONTEXT_TOKENS]
# Replays a synthetic trace with --speed 0 and noop engines on --local 2 and --local 4, for
# --shard time (each record once) and --shard none (N copies), each with records sent as
# 16-byte references into the trace (--trace-access shared --routing coordinator: the workers
# read the file, the coordinator routes; bench/selfroute.sh measures workers that route) and as
# the records themselves (stream: what crosses a network without a shared file system), and
# prints aggregate records/s,
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
printf '%-6s %-6s %-7s %10s %8s %11s %11s %13s %15s %10s %13s %6s %6s %7s\n' local shard access \
  records wall_s agg_rec/s coord_cpu_s cpu_us/record 1core_max_rec/s all_cpu_s all_us/record \
  conn_s strm_s coll_s
TIMEFORMAT='%3U %3S'
for n in 2 4; do
  for shard in time none; do
   for access in shared stream; do
    out="$work/out-$n-$shard-$access"
    start=$(date +%s.%N)
    # bash's `time` reports the CPU of the coordinator and of the workers it started and reaped.
    { time "$build/coordinator/coordinator" "$work/bench.lct" --local "$n" --shard "$shard" \
      --window 1 --engine noop --speed 0 --start-delay 0 -q --progress never \
      --trace-access "$access" --routing coordinator --output-dir "$out" 2>"$out.log" ; } 2>"$out.time" || {
        echo "coordinator failed (--local $n --shard $shard --trace-access $access):" >&2
        cat "$out.log" >&2; exit 1; }
    end=$(date +%s.%N)
    python3 - "$out/fleet_summary.json" "$n" "$shard" "$start" "$end" "$out.time" "$access" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
n, shard, start, end = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
access = sys.argv[7]
all_cpu = sum(float(x) for x in open(sys.argv[6]).read().split())  # user + system, every process
c = s["coordinator"]
recs = s["records"]["total"]          # records replayed by all workers together
wall = end - start                    # whole process: spawn, handshake, stream, merge
cpu = c["cpu_user_s"] + c["cpu_system_s"]
per = cpu / c["records_sent"] * 1e6   # coordinator CPU per routed record
ph = c["phase_s"]
print(f"{n:<6} {shard:<6} {access:<7} {recs:>10} {wall:>8.2f} {recs / wall:>11.0f} {cpu:>11.2f} "
      f"{per:>13.2f} {1e6 / per:>15.0f} {all_cpu:>10.2f} {all_cpu / recs * 1e6:>13.2f} "
      f"{ph['connect']:>6.3f} {ph['stream']:>6.3f} {ph['collect']:>7.3f}")
EOF
   done
  done
done
echo "256 workers: one coordinator core feeds at most 1core_max_rec/s in total, i.e."
echo "1core_max_rec/s / 256 records/s per worker (the per-record cost is independent of N)."
"$build/bench/fleet_bench" merge 4 100000
