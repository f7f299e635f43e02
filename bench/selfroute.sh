#!/usr/bin/env bash
# Workers that route themselves (issue 41, docs/scaling.md "Workers that route themselves"):
# on one `lct gen --seed 1 --records 1000000` trace at --speed 0, the whole process's wall time
# and the coordinator's own CPU of the embedded replay and of `--local 2 --trace-access shared`
# with --shard key and --shard time --window 5, routed by the coordinator and by the workers,
# with noop engines and with the native engine (L1 64 GB), and by the workers reading a saved
# routing plan (--route-cache: the row `plan`; the plans are saved by one unmeasured run per
# mode before the measured runs). Every fleet figure is printed as a
# ratio to the embedded wall time of the same engine, measured in the same run (goals: <= 0.8
# with noop, <= 0.6 with native; coordinator CPU <= 5 % of one core during the replay, printed
# beside its share of the whole run). Each embedded row also prints the floor this machine sets:
# the embedded replay's CPU spread over every core, alone and with a fleet's fixed cost.
# Usage: bench/selfroute.sh [--runs N] [--records N] [--trace FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
RUNS=2
RECORDS=1000000
TRACE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --trace) TRACE=$2; shift 2 ;;
    *) echo "selfroute.sh: unknown argument '$1' (--runs N | --records N | --trace FILE)" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ -z "$TRACE" ]; then
  TRACE="$TMP/t.lct"
  "$B/tools/lct/lct" gen -o "$TRACE" --seed 1 --records "$RECORDS" -q
fi
cat "$TRACE" > /dev/null  # in the page cache before the first measured run
echo "trace: $("$B/tools/lct/lct" info "$TRACE" | awk '/total_records:/ {print $2}') records," \
  "$(stat -c %s "$TRACE") bytes; $(nproc) cores; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# One run: prints "WALL_S CPU_S REPLAY_SHARE": for a fleet the coordinator's own CPU over the
# whole run and its share of a core from GO to the last result (fleet_summary.json); for the
# embedded replay the whole process's CPU (bash's `time`), and no share: -1.
measure() {  # out_dir args...
  local out=$1; shift
  { TIMEFORMAT='%3R %3U %3S'; time "$B/coordinator/coordinator" "$TRACE" --speed 0 -q \
    --progress never --output-dir "$out" "$@" > "$out.stdout" 2> "$out.log"; } 2> "$out.time" ||
    { echo "selfroute.sh: failed: $*" >&2; tail -5 "$out.log" >&2; exit 1; }
  python3 - "$out/fleet_summary.json" "$out.time" <<'PY'
import json, os, sys
wall, user, system = map(float, open(sys.argv[2]).read().split())
cpu, share = user + system, -1.0
if os.path.exists(sys.argv[1]):
    c = json.load(open(sys.argv[1])).get("coordinator", {})
    if "cpu_user_s" in c:
        cpu = c["cpu_user_s"] + c["cpu_system_s"]
    if c.get("during_replay"):
        share = c["during_replay"]["share_of_core"]
    a = json.load(open(sys.argv[1])).get("accounting", {})
    if a and not a.get("balanced", True):
        print("selfroute.sh: accounting does not balance", file=sys.stderr); sys.exit(1)
print(f"{wall:.3f} {cpu:.3f} {share:.4f}")
PY
}

# The saved plans: one unmeasured live self-routed run per mode, which routes the trace once
# more on the coordinator after its replay and saves the plan (the engine is not in its key).
ROUTES="$TMP/routes"
for shard in "key" "time --window 5"; do
  # shellcheck disable=SC2086
  measure "$TMP/save-${shard%% *}" --engine noop --local 2 --trace-access shared --shard $shard \
    --route-cache "$ROUTES" > /dev/null
done
echo "saved plans: $(find "$ROUTES" -name "*.route" | wc -l) in $ROUTES ($(du -sh "$ROUTES" | cut -f1))"

# What this machine allows (docs/scaling.md, "What two cores allow"): N workers on `nproc` cores
# cannot finish before the embedded replay's CPU time spread over every core, even if they did
# no work the embedded replay does not, plus a fleet's fixed cost (worker start, handshake, T0,
# merge), measured here as the extra wall of a --local 2 run over the embedded one on a
# 2,000-record trace. Printed per embedded run: the floor, and the floor with the fixed cost.
SMALL="$TMP/small.lct"
"$B/tools/lct/lct" gen -o "$SMALL" --seed 1 --records 2000 -q
fixed_s=$(python3 - "$B" "$SMALL" "$TMP" <<'PY'
import statistics, subprocess, sys, time
b, small, tmp = sys.argv[1:]
def wall(*extra):
    t = time.monotonic()
    subprocess.run([f"{b}/coordinator/coordinator", small, "--speed", "0", "-q", "--progress",
                    "never", "--engine", "noop", "--output-dir", f"{tmp}/small-out", *extra],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t
extra = [wall("--local", "2", "--trace-access", "shared", "--shard", "time") - wall()
         for _ in range(5)]
print(f"{max(0.0, statistics.median(extra)):.3f}")
PY
)
echo "fixed cost of a --local 2 fleet over the embedded replay (2,000-record trace, median of 5): ${fixed_s} s"

for engine in noop native; do
  eflags=(--engine noop)
  [ "$engine" = native ] && eflags=(--engine native --l1-size-gb 64)
  for run in $(seq 1 "$RUNS"); do
    read -r emb emb_cpu _ < <(measure "$TMP/emb-$engine-$run" "${eflags[@]}")
    python3 -c "
import os, sys
emb, cpu, fixed = map(float, sys.argv[1:4])
cores = os.cpu_count()
floor = cpu / cores / emb
print(f'{sys.argv[4]:<7} run {sys.argv[5]}  embedded                      {emb:6.3f} s'
      f'  used {cpu / emb:4.2f} of {cores} cores: floor {floor:4.2f}x, {floor + fixed / emb:4.2f}x'
      f' with the fixed cost')
" "$emb" "$emb_cpu" "$fixed_s" "$engine" "$run"
    for shard in "key" "time --window 5"; do
      for routing in coordinator workers plan; do
        rflags=(--routing "$routing")
        [ "$routing" = plan ] && rflags=(--routing workers --route-cache "$ROUTES")
        # shellcheck disable=SC2086
        read -r wall cpu share < <(measure "$TMP/f-$engine-$run-${shard%% *}-$routing" "${eflags[@]}" \
          --local 2 --trace-access shared --shard $shard "${rflags[@]}")
        if [ "$routing" = plan ] && ! grep -q '"routed_by": "worker (saved plan)"' \
          "$TMP/f-$engine-$run-${shard%% *}-$routing/fleet_summary.json"; then
          echo "selfroute.sh: the plan row did not read the saved plan" >&2; exit 1
        fi
        python3 -c "
import sys
emb, wall, cpu, share = map(float, sys.argv[1:5])
print(f'{sys.argv[5]:<7} run {sys.argv[6]}  {sys.argv[7]:<16} {sys.argv[8]:<12} {wall:6.3f} s'
      f'  {wall / emb:5.2f}x embedded  coordinator CPU {cpu:6.3f} s = {100 * cpu / wall:5.1f} % of a core,'
      f' {100 * share:5.1f} % during the replay')
" "$emb" "$wall" "$cpu" "$share" "$engine" "$run" "$shard" "$routing"
      done
    done
  done
done
