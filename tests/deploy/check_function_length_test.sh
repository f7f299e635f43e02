#!/usr/bin/env bash
# scripts/check-function-length.py on the repository (no function over 80 lines but the named
# exceptions), and on a small tree: an 81-line function must fail and be named with its file,
# line and length; an 80-line one, braces in comments and literals, and a lambda inside a
# function (counted with it) must not.
set -euo pipefail
src=${1:?usage: check_function_length_test.sh SOURCE_DIR}
check="$src/scripts/check-function-length.py"
python3 "$check" --source "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/replay" "$tmp/engine"
# A function whose body spans LINES lines, brace to brace; its filler holds a lambda and
# braces the scan must not count (a comment, a string, a character literal, a raw string).
function_of() {
  local name=$1 lines=$2
  echo "int $name(int x) {"
  echo "  auto twice = [](int y) { return 2 * y; };"
  echo '  const char* s = "}}"; char c = '"'}'"'; // }'
  echo '  const char* raw = R"(})";'
  for ((i = 0; i < lines - 6; i++)); do echo "  x += twice(1'000);"; done
  echo "  return x + (s[0] == c) + (raw[0] == c);"
  echo "}"
}
{
  echo "namespace fleet::replay {"
  echo "struct Session {"
  echo "  int short_one() const { return 1; }"
  echo "};"
  function_of fits 80
  echo "}  // namespace fleet::replay"
} > "$tmp/replay/session.cc"
{
  echo "#include <cstdint>"
  echo "namespace fleet::storage {"
  echo "/* { an unbalanced brace in a comment */"
  function_of too_long 81
  echo "}  // namespace fleet::storage"
} > "$tmp/engine/manager.cc"
if out=$(python3 "$check" --source "$tmp" 2>&1); then
  echo "FAIL: check-function-length.py accepted an 81-line function:"; echo "$out"; exit 1
fi
echo "$out"
grep -q "engine/manager.cc:4: too_long is 81 lines" <<<"$out" \
  || { echo "FAIL: the 81-line function is not named with its file, line and length"; exit 1; }
if grep -q "fits" <<<"$out"; then
  echo "FAIL: the 80-line function was reported"; exit 1
fi
rm "$tmp/engine/manager.cc"
python3 "$check" --source "$tmp" || { echo "FAIL: the 80-line function alone fails"; exit 1; }
echo "check_function_length_test: ok"
