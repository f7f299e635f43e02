#!/usr/bin/env bash
# Builds the coordinator (both binaries), the worker and lct with profile-guided optimisation
# into ./build-pgo (PGO_BUILD_DIR=...): an instrumented build, a training replay, then a
# rebuild from its profile.
# Opt-in: it builds the binaries twice around a training run, and the default build must not
# depend on a profile that could go stale (docs/architecture.md, "Optimisation"; times and
# figures in docs/benchmarks.md, "Build configurations"). Outputs are those of the default build; only
# speed differs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Its own variable, not build.sh's BUILD_DIR: an exported BUILD_DIR must not turn the default
# build into an instrumented one.
B=${PGO_BUILD_DIR:-build-pgo}
if [ -f "$B/CMakeCache.txt" ] && ! grep -q '^FLEET_PGO:STRING=.' "$B/CMakeCache.txt"; then
  echo "build-pgo: $B holds a build without profile-guided optimisation; give another" \
    "PGO_BUILD_DIR (this script reconfigures and retrains the one it is given)" >&2
  exit 2
fi
TARGETS=(coordinator/coordinator coordinator/coordinator-net worker/worker tools/lct/lct)
configure() {  # PHASE
  cmake --preset "pgo-$1" -B "$B" >/dev/null
}

echo "build-pgo: 1/3 instrumented build in $B" >&2
configure generate
find "$B" -name '*.gcda' -delete  # a profile from older sources would not match them
ninja -C "$B" -j"${JOBS:-2}" "${TARGETS[@]}"

echo "build-pgo: 2/3 training replays" >&2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/tools/lct/lct" gen -o "$T/small.lct" --seed 1 --records 369 --rate 200 --era 3 --tp 1 -q
"$B/tools/lct/lct" gen -o "$T/t.lct" --seed 3 --records 100000 --rate 200 --era 3 --tp 1 -q
"$B/tools/lct/lct" gen -o "$T/e4.lct" --seed 4 --records 20000 --rate 50 --era 4 --tp 2 -q
"$B/tools/lct/lct" info "$T/t.lct" >/dev/null  # lct's own reader, trained too
C=("$B/coordinator/coordinator" --speed 0 -q --progress never)
train() {  # NAME ARGS...
  local name=$1; shift
  "${C[@]}" "$@" --output-dir "$T/o-$name" >"$T/$name.log" 2>&1 || {
    echo "build-pgo: training run '$name' failed:" >&2; cat "$T/$name.log" >&2; exit 1; }
}
for i in 1 2 3; do train "small-$i" "$T/small.lct" --engine noop; done
train noop "$T/t.lct" --engine noop
train native "$T/t.lct" --engine native --config-from-trace
train virtual "$T/t.lct" --engine native --config-from-trace --clock virtual
train era4 "$T/e4.lct" --engine native --config-from-trace
for shard in none time key; do
  train "local-$shard" "$T/t.lct" --engine noop --local 2 --shard "$shard" --window 1
done
echo "build-pgo: $(find "$B" -name '*.gcda' | wc -l) profile files" >&2

echo "build-pgo: 3/3 optimised rebuild" >&2
configure use
ninja -C "$B" -j"${JOBS:-2}" "${TARGETS[@]}"
echo "build-pgo: done: $B/coordinator/coordinator (bench/headline.sh --pgo $B measures it)" >&2
