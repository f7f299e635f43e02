#!/usr/bin/env bash
# scripts/ctest-clean-tmp.sh on tiny ctest trees: a suite that leaves a file in its temp dir
# fails, naming it; one that cleans up passes; TMPDIR and TEST_TMPDIR are the same fresh
# directory, and the script itself leaves nothing behind either way.
#   ctest_clean_tmp_test.sh REPO
set -euo pipefail
repo="${1:?usage: ctest_clean_tmp_test.sh REPO}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# suite NAME SHELL-COMMAND: a ctest tree in $tmp/NAME whose one test runs the command.
suite() {
  mkdir -p "$tmp/$1"
  printf 'add_test(t "sh" "-c" "%s")\n' "$2" >"$tmp/$1/CTestTestfile.cmake"
}
suite leaves 'touch \"$TMPDIR/left-behind.lct\" && test -n \"$TEST_TMPDIR\" && mkdir \"$TEST_TMPDIR/a-dir\"'
suite clean 'test -d \"$TMPDIR\" && test \"$TMPDIR\" = \"$TEST_TMPDIR\" && touch \"$TMPDIR/x\" && rm \"$TMPDIR/x\"'

mkdir "$tmp/outer"
status=0
out=$(TMPDIR="$tmp/outer" bash "$repo/scripts/ctest-clean-tmp.sh" "$tmp/leaves" 2>&1) || status=$?
[ "$status" = 1 ] || fail "a suite that leaves files: exit $status, expected 1: $out"
grep -q "left 2 entries" <<<"$out" || fail "the count of leftovers is not named: $out"
grep -q "^  left-behind.lct$" <<<"$out" || fail "the leftover file is not named: $out"
grep -q "^  a-dir$" <<<"$out" || fail "the leftover directory is not named: $out"
[ -z "$(ls -A "$tmp/outer")" ] || fail "the script left its temp dir: $(ls -A "$tmp/outer")"

out=$(TMPDIR="$tmp/outer" bash "$repo/scripts/ctest-clean-tmp.sh" "$tmp/clean" 2>&1) ||
  fail "a suite that cleans up failed: $out"
grep -q "left nothing" <<<"$out" || fail "no verdict printed: $out"
[ -z "$(ls -A "$tmp/outer")" ] || fail "the script left its temp dir: $(ls -A "$tmp/outer")"
echo "ctest-clean-tmp.sh: leftovers fail and are named; a clean suite passes; nothing left"
