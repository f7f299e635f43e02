#!/usr/bin/env bash
# Output A/B of two builds on one generated trace, with --clock virtual so runs are repeatable:
# LMCache's files and the terminal byte for byte, fleet_summary.json less its measured fields,
# and report.html as each binary rebuilds it from the same stored run directory.
#   bench/ab_outputs.sh NEW_BUILD_DIR OLD_BUILD_DIR   (e.g. build /tmp/oldbuild of an older commit)
# Left out as volatile (they differ between two runs of one binary): worker addresses (ports),
# the measured clock offsets, the start's timings and T0, the count of progress messages.
# Expected difference against a build before issue 41: plan.workers[].routed_by (who routed each
# worker's records, docs/sharding.md) is new; it is left out with the volatile fields.
# Expected difference against a build before protocol 11: coordinator.done_bytes shrinks (DONE's
# latency samples packed as whole-ns deltas, docs/protocol.md § 6); every output stays the same.
set -u
NEW=$(realpath "${1:?NEW_BUILD_DIR}"); OLD=$(realpath "${2:?OLD_BUILD_DIR}"); D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
$NEW/tools/lct/lct gen -o $D/t.lct --seed 5 --duration 30 --rate 20 --era 3 --tp 1 >/dev/null
$OLD/tools/lct/lct gen -o $D/t_old.lct --seed 5 --duration 30 --rate 20 --era 3 --tp 1 >/dev/null
cmp $D/t.lct $D/t_old.lct && echo "lct gen: identical trace"
$NEW/tools/lct/lct info $D/t.lct > $D/info.new; $OLD/tools/lct/lct info $D/t.lct > $D/info.old; cmp $D/info.new $D/info.old && echo "lct info: identical"
run() { # name side args...
  local name=$1 side=$2; shift 2; local B=$NEW; [ $side = old ] && B=$OLD
  (cd $D && $B/coordinator/coordinator t.lct --config-from-trace --clock virtual --output-dir $D/$name.$side "$@" > $D/$name.$side.stdout 2>$D/$name.$side.stderr; echo "exit $?" >> $D/$name.$side.stdout)
}
for cfg in "embedded:" "none2:--local 2 --shard none --speed 0" "key2:--local 2 --shard key --speed 0" "time2:--local 2 --shard time --window 5 --speed 0"; do
  name=${cfg%%:*}; args=${cfg#*:}
  run $name new $args; run $name old $args
  for f in trace_replay_ops.csv trace_replay_summary.json; do
    [ -f $D/$name.new/$f ] || continue
    cmp -s $D/$name.new/$f $D/$name.old/$f && echo "$name $f: identical" || echo "$name $f: DIFFERS"
  done
  # A worker's measured clock offset (off=…us) is the one volatile field of the terminal.
  for side in new old; do sed -E 's/ off=-?[0-9.]+us / off=_ /; s/^(local-[0-9]+:) +/\1 /' $D/$name.$side.stdout > $D/$name.$side.stdout.stripped; done
  cmp -s $D/$name.new.stdout.stripped $D/$name.old.stdout.stripped && echo "$name stdout (clock offsets aside): identical" || echo "$name stdout: DIFFERS"
  python3 - "$D/$name.new/fleet_summary.json" "$D/$name.old/fleet_summary.json" "$name" <<'PY'
import json,sys
VOL={"start","t0_mono_ns","address","messages","peak_rss_bytes","cpu_user_s","cpu_system_s","wall_since_t0_s","phase_s","clock_offset_us","clock_uncertainty_us","build_id","started_at","wall_s","duration_s","rss","t0_spread_us","first_dispatch_us","routed_by","thread_cpu_s","during_replay"}
def strip(o):
    if isinstance(o,dict): return {k:strip(v) for k,v in o.items() if k not in VOL}
    if isinstance(o,list): return [strip(v) for v in o]
    return o
a,b=(json.load(open(p)) for p in sys.argv[1:3])
def diff(x,y,path=""):
    if type(x)!=type(y): print("  ",path,"type",type(x).__name__,type(y).__name__); return
    if isinstance(x,dict):
        for k in sorted(set(x)|set(y)):
            if k not in x or k not in y: print("  ",path+"/"+k,"only in", "new" if k in x else "old"); continue
            diff(x[k],y[k],path+"/"+k)
    elif isinstance(x,list):
        if len(x)!=len(y): print("  ",path,"len",len(x),len(y)); return
        for i,(u,v) in enumerate(zip(x,y)): diff(u,v,f"{path}[{i}]")
    elif x!=y: print("  ",path,repr(x)[:80],"vs",repr(y)[:80])
sa,sb=strip(a),strip(b)
print(sys.argv[3],"fleet_summary.json (volatile fields aside):","identical" if sa==sb else "DIFFERS")
if sa!=sb: diff(sa,sb)
PY
  # report.html rebuilt by each binary from the same stored run directory (the new run's):
  # identical but for the generation time and the build id.
  if [ -f $D/$name.new/fleet_summary.json ]; then
    for side in new old; do
      B=$NEW; [ $side = old ] && B=$OLD
      $B/coordinator/coordinator report $D/$name.new -o $D/$name.report.$side.html > /dev/null 2>&1
      sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z//g' \
             -e 's/[0-9]+\.[0-9]+\.[0-9]+-([0-9a-f]{12}|unknown)//g' \
             $D/$name.report.$side.html > $D/$name.report.$side.stripped
    done
    cmp -s $D/$name.report.new.stripped $D/$name.report.old.stripped &&
      echo "$name report.html rebuilt from the stored run: identical" ||
      echo "$name report.html rebuilt from the stored run: DIFFERS"
  fi
done
