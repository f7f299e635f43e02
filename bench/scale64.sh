#!/usr/bin/env bash
# Coordinator scaling on loopback (issue 19, docs/scaling.md): --local N for N = 8, 16, 32, 64
# worker processes with noop engines at --speed 1 (paced, so the workers sleep and the
# coordinator's own costs show), --shard key, one trace for every N. Per N it prints the run's
# wall, the coordinator's CPU and peak RSS (and both per worker), the handshake, what T0
# waited for, the T0 spread (each node's first dispatch - T0: p50/max), the merge, the DONE
# sizes and the control messages/s, and checks the merged counts against the trace (every
# record routed; a call whose keys live on k nodes is replayed as k sub-calls, all of them).
# Usage: bench/scale64.sh [--sizes "8 16 32 64"] [--duration S] [--rate REQ_PER_S]
# COORDINATOR_FLAGS="--heartbeat-ms 1000" adds flags to every run (256 processes on 2 cores need
# a longer loss budget than 3 x 500 ms).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
SIZES="8 16 32 64"
DURATION=20
RATE=1500
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    *) echo "scale64.sh: unknown argument '$1' (--sizes LIST | --duration S | --rate R)" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$B/tools/lct/lct" gen -o "$TMP/t.lct" --seed 7 --duration "$DURATION" --rate "$RATE" --era 3 --tp 1 -q
RECORDS=$("$B/tools/lct/lct" info "$TMP/t.lct" | awk '/total_records:/ {print $2}')
echo "trace: $RECORDS records over ${DURATION} s (lct gen --seed 7 --rate $RATE --era 3 --tp 1)"
for n in $SIZES; do
  out="$TMP/o-$n"
  start=$(date +%s.%N)
  "$B/coordinator/coordinator" "$TMP/t.lct" --local "$n" --shard key --engine noop --speed 1 \
    -q --progress never --output-dir "$out" ${COORDINATOR_FLAGS:-} 2>"$out.log" || {
      echo "scale64.sh: --local $n failed:" >&2; tail -20 "$out.log" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 - "$out/fleet_summary.json" "$n" "$start" "$end" "$RECORDS" <<'EOF'
import json, statistics, sys
s = json.load(open(sys.argv[1]))
n, wall, records = int(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3]), int(sys.argv[5])
c = s["coordinator"]
acc = s["accounting"]
cpu = c["cpu_user_s"] + c["cpu_system_s"]
rss = c["peak_rss_bytes"] / 2**20
skews = sorted(node["start_skew_us"] for node in s["nodes"])
done = c.get("done_bytes", [])
msgs = c.get("messages", {})
run_s = c["wall_since_t0_s"]
# Every trace record routed, and every part of it (a call whose keys live on several nodes
# becomes one sub-call per node) replayed: the merged count is exactly what was expected.
ok = (acc["trace_records"] == records and acc["records_routed"] == records and acc["balanced"]
      and s["records"]["total"] == acc["expected"])
st = c.get("start") or {}
print(f"N={n:<3} wall {wall:6.2f} s | coord cpu {cpu:6.3f} s ({cpu / n * 1e3:6.2f} ms/worker), "
      f"rss {rss:6.1f} MiB ({rss / n:5.2f} MiB/worker) | connect {c['phase_s']['connect'] * 1e3:6.0f} ms, "
      f"T0 +{st.get('t0_after_handshake_ms', float('nan')):6.1f} ms ({st.get('waited_for', '-')}) | "
      f"skew p50 {statistics.median(skews):6.0f} us max {skews[-1]:6.0f} us | "
      f"merge {c['phase_s']['merge'] * 1e3:6.1f} ms | DONE mean {statistics.mean(done) / 1024:6.1f} KiB "
      f"max {max(done) / 1024:6.1f} KiB | msgs {(msgs.get('sent', 0) + msgs.get('received', 0)) / run_s:7.0f}/s | "
      f"records {records} -> {s['records']['total']} calls "
      f"({'every part replayed, accounting balanced' if ok else 'MISMATCH'})")
if not ok:
    sys.exit(1)
EOF
done
