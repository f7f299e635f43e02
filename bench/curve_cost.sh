#!/usr/bin/env bash
# What CURVE costs a fleet run (issue #15's goal: <= 15 % fewer records/s): the same
# `--local 2 --shard none --speed 0` replay with per-run CURVE keys (the default) and with
# --insecure (plaintext), alternated RUNS times each so drift hits both alike. Aggregate
# records/s = records replayed by every node / the coordinator's wall time since T0.
#
#   bench/curve_cost.sh [BUILD_DIR] [RUNS] [TRACE_ACCESS] [COMPRESSION]
# TRACE_ACCESS: auto (--local workers get 16-byte references) or stream (whole records travel,
# so CURVE encrypts every byte of them).
set -euo pipefail
B=$(realpath "${1:-build}"); RUNS=${2:-5}; ACCESS=${3:-auto}; COMPRESSION=${4:-auto}
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
"$B/tools/lct/lct" gen -o "$D/t.lct" --seed 3 --duration 300 --rate 200 --era 3 --tp 1 >/dev/null
rate() {  # mode out_dir
  local extra=(); [[ $1 == plaintext ]] && extra=(--insecure)
  "$B/coordinator/coordinator" "$D/t.lct" --config-from-trace --local 2 --shard none --speed 0 \
    --engine noop --trace-access "$ACCESS" --routing coordinator --compression "$COMPRESSION" --start-delay 0.2 -q --progress never --output-dir "$2" ${extra[@]+"${extra[@]}"} 2>/dev/null
  python3 - "$2/fleet_summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(node["records"]["total"] if isinstance(node.get("records"), dict) else node["records"] for node in d["nodes"])
print(f"{n / d['coordinator']['wall_since_t0_s']:.0f}")
PY
}
declare -A all=([curve]="" [plaintext]="")
for i in $(seq 1 "$RUNS"); do
  for mode in curve plaintext; do all[$mode]+="$(rate $mode "$D/$mode$i") "; done
done
python3 - "${all[curve]}" "${all[plaintext]}" <<'PY'
import statistics as st, sys
c = [float(x) for x in sys.argv[1].split()]; p = [float(x) for x in sys.argv[2].split()]
fmt = lambda v: f"{st.mean(v)/1e6:.3f}M/s (sd {st.pstdev(v)/1e6:.3f}, n={len(v)})"
print("curve    ", fmt(c)); print("plaintext", fmt(p))
print(f"CURVE / plaintext records/s: {st.mean(c)/st.mean(p):.3f}  (median ratio {st.median(c)/st.median(p):.3f})")
PY
