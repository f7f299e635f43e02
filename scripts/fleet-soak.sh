#!/usr/bin/env bash
# Soak: repeats real fleet runs (--local 2 and 4; --shard time and none; records by reference
# and streamed) for a while and keeps the full log of every run that fails. Races between
# processes show up here, not in the unit suite: the DONE_ACK fix came from a loop like this
# (docs/protocol.md § 6). Not part of scripts/test.sh; run it before changing the protocol.
# Every run's record accounting (fleet_summary.json `accounting`, docs/outputs.md) must balance.
# With --faults, each round also stops one of two standalone workers with SIGSTOP mid-run (exit 3,
# that node lost, SIGCONT after) and kills one with SIGKILL (exit 3, restarted), and checks the
# exit code, the lost node and the accounting of each.
#   scripts/fleet-soak.sh [--faults] [SECONDS=300] [BUILD_DIR=build] [RECORDS=200000]
set -uo pipefail
faults=0
if [ "${1:-}" = "--faults" ]; then
  faults=1
  shift
fi
secs="${1:-300}"
build="${2:-$(cd "$(dirname "$0")/.." && pwd)/build}"
records="${3:-200000}"
work="$(mktemp -d)"
wpids=()
fails=0
# Only the logs of failed runs outlive the script (their paths are printed); an early exit or
# Ctrl-C leaves nothing.
cleanup() {
  for p in "${wpids[@]}"; do kill -9 "$p" 2>/dev/null; done
  if [ "$fails" -gt 0 ]; then
    rm -rf "$work/trace.lct" "$work/paced.lct" "$work/out" "$work/fault-out"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
if [ -x "$build/bench/fleet_bench" ]; then
  "$build/bench/fleet_bench" gen "$work/trace.lct" "$records" >/dev/null  # ~1 KiB records
else  # a build without the benchmarks: a generated trace of about as many records
  "$build/tools/lct/lct" gen -o "$work/trace.lct" --seed 2 --duration $((records / 500 + 1)) \
    --rate 100 --era 3 --tp 1 >/dev/null
fi
runs=0

# Prints nothing when OUT/fleet_summary.json's accounting balances and node LOST_NODE (if given)
# is lost; else what is wrong.
check_summary() {
  python3 - "$1/fleet_summary.json" "${2:-}" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
a = s.get("accounting")
if a is None:
    print("no accounting"); sys.exit()
if not a["balanced"]:
    print("accounting does not balance:", json.dumps(a))
total = 0
for n in a["nodes"]:
    nd = n["not_delivered"]
    got = n["replayed"] + n["skipped"] + n["failed"] + sum(nd.values())
    if a["shard"] == "none" and got != a["trace_records"]:
        print("node", n["name"], "accounts", got, "of", a["trace_records"])
    total += got
if a["shard"] != "none" and total + a["not_read"] != a["trace_records"] + a.get("split_extra_parts", 0):
    print("nodes account", total, "+", a["not_read"], "of", a["trace_records"])
if sys.argv[2] != "" and s["nodes"][int(sys.argv[2])]["status"] != "lost":
    print("node", sys.argv[2], "is", s["nodes"][int(sys.argv[2])]["status"], "not lost")
PY
}

# Starts a standalone noop worker; sets wpid and waddr.
start_worker() {
  local out="$work/w-$1.out"
  "$build/worker/worker" --listen tcp://127.0.0.1:0 --announce --name "w$1" --engine noop \
    >"$out" 2>"$work/w-$1.err" &
  wpid=$!
  wpids+=("$wpid")
  for _ in $(seq 200); do
    waddr=$(sed -n 's|^LISTENING tcp://\([^ ]*\).*|\1|p' "$out")
    [ -n "$waddr" ] && return 0
    sleep 0.05
  done
  echo "worker $1 did not start: $(tail -3 "$work/w-$1.err")"; exit 1
}

# One fault round: FAULT is stop or kill, applied to worker 0 one second into a paced run.
fault_round() {
  local fault="$1" log="$work/fault-$runs.log" out="$work/fault-out"
  start_worker 0; local p0=$wpid a0=$waddr
  start_worker 1; local a1=$waddr
  rm -rf "$out"
  "$build/coordinator/coordinator" "$work/paced.lct" --workers "$a0,$a1" --shard none \
    --speed 2 --start-delay 0.3 --on-worker-loss continue -q --progress never \
    --output-dir "$out" 2>"$log" &
  local cpid=$!
  sleep 1.3
  if [ "$fault" = stop ]; then kill -STOP "$p0"; else kill -9 "$p0"; fi
  local t=0
  while kill -0 "$cpid" 2>/dev/null && [ "$t" -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
  if kill -0 "$cpid" 2>/dev/null; then
    kill -9 "$cpid"
    echo "FAIL: coordinator hung after a worker $fault; log: $log"
    fails=$((fails + 1))
  else
    wait "$cpid"
    local rc=$? problem
    problem=$(check_summary "$out" 0)
    if [ "$rc" -ne 3 ] || [ -n "$problem" ]; then
      fails=$((fails + 1))
      echo "FAIL (exit $rc, want 3): worker $fault: $problem; log: $log"
    else
      rm -f "$log"
    fi
  fi
  [ "$fault" = stop ] && kill -CONT "$p0" 2>/dev/null
  for p in "${wpids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  wpids=()
}
if [ "$faults" -eq 1 ]; then  # ~6 s of recorded traffic: ~3 s at --speed 2
  "$build/tools/lct/lct" gen -o "$work/paced.lct" --seed 1 --duration 6 --rate 50 --era 3 \
    --tp 1 >/dev/null
fi
end=$((SECONDS + secs))
while [ "$SECONDS" -lt "$end" ]; do
  for local in 2 4; do
    for shard in time none; do
      for access in shared stream; do
        runs=$((runs + 1))
        log="$work/run-$runs.log"
        "$build/coordinator/coordinator" "$work/trace.lct" --local "$local" --shard "$shard" \
          --window 1 --engine noop --speed 0 --start-delay 0 -q --progress never \
          --trace-access "$access" --output-dir "$work/out" 2>"$log"
        rc=$?
        problem=""
        [ "$rc" -eq 0 ] && problem=$(check_summary "$work/out")
        if [ "$rc" -ne 0 ] || [ -n "$problem" ]; then
          fails=$((fails + 1))
          echo "FAIL (exit $rc): --local $local --shard $shard --trace-access $access" \
            "$problem; log: $log"
        else
          rm -f "$log"
        fi
      done
    done
  done
  if [ "$faults" -eq 1 ]; then
    for fault in stop kill; do
      runs=$((runs + 1))
      fault_round "$fault"
    done
  fi
done
if [ "$fails" -eq 0 ]; then
  echo "runs=$runs failures=0"
  exit 0
fi
echo "runs=$runs failures=$fails (logs of the failed runs are in $work)"
exit 1
