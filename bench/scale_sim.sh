#!/usr/bin/env bash
# The coordinator against simulated workers (issue 41, docs/scaling.md "1,000 simulated
# workers"): bench/fleet_sim hosts N protocol-speaking workers (CURVE, noop engines) in one
# process, and the coordinator replays a small paced trace to them with --workers, --shard key,
# --speed 1. Per N it prints the coordinator's wall, CPU (and per worker-second), peak RSS (and
# per worker), connect, T0 after the handshake, the start spread, the merge, the DONE sizes and
# the control messages/s, and checks the merged counts; the control and routing threads' CPU
# apart (fleet_summary.json coordinator.thread_cpu_s). Then, with --freeze, one more run at
# the largest N in which one simulated worker stops answering FREEZE_S seconds into its run: it
# must be reported lost (the silence and the time from its last message to the verdict are
# printed against the 1.5 s budget) and the run must end with the partial report, accounting
# balanced.
# Usage: bench/scale_sim.sh [--sizes "64 256 1000"] [--duration S] [--rate R] [--freeze S|none]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
SIZES="64 256 1000"
DURATION=10
RATE=500
FREEZE=4
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --freeze) FREEZE=$2; shift 2 ;;
    *) echo "scale_sim.sh: unknown argument '$1' (--sizes LIST | --duration S | --rate R | --freeze S|none)" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d)
SIM_PID=
cleanup() { [ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
"$B/tools/lct/lct" gen -o "$TMP/t.lct" --seed 7 --duration "$DURATION" --rate "$RATE" --era 3 --tp 1 -q
RECORDS=$("$B/tools/lct/lct" info "$TMP/t.lct" | awk '/total_records:/ {print $2}')
echo "trace: $RECORDS records over ${DURATION} s (lct gen --seed 7 --rate $RATE --era 3 --tp 1)"

# One run: the simulator started and bound, the coordinator against it. $1 N, $2 label,
# $3 extra fleet_sim flags.
run_one() {
  local n=$1 label=$2 extra=$3 sim="$TMP/sim-$2"
  "$B/bench/fleet_sim" --workers "$n" --out "$sim" $extra >"$sim.out" 2>"$sim.err" &
  SIM_PID=$!
  until grep -q '^READY' "$sim.out" 2>/dev/null; do
    kill -0 "$SIM_PID" 2>/dev/null || { echo "scale_sim.sh: fleet_sim failed:" >&2; cat "$sim.err" >&2; exit 1; }
    sleep 0.1
  done
  local out="$TMP/o-$label" code=0
  start=$(date +%s.%N)
  "$B/coordinator/coordinator" "$TMP/t.lct" --workers "$sim/workers.txt" \
    --curve-cert "$sim/coordinator.key_secret" --shard key --engine noop --speed 1 \
    --on-worker-loss continue -q --progress never --output-dir "$out" 2>"$out.log" || code=$?
  end=$(date +%s.%N)
  # The simulator exits once every node has its DONE acknowledged; on an overloaded host a node
  # can wait for an acknowledgement that never comes: the coordinator's figures are in its
  # summary already, so give the simulator 20 s, then stop it (its cost line is then missing).
  for _ in $(seq 200); do kill -0 "$SIM_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$SIM_PID" 2>/dev/null && { echo "       (fleet_sim still running 20 s after the coordinator: stopped)"; kill "$SIM_PID"; }
  wait "$SIM_PID" || true
  SIM_PID=
  python3 bench/scale_sim_report.py "$out" "$n" "$start" "$end" "$RECORDS" "$code" "$sim.out" "$out.log"
}

largest=0
for n in $SIZES; do
  run_one "$n" "$n" ""
  largest=$n
done
if [ "$FREEZE" != none ]; then
  run_one "$largest" "freeze" "--freeze $((largest / 2))@$FREEZE"
fi
