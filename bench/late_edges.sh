#!/usr/bin/env bash
# Late edges at causal speed-up, counted by cause (issue 40; docs/causal-pacing.md "Why an edge
# is late"): an embedded causal replay of one generated chat trace (native engine, a 50-MB L1,
# the mock L2), ROUNDS rounds, each variant once per round (interleaved, so the VM's drift hits
# every variant alike). Per run: binding edges late > 50 us and their causes, the stretched edges
# (and how many of their records lagged > 50 us behind their instant), the submit_prefetch_task
# latency, every record's lateness p99, the hit rate; then each variant's median of late edges.
#   bench/late_edges.sh [BUILD_DIR] [VARIANT ...]
#     VARIANT: "NAME:extra coordinator flags" (default: "spin300:--spin-us 300"
#              "spin20000:--spin-us 20000"); a variant may name another build with
#              "NAME@BUILD_DIR:flags" (A/B of two builds), and a command the coordinator runs
#              under with "NAME!WRAPPER:flags" (e.g. "fifo!chrt -f 10:": every thread SCHED_FIFO).
#   env: ROUNDS (3), SPEED (10), DURATION (trace seconds, 15), TRACE (use this file instead)
set -eu
B=$(realpath "${1:-build}"); shift || true
[ $# -gt 0 ] || set -- "spin300:--spin-us 300" "spin20000:--spin-us 20000"
ROUNDS=${ROUNDS:-3}; SPEED=${SPEED:-10}; DURATION=${DURATION:-15}
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
T=${TRACE:-$D/chat.lct}
[ -n "${TRACE:-}" ] || "$B/tools/lct/lct" gen -o "$T" --seed 7 --duration "$DURATION" --rate 30 \
  --layout 2x2x8x32:bfloat16 -q
echo "trace: $T, speed $SPEED causal, $ROUNDS rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
  for v in "$@"; do
    name=${v%%:*}; flags=${v#*:}; build=$B; wrap=
    if [[ $name == *!* ]]; then wrap=${name#*!}; name=${name%%!*}; fi
    if [[ $name == *@* ]]; then build=$(realpath "${name#*@}"); name=${name%%@*}; fi
    out=$D/$name.$round
    # shellcheck disable=SC2086
    $wrap "$build/coordinator/coordinator" "$T" --config-from-trace --l1-size-gb 0.05 --no-l1-use-lazy \
      --l2-adapter '{"type":"mock","max_size_gb":64,"mock_bandwidth_gb":10}' --speed "$SPEED" \
      --pacing causal --output-dir "$out" --progress never -q $flags >"$out.log" 2>&1 ||
      { echo "$name failed:"; tail -5 "$out.log"; exit 1; }
    python3 - "$out/fleet_summary.json" "$name" "$round" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); p = s["pacing"]; c = p["edges_late_by_cause"]
sp = next(v for k, v in s["ops"].items() if k.endswith("submit_prefetch_task"))
print(f'{sys.argv[2]:>12} round {sys.argv[3]}: late {p["edges_late_over_50us"]:4d}'
      f' (previous_call {c["previous_call"]}, between_calls {c["between_calls"]},'
      f' next_record {c.get("next_record", "-")}, engine_events {c["engine_events"]},'
      f' woke_late {c["woke_late"]}, after_waking {c["after_waking"]})'
      f' | stretched {p["edges_stretched"]} ({p.get("edges_stretched_late_over_50us", "-")} lagging)'
      f' | submit_prefetch_task p50 {sp["p50_ms"] * 1e3:.1f} us'
      f' | lateness p99 {s["lateness_us"]["p99"]:.0f} us'
      f' | L1+L2 hit {s["cache"]["lookup"]["l1_l2_hit_rate"] * 100:.2f} %')
PY
  done
done
for v in "$@"; do
  name=${v%%:*}; name=${name%%!*}; name=${name%%@*}
  python3 - "$name" "$D"/"$name".*/fleet_summary.json <<'PY'
import json, statistics, sys
late = [json.load(open(f))["pacing"]["edges_late_over_50us"] for f in sys.argv[2:]]
print(f'{sys.argv[1]:>12}: late edges {sorted(late)}, median {statistics.median(late)}')
PY
done
