#!/usr/bin/env bash
# README command (1): set up, build, generate a sample trace and replay it with the coordinator.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p out
B=${BUILD_DIR:-build}
"$B/tools/lct/lct" gen -o out/sample.lct --seed 7 --duration 5 --rate 40 --era 3 --tp 1
"$B/tools/lct/lct" info out/sample.lct
# Embedded (a drop-in for `lmcache trace replay`), then the same trace on two local workers.
"$B/coordinator/coordinator" out/sample.lct --config-from-trace --output-dir out --json "$@"
"$B/coordinator/coordinator" out/sample.lct --config-from-trace --output-dir out/fleet \
    --local 2 --shard key --progress never "$@"
echo "outputs in ./out (embedded) and ./out/fleet (2 workers): trace_replay_ops.csv,"
echo "trace_replay_summary.json, fleet_summary.json, fleet_nodes.csv, fleet_l2_windows.csv"
