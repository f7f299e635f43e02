#!/usr/bin/env bash
# README command (2): set up, build and run the whole test suite (unit + integration).
# Integration tests start real worker processes over loopback and a real redis-server. The
# suite runs with a TMPDIR of its own and fails if it leaves anything there
# (scripts/ctest-clean-tmp.sh; FLEET_KEEP_TMP=1 keeps the tests' files to debug a failure).
#
#   scripts/test.sh [CTEST_ARGS...]            the suite, RelWithDebInfo, -Werror (./build)
#   scripts/test.sh --sanitize [CTEST_ARGS...] the suite under ASan+UBSan (./build-asan), then
#                                              the threaded suites under TSan (./build-tsan)
#   scripts/test.sh --sanitize=address|thread  only one of the two
#
# A sanitizer run fails on any report, also one from a worker or coordinator process a test
# started (those do not always fail their test): every report goes to a log directory, which
# must be empty at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
case "${1:-}" in
  --sanitize) sanitize="address thread"; shift ;;
  --sanitize=address) sanitize="address"; shift ;;
  --sanitize=thread) sanitize="thread"; shift ;;
  --sanitize=*) echo "test.sh: unknown --sanitize value '${1#--sanitize=}' (address|thread)" >&2; exit 2 ;;
esac

bash scripts/setup.sh
if [ -z "$sanitize" ]; then
  bash scripts/build.sh
  # In a temp dir of its own, which must be empty at the end (the suite leaves nothing behind).
  bash scripts/ctest-clean-tmp.sh "${BUILD_DIR:-build}" --output-on-failure --timeout 300 -j2 "$@"
  exit 0
fi

for kind in $sanitize; do
  bash scripts/sanitize.sh "$kind" "$@"
done
