#!/usr/bin/env bash
# The headline figures of issue 19, side by side in one run, each against a baseline measured
# in the same run (docs/benchmarks.md, "Headline"):
#   1. embedded replay, whole process (hyperfine), against ../shared/bench/py_replay.py
#   2. the fixed cost: a 369-record trace end to end, and the replay loop's own rate
#   3. --local 2/4 end to end against embedded on the same trace
#   4. aggregate rate of --shard key/time against --shard none, --local 2 and 4, routed live and
#      replayed from a saved routing plan (--route-cache)
#   5. (--with-64) 64 loopback workers at --speed 1: bench/scale64.sh
#   6. (--pgo DIR) goal 1's rows again for the opt-in PGO build in DIR (scripts/build-pgo.sh)
# Usage: bench/headline.sh [--runs N] [--records N] [--with-64] [--pgo DIR]
# Needs a build in ./build (BUILD_DIR=...), hyperfine and python3 (scripts/setup.sh installs
# both); perf is used for counters when present.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
RUNS=10
RECORDS=100000
WITH64=0
PGO=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --with-64) WITH64=1; shift ;;
    --pgo) [ $# -ge 2 ] || { echo "headline.sh: --pgo needs a build directory (scripts/build-pgo.sh)" >&2
             exit 2; }
           PGO=$2; shift 2 ;;
    *) echo "headline.sh: unknown argument '$1' (--runs N | --records N | --with-64 | --pgo DIR)" >&2
       exit 2 ;;
  esac
done
PYREPLAY=${PYREPLAY:-../shared/bench/py_replay.py}
for need in hyperfine python3; do
  command -v "$need" >/dev/null || { echo "headline.sh: $need not found (scripts/setup.sh)" >&2; exit 2; }
done
if [ -n "$PGO" ] && [ ! -x "$PGO/coordinator/coordinator" ]; then
  echo "headline.sh: --pgo $PGO: no coordinator/coordinator there (scripts/build-pgo.sh)" >&2; exit 2
fi
[ -f "$PYREPLAY" ] || { echo "headline.sh: Python baseline not found: $PYREPLAY (set PYREPLAY)" >&2; exit 2; }
C="$B/coordinator/coordinator"
LCT="$B/tools/lct/lct"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$LCT" gen -o "$TMP/t.lct" --seed 1 --records "$RECORDS" --rate 200 --era 3 --tp 1 -q
"$LCT" gen -o "$TMP/small.lct" --seed 1 --records 369 --rate 200 --era 3 --tp 1 -q
"$LCT" gen -o "$TMP/big.lct" --seed 2 --records $((RECORDS * 10)) --rate 2000 --era 3 --tp 1 -q
N=$("$LCT" info "$TMP/t.lct" | awk '/total_records:/ {print $2}')

REPLAY=(--engine noop --speed 0 -q --progress never)
# mean and stddev in seconds of one command, hyperfine -N (no shell), after one warmup
time_cmd() {  # NAME CMD...
  local name=$1; shift
  hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$TMP/$name.json" "$*" >/dev/null 2>&1 || {
    echo "headline.sh: '$*' failed:" >&2; "$@" >&2 || true; exit 1; }
}
time_cmd py /usr/bin/python3 "$PYREPLAY" "$TMP/t.lct"
# Goal 1's three measurements of one coordinator binary, named with SUFFIX.
goal1_runs() {  # COORDINATOR SUFFIX
  time_cmd "embedded$2" "$1" "$TMP/t.lct" "${REPLAY[@]}" --output-dir "$TMP/o-emb$2"
  time_cmd "small$2" "$1" "$TMP/small.lct" "${REPLAY[@]}" --output-dir "$TMP/o-small$2"
  "$1" "$TMP/t.lct" "${REPLAY[@]}" --output-dir "$TMP/o-loop$2"
}
goal1_runs "$C" ""
if [ -n "$PGO" ]; then goal1_runs "$PGO/coordinator/coordinator" "-pgo"; fi
# --shard time --window 1: the trace replayed once in total, as embedded does (--shard none
# would replay it N times, N times the work on this host's cores).
for n in 2 4; do
  time_cmd "local$n" "$C" "$TMP/t.lct" "${REPLAY[@]}" --local "$n" --shard time --window 1 \
    --output-dir "$TMP/o-l$n"
done
# Each mode routed live three times, then with --route-cache: one run saves the routing plan,
# three replay it (docs/sharding.md, "Saved routing plans").
for n in 2 4; do
  for shard in none time key; do
    for i in 1 2 3; do
      "$C" "$TMP/big.lct" "${REPLAY[@]}" --local "$n" --shard "$shard" --window 1 \
        --output-dir "$TMP/s-$n-$shard-$i" 2>"$TMP/s-$n-$shard-$i.log"
    done
    for i in 0 1 2 3; do
      "$C" "$TMP/big.lct" "${REPLAY[@]}" --local "$n" --shard "$shard" --window 1 \
        --route-cache "$TMP/routes" --output-dir "$TMP/p-$n-$shard-$i" 2>"$TMP/p-$n-$shard-$i.log"
    done
    grep -q "route plan: replaying" "$TMP/p-$n-$shard-3.log" || {
      echo "headline.sh: --route-cache did not replay a saved plan:" >&2
      cat "$TMP/p-$n-$shard-3.log" >&2
      exit 1
    }
  done
done
perf_line=""
if command -v perf >/dev/null && perf stat -x, -e task-clock true >/dev/null 2>&1; then
  perf stat -x, -r 5 -e task-clock,page-faults,instructions,cycles -o "$TMP/perf.csv" \
    "$C" "$TMP/small.lct" "${REPLAY[@]}" --output-dir "$TMP/o-perf" >/dev/null 2>&1 || true
  perf_line=$(python3 - "$TMP/perf.csv" <<'EOF'
import sys
vals = {}
for line in open(sys.argv[1]):
    p = line.strip().split(",")
    if len(p) > 3 and p[0] and not line.startswith("#"):
        try:
            vals[p[2]] = float(p[0])
        except ValueError:
            pass
parts = []
if "task-clock" in vals: parts.append(f"task-clock {vals['task-clock']:.2f} ms")
if "page-faults" in vals: parts.append(f"page-faults {vals['page-faults']:.0f}")
if "instructions" in vals: parts.append(f"instructions {vals['instructions'] / 1e6:.1f}M")
if "cycles" in vals: parts.append(f"cycles {vals['cycles'] / 1e6:.1f}M")
print(", ".join(parts) if parts else "(perf counted nothing)")
EOF
)
fi

python3 - "$TMP" "$N" "$RUNS" "$perf_line" <<'EOF'
import json, os, statistics, sys
tmp, n, runs, perf_line = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def hf(name):
    r = json.load(open(os.path.join(tmp, name + ".json")))["results"][0]
    return r["mean"], r["stddev"] or 0.0
def summary(d):
    return json.load(open(os.path.join(tmp, d, "fleet_summary.json")))
rows = []
def row(metric, value, baseline, ratio, goal, ok):
    rows.append((metric, value, baseline, ratio, goal, "yes" if ok else "NO"))
py, py_sd = hf("py")
# Goal 1's rows for one build's runs (suffix "" or "-pgo"); returns its mean and loop rate.
def goal1_rows(suffix, label, base_rate=None):
    emb, emb_sd = hf("embedded" + suffix)
    row(f"1 embedded whole process{label}",
        f"{emb*1e3:.1f} ± {emb_sd*1e3:.1f} ms ({n/emb/1e6:.2f}M rec/s)",
        f"py_replay {py*1e3:.0f} ± {py_sd*1e3:.0f} ms ({n/py/1e3:.0f}k rec/s)", f"{py/emb:.1f}x",
        ">= 20x", py / emb >= 20)
    small, small_sd = hf("small" + suffix)
    row(f"1 fixed cost (369 records){label}", f"{small*1e3:.2f} ± {small_sd*1e3:.2f} ms", "", "",
        "<= 5 ms", small <= 0.005)
    loop = summary("o-loop" + suffix)
    rate = loop["records"]["total"] / loop["duration_s"]
    row(f"1 replay loop (inside){label}", f"{rate/1e6:.2f}M rec/s",
        "" if base_rate is None else f"default build {base_rate/1e6:.2f}M rec/s",
        "" if base_rate is None else f"{rate/base_rate:.2f}x", ">= 2.5M/s", rate >= 2.5e6)
    return emb, rate
emb, rate = goal1_rows("", "")
if os.path.exists(os.path.join(tmp, "embedded-pgo.json")):
    goal1_rows("-pgo", ", PGO build", rate)
for k in (2, 4):
    m, sd = hf(f"local{k}")
    over = (m - emb) * 1e3
    row(f"2 --local {k} --shard time, whole process", f"{m*1e3:.0f} ± {sd*1e3:.0f} ms",
        f"embedded {emb*1e3:.0f} ms", f"+{over:.0f} ms", "<= +150 ms", over <= 150)
def agg(k, shard, prefix="s"):
    best = 0.0
    for i in (1, 2, 3):
        s = summary(f"{prefix}-{k}-{shard}-{i}")
        best = max(best, s["records"]["total"] / s["coordinator"]["wall_since_t0_s"])
    return best
for prefix, how in (("s", ""), ("p", ", saved plan")):
    for k in (2, 4):
        none = agg(k, "none", prefix)
        if k == 2:
            row(f"3 --local 2 --shard none{how}", f"{none/1e6:.2f}M rec/s", "", "",
                ">= 2.5M/s", none >= 2.5e6)
        for shard in ("time", "key"):
            r = agg(k, shard, prefix)
            row(f"3 --local {k} --shard {shard}{how}", f"{r/1e6:.2f}M rec/s",
                f"none{how} {none/1e6:.2f}M rec/s", f"{r/none*100:.0f} %", ">= 90 %",
                r >= 0.9 * none)
widths = [max(len(str(r[i])) for r in rows + [("metric", "value", "baseline", "ratio", "goal", "met")]) for i in range(6)]
fmt = " | ".join("{:<%d}" % w for w in widths)
print(fmt.format("metric", "value", "baseline (same run)", "ratio", "goal", "met"))
print("-+-".join("-" * w for w in widths))
for r in rows:
    print(fmt.format(*r))
print(f"\ntrace: {n} records (lct gen --seed 1 --era 3 --tp 1); whole-process times: hyperfine -N, "
      f"1 warmup + {runs} runs; aggregate rates: records replayed / wall since T0, best of 3, "
      f"on a 10x trace (saved plan: --route-cache, the plan saved by a fourth run before them)")
if perf_line:
    print(f"perf stat, 369-record embedded run (mean of 5): {perf_line}")
EOF
if [ "$WITH64" = 1 ]; then bash bench/scale64.sh; fi
