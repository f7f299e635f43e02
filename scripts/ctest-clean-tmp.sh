#!/usr/bin/env bash
# ctest in BUILD_DIR with a temp dir of its own, which must be empty when the suite ends: a suite
# that leaves files behind fills a developer's /tmp or a long-lived CI runner's disk
# (docs/reliability.md, "Tests leave nothing behind"). scripts/test.sh runs the suite this way.
#   scripts/ctest-clean-tmp.sh BUILD_DIR [CTEST_ARGS...]
# TMPDIR (std::filesystem::temp_directory_path, mktemp, the processes tests start) and
# TEST_TMPDIR (GoogleTest's ::testing::TempDir) both point at it. Fails, naming each leftover,
# when anything is left; with FLEET_KEEP_TMP set (tests keep their directories to debug a
# failure) it keeps the directory and prints where it is instead.
set -euo pipefail
build="${1:?usage: ctest-clean-tmp.sh BUILD_DIR [CTEST_ARGS...]}"
shift

suite_tmp=$(mktemp -d "${TMPDIR:-/tmp}/fleet-suite-tmp.XXXXXX")
if [ -n "${FLEET_KEEP_TMP:-}" ]; then
  echo "ctest-clean-tmp: FLEET_KEEP_TMP is set: the tests' directories are kept in $suite_tmp"
else
  trap 'rm -rf "$suite_tmp"' EXIT
fi

status=0
(cd "$build" && TMPDIR="$suite_tmp" TEST_TMPDIR="$suite_tmp" ctest "$@") || status=$?

[ -n "${FLEET_KEEP_TMP:-}" ] && exit "$status"
left=$(find "$suite_tmp" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
if [ -n "$left" ]; then
  echo "ctest-clean-tmp: FAIL: the suite left $(wc -l <<<"$left") entries in its temp dir" \
    "(a test wrote outside a ScratchDir, tests/support/scratch_dir.h):" >&2
  sed 's/^/  /' <<<"$left" | head -100 >&2
  status=1
else
  echo "ctest-clean-tmp: the suite left nothing in its temp dir"
fi
exit "$status"
