#!/usr/bin/env bash
# Replay-loop benchmark (issue 3), side by side with the Python baseline py_replay.py in the same
# run: (1) --speed 0 with the noop engine, records/s and the ratio to the Python loop;
# (2) paced replays at ~10k and ~100k records/s, dispatch lateness p50/p99 of both.
# Usage: bench/replay_bench.sh [RECORDS]   (needs a build in ./build and /usr/bin/python3)
# py_replay.py is not in this repository: it comes from the project's research notes and is
# looked for at ../shared/bench/py_replay.py; set PYREPLAY=PATH to use another copy
# (docs/benchmarks.md, "Trace reading": the Python baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
N=${1:-200000}
PY=/usr/bin/python3
PYREPLAY=${PYREPLAY:-../shared/bench/py_replay.py}
if [ ! -f "$PYREPLAY" ]; then
  echo "replay_bench.sh: Python baseline not found: $PYREPLAY" >&2
  echo "  It is not part of this repository (docs/benchmarks.md, \"Trace reading\");" >&2
  echo "  set PYREPLAY=/path/to/py_replay.py." >&2
  exit 2
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
field() { $PY -c "import json,sys; d=json.load(open('$1')); print(eval(sys.argv[1], {'d': d}))" "$2"; }

echo "== speed 0, noop engine, $N records (lct gen --seed 1) =="
"$B/tools/lct/lct" gen -o "$TMP/t.lct" --seed 1 --records "$N" --rate 200 -q
ls -l "$TMP/t.lct" | awk '{printf "trace bytes: %s\n", $5}'
best=0
for i in 1 2 3; do
  "$B/coordinator/coordinator" "$TMP/t.lct" --engine noop --speed 0 -q --no-csv \
      --output-dir "$TMP/o" --l1-size-gb 1 --progress never
  r=$(field "$TMP/o/fleet_summary.json" "int(d['records']['total']/d['duration_s'])")
  [ "$r" -gt "$best" ] && best=$r
done
py=$($PY "$PYREPLAY" "$TMP/t.lct" | sed -n 's/.*records_per_s=\([0-9]*\).*/\1/p')
echo "fleet: $best records/s (best of 3)   python loop: $py records/s   ratio: $($PY -c "print(round($best/$py,1))")x"

for rate in 10000 100000; do
  # ~6 records per request in lct gen traffic.
  req=$($PY -c "print($rate/6.0)")
  "$B/tools/lct/lct" gen -o "$TMP/p.lct" --seed 2 --duration 3 --rate "$req" -q
  "$B/coordinator/coordinator" "$TMP/p.lct" --engine noop -q --no-csv --output-dir "$TMP/p" \
      --l1-size-gb 1 --progress never
  f=$(field "$TMP/p/fleet_summary.json" "'%d records over %.2fs; lateness p50 %.1f us, p99 %.1f us, max %.1f us, late>1ms %d' % (d['records']['total'], d['duration_s'], d['lateness_us']['p50'], d['lateness_us']['p99'], d['lateness_us']['max'], d['lateness_us']['late_over_1ms'])")
  p=$($PY "$PYREPLAY" "$TMP/p.lct" --paced | sed -n 's/.*lateness_us \(.*\)/\1/p')
  echo "== paced ~$rate records/s =="
  echo "fleet:  $f"
  echo "python: $p"
done
