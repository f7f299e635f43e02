#!/usr/bin/env bash
# `lct mrc` SHARDS accuracy and cost (docs/benchmarks.md § "Miss-ratio curve (lct mrc)"): for
# generated traces of a few seeds, sizes and localities, the exact curve at 40 log-spaced sizes
# and the sampled curves (R = 0.1, 0.01) at the same sizes; mean absolute error of the miss
# ratio over all 40 sizes and over those >= smallest object / R (below that a sampled curve
# cannot resolve anything), the share of accesses the sample kept (R when keys are equally
# popular; far from R when a few hot keys carry the trace), wall time and peak RSS of each run.
#
#   bench/mrc_bench.sh [BUILD_DIR]
set -euo pipefail
B=$(realpath "${1:-build}"); L="$B/tools/lct/lct"
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
# name | lct gen flags
CONFIGS=(
  "s1-600s-r50|--seed 1 --duration 600 --rate 50"
  "s2-600s-r50-cc2k|--seed 2 --duration 600 --rate 50 --cache-chunks 2048"
  "s3-600s-r50-sp64|--seed 3 --duration 600 --rate 50 --system-prompts 64"
  "s4-1200s-r100|--seed 4 --duration 1200 --rate 100"
  "s5-1200s-r100-cc4k|--seed 5 --duration 1200 --rate 100 --cache-chunks 4096"
  "s6-3600s-r100|--seed 6 --duration 3600 --rate 100"
)
run() {  # out_json args... -> "seconds peak_kb"
  local out=$1; shift
  /usr/bin/time -f "%e %M" -o "$D/time" "$L" mrc "$@" --json "$out" >/dev/null
  cat "$D/time"
}
printf '%-20s %9s %7s | %-6s %7s %7s %7s %8s %8s\n' trace accesses keys R kept mae mae_res seconds peak_MB
for c in "${CONFIGS[@]}"; do
  name=${c%%|*}; flags=${c#*|}; t="$D/$name.lct"
  # shellcheck disable=SC2086
  "$L" gen -q -o "$t" $flags
  read -r es em < <(run "$D/exact.json" "$t" --points 40)
  sizes=$(python3 -c "import json,sys; print(','.join(str(p['size_bytes']) for p in json.load(open(sys.argv[1]))['curve']))" "$D/exact.json")
  for r in 0.1 0.01; do
    read -r ss sm < <(run "$D/s$r.json" "$t" --sample "$r" --sizes "$sizes")
    python3 - "$D/exact.json" "$D/s$r.json" "$name" "$r" "$es" "$em" "$ss" "$sm" <<'PY'
import json, sys
e, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
name, r, es, em, ss, sm = sys.argv[3], float(sys.argv[4]), *map(float, sys.argv[5:])
err = [abs(a["miss_ratio"] - b["miss_ratio"]) for a, b in zip(e["curve"], s["curve"])]
res = [x for x, p in zip(err, e["curve"]) if p["size_bytes"] >= e["smallest_object_bytes"] / r]
if r == 0.1:
    print(f"{name:<20} {e['accesses']:>9} {e['distinct_keys']:>7} | {'exact':<6} {'':>7} {'':>7} {'':>7} {es:>8.2f} {em/1024:>8.1f}")
mr = f"{sum(res)/len(res):.4f}" if res else "-"
kept = s["sampled_accesses"] / s["accesses"]
print(f"{'':<20} {'':>9} {'':>7} | {r:<6} {kept:>7.4f} {sum(err)/len(err):>7.4f} {mr:>7} {ss:>8.2f} {sm/1024:>8.1f}")
PY
  done
  rm -f "$t"
done
