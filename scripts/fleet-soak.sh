#!/usr/bin/env bash
# Soak: repeats real fleet runs (--local 2 and 4; --shard time and none; records by reference
# and streamed) for a while and keeps the full log of every run that fails. Races between
# processes show up here, not in the unit suite: the DONE_ACK fix came from a loop like this
# (docs/protocol.md § 6). Not part of scripts/test.sh; run it before changing the protocol.
#   scripts/fleet-soak.sh [SECONDS=300] [BUILD_DIR=build] [RECORDS=200000]
set -uo pipefail
secs="${1:-300}"
build="${2:-$(cd "$(dirname "$0")/.." && pwd)/build}"
records="${3:-200000}"
work="$(mktemp -d)"
trap 'rm -rf "$work/trace.lct"' EXIT
"$build/bench/fleet_bench" gen "$work/trace.lct" "$records" >/dev/null  # ~1 KiB records
runs=0
fails=0
end=$((SECONDS + secs))
while [ "$SECONDS" -lt "$end" ]; do
  for local in 2 4; do
    for shard in time none; do
      for access in shared stream; do
        runs=$((runs + 1))
        log="$work/run-$runs.log"
        "$build/coordinator/coordinator" "$work/trace.lct" --local "$local" --shard "$shard" \
          --window 1 --engine noop --speed 0 --start-delay 0 -q --progress never \
          --trace-access "$access" --output-dir "$work/out" 2>"$log"
        rc=$?
        if [ "$rc" -ne 0 ]; then
          fails=$((fails + 1))
          echo "FAIL (exit $rc): --local $local --shard $shard --trace-access $access; log: $log"
        else
          rm -f "$log"
        fi
      done
    done
  done
done
if [ "$fails" -eq 0 ]; then
  rm -rf "$work"
  echo "runs=$runs failures=0"
  exit 0
fi
echo "runs=$runs failures=$fails (logs of the failed runs are in $work)"
exit 1
