#!/usr/bin/env bash
# scripts/check-rooms.py on the repository (every include follows the rooms' directions, no
# room over 20 % of the lines), and on a small tree that breaks each rule once: it must fail
# and name the file, line and rule.
set -euo pipefail
src=${1:?usage: check_rooms_test.sh SOURCE_DIR}
check="$src/scripts/check-rooms.py"
python3 "$check" --source "$src" --sizes

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/trace" "$tmp/insight" "$tmp/plan"
printf '#include "fleet/util/status.h"\n#include "fleet/insight/html/html_writer.h"\n' > "$tmp/trace/record.cc"
printf '#include "../plan/private.h"\n' > "$tmp/insight/page.cc"
printf '#include "fleet/trace/record.h"\n' > "$tmp/plan/router.cc"
if out=$(python3 "$check" --source "$tmp" 2>&1); then
  echo "FAIL: check-rooms.py accepted a backward include:"; echo "$out"; exit 1
fi
echo "$out"
grep -q "trace/record.cc:2: room 'trace' may not include 'fleet/insight/html/html_writer.h'" <<<"$out" \
  || { echo "FAIL: the backward include is not named"; exit 1; }
grep -q "insight/page.cc:1: '../plan/private.h' reaches out of room 'insight'" <<<"$out" \
  || { echo "FAIL: the relative include out of the room is not named"; exit 1; }
if grep -q "plan/router.cc" <<<"$out"; then
  echo "FAIL: an allowed include was reported"; exit 1
fi
echo "check_rooms_test: ok"
