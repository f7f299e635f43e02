#!/usr/bin/env bash
# CI run of the L2 contention scenario: N = 1 and 2 on a short generated trace against a real
# redis-server, table checked for sane values (l2-contention.sh --check: every node reports,
# L2 ops > 0, fairness in (0, 1]). Bounded: fails when it takes 60 s or more.
#   contention_test.sh BUILD_DIR [--ns]
# Exit 77 (ctest SKIP) with the reason printed when redis-server, lct, or (--ns) network
# namespaces are not available.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export BUILD_DIR="${1:?usage: contention_test.sh BUILD_DIR [--ns]}"
shift
command -v redis-server >/dev/null 2>&1 || { echo "SKIPPED: redis-server is not installed"; exit 77; }
[[ -x "$BUILD_DIR/tools/lct/lct" ]] || { echo "SKIPPED: $BUILD_DIR/tools/lct/lct is not built (needed to generate the trace)"; exit 77; }
out="$(mktemp -d "${TMPDIR:-/tmp}/fleet-contention.XXXXXX")"
trap 'rm -rf "$out"' EXIT
start=$(date +%s)
set +e
# 128 KiB chunks, 2 s of traffic: small enough for 2 shared cores, real Redis traffic all the same.
timeout -k 5 55 bash "$root/scripts/l2-contention.sh" --sizes "1 2" --duration 2 --rate 20 \
  --layout 2x2x1x64:bfloat16 --out "$out" --check "$@" -- --start-delay 0.5
rc=$?
set -e
elapsed=$(( $(date +%s) - start ))
echo "contention_test: exit $rc after ${elapsed}s"
if [[ $rc == 77 ]]; then exit 77; fi
if [[ $rc != 0 ]]; then
  for f in "$out"/n*/*.err; do [[ -f "$f" ]] && { echo "== $f"; tail -n 20 "$f"; }; done
  exit 1
fi
[[ $elapsed -lt 60 ]] || { echo "contention_test: took ${elapsed}s (bound 60 s)"; exit 1; }
