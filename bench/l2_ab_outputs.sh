#!/usr/bin/env bash
# Output A/B of two builds on L2 traces (docs/benchmarks.md, "L2 replay"): the fixture and two
# generated traces, each replayed by both builds. Under --clock virtual a run is repeatable, so
# l2_replay_stats.json, the terminal and report.html must match byte for byte (report.html less
# its generation time and its directory); at --speed 0 on the real clock the counts, outcomes and plan_sha256 must.
# `lct info|lint|cat` of each trace too.
#   bench/l2_ab_outputs.sh NEW_BUILD_DIR OLD_BUILD_DIR [REQUESTS]   (REQUESTS: 20000)
set -u
NEW=$(realpath "${1:?NEW_BUILD_DIR}")
OLD=$(realpath "${2:?OLD_BUILD_DIR}")
requests=${3:-20000}
here=$(cd "$(dirname "$0")/.." && pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
mock='{"type":"mock","max_size_gb":1024,"mock_bandwidth_gb":1024}'
bin() { [ "$1" = new ] && echo "$NEW" || echo "$OLD"; }
coord() { local b; b=$(bin "$1"); [ -x "$b/coordinator/coordinator" ] && echo "$b/coordinator/coordinator" || echo "$b/coordinator"; }
lct() { local b; b=$(bin "$1"); [ -x "$b/tools/lct/lct" ] && echo "$b/tools/lct/lct" || echo "$b/lct"; }
gen=$NEW/bench/l2_trace_gen

cp "$here/tests/fixtures/lmcache/l2/l2_small.lct" "$D/fixture.lct"
"$gen" "$D/gen.lct" --requests "$requests" --rate 20000 >/dev/null

same() {  # same WHAT FILE_NEW FILE_OLD
  cmp -s "$2" "$3" && echo "$1: identical" || echo "$1: DIFFERS"
}

for t in fixture gen; do
  for cmd in info lint cat; do
    for side in new old; do "$(lct $side)" $cmd "$D/$t.lct" >"$D/$t.$cmd.$side" 2>&1; done
    same "$t lct $cmd" "$D/$t.$cmd.new" "$D/$t.$cmd.old"
  done
done

# Virtual clock: everything but report.html's generation time.
virtual_runs=(
  "fixture:s0:--speed 0"
  "fixture:s1:--speed 1"
  "fixture:prep:--speed 1 --prepare-l2"
  "fixture:p50:--speed 10 --trace-percent 50"
  "gen:s10:--speed 10"
  "gen:s0:--speed 0"
)
for run in "${virtual_runs[@]}"; do
  t=${run%%:*}; rest=${run#*:}; name=${rest%%:*}; args=${rest#*:}
  for side in new old; do
    out=$D/$t.$name.$side
    # shellcheck disable=SC2086
    (cd "$D" && "$(coord $side)" "$t.lct" --clock virtual --l2-adapter "$mock" \
      --output-dir "$out" $args >"$out.stdout" 2>&1; echo "exit $?" >>"$out.stdout")
    sed -i "s|$out|OUT|g" "$out.stdout"
    sed -E "s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z//g; s/[0-9]+\.[0-9]+\.[0-9]+-([0-9a-f]{12}|unknown)//g; s|$out|OUT|g" \
      "$out/report.html" >"$out.report" 2>/dev/null
  done
  same "$t $args (virtual): l2_replay_stats.json" "$D/$t.$name.new/l2_replay_stats.json" \
    "$D/$t.$name.old/l2_replay_stats.json"
  same "$t $args (virtual): terminal" "$D/$t.$name.new.stdout" "$D/$t.$name.old.stdout"
  same "$t $args (virtual): report.html" "$D/$t.$name.new.report" "$D/$t.$name.old.report"
done

# Real clock, speed 0: what does not depend on timing.
for side in new old; do
  (cd "$D" && "$(coord $side)" gen.lct --speed 0 --l2-adapter "$mock" --output-dir "$D/real.$side" -q \
    >/dev/null 2>&1)
done
python3 - "$D/real.new/l2_replay_stats.json" "$D/real.old/l2_replay_stats.json" <<'PY'
import json, sys
def facts(p):
    j = json.load(open(p))
    f = j["fleet"]
    return {
        "operations_submitted": j["operations_submitted"],
        "bytes_submitted": j["bytes_submitted"],
        "outcome_comparisons": j["outcome_comparisons"],
        "plan": f["plan"],
        "dependency_violations": f["dependency_violations"],
        "completed": {k: v["completed"] for k, v in f["by_operation"].items()},
    }
a, b = facts(sys.argv[1]), facts(sys.argv[2])
print("gen --speed 0 (real clock): counts, plan_sha256:", "identical" if a == b else f"DIFFERS\n{a}\n{b}")
PY
