#!/usr/bin/env bash
# scripts/check-throws.py on the repository (expected failures are Status/Result values; the
# throws left are the listed classes), and on a small tree: a new throw in an unlisted file
# must fail naming the file, one in a comment must not count, and a listed file that throws
# fewer than its entry must fail as stale.
set -euo pipefail
src=${1:?usage: check_throws_test.sh SOURCE_DIR}
check="$src/scripts/check-throws.py"
python3 "$check" --source "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every listed file, as often as the list allows: the small tree starts clean.
while IFS= read -r line; do
  path=${line%%: *}
  rest=${line#*: }
  n=${rest%%:*}
  mkdir -p "$tmp/$(dirname "$path")"
  for ((i = 0; i < n; i++)); do echo 'void f() { throw std::invalid_argument("x"); }'; done \
    > "$tmp/$path"
done < <(python3 "$check" --allowed)
python3 "$check" --source "$tmp" || { echo "FAIL: the listed throws alone fail"; exit 1; }

mkdir -p "$tmp/replay"
{
  echo '// throw std::runtime_error("in a comment: not counted")'
  echo '/* throw std::invalid_argument("nor here") */'
  echo 'void g() { throw std::runtime_error("a new one"); }'
} > "$tmp/replay/new_file.cc"
if out=$(python3 "$check" --source "$tmp" 2>&1); then
  echo "FAIL: check-throws.py accepted a new throw:"; echo "$out"; exit 1
fi
echo "$out"
grep -q "^replay/new_file.cc: 1 throw(s)" <<<"$out" \
  || { echo "FAIL: the new throw is not named with its file and count"; exit 1; }
rm "$tmp/replay/new_file.cc"

: > "$tmp/stats/lateness_stats.cc"  # converted: the entry must come down with it
if out=$(python3 "$check" --source "$tmp" 2>&1); then
  echo "FAIL: check-throws.py accepted a stale entry:"; echo "$out"; exit 1
fi
grep -q "^stats/lateness_stats.cc: stale entry" <<<"$out" \
  || { echo "FAIL: the stale entry is not named"; echo "$out"; exit 1; }
echo "check_throws_test: ok"
