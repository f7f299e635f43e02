#!/usr/bin/env bash
# One sanitizer pass (scripts/test.sh --sanitize calls it):
#   scripts/sanitize.sh address [CTEST_ARGS...]  whole suite, ASan+UBSan, ./build-asan
#   scripts/sanitize.sh thread  [CTEST_ARGS...]  the threaded suites, TSan, ./build-tsan
# Built with clang-14 when present (so this is also the project's clang build), else g++.
# Sanitizer reports from every process (tests, and the workers and coordinators they start)
# go to one log directory; the pass fails if ctest fails or if that directory is not empty.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:?usage: sanitize.sh address|thread [CTEST_ARGS...]}"
shift

case "$kind" in
  address)
    build="${ASAN_BUILD_DIR:-build-asan}"
    flags="address,undefined"
    kind_preset=asan
    # Every target: every C++ unit and integration test runs instrumented. The tests of no C++
    # of ours run once, in the default build's pass (scripts/test.sh): the deploy files' checks
    # (Python), the Kubernetes schemas (npm) and the pages drawn in headless Chromium (the C++
    # that writes those pages is tested here by the report's own tests).
    targets=()
    ctest_filter=(-E '^(deploy_files|deploy_k8s_schemas|deploy_doc_refs|deploy_rooms|deploy_function_length|deploy_throws|deploy_ctest_clean_tmp)$|^ReportBrowser\.')
    ;;
  thread)
    build="${TSAN_BUILD_DIR:-build-tsan}"
    flags="thread"
    kind_preset=tsan
    # The threaded parts: the worker's batch queue and liveness (unit_service), and the real
    # processes with their network, replay, link and merge threads (integration tests of the
    # protocol, failures, lifecycles, shard unions and start sync), and the engine's own threads:
    # its driver (HeldWakeups) and the fs adapter's pool (FsAdapter, where TSan found
    # EventLoop::now_ns read off the engine thread).
    targets=(unit_service unit_replay unit_storage integration_tests worker coordinator coordinator-net lct)
    ctest_filter=(-R "BatchQueue|Liveness|Dispatcher|Session|Protocol|WorkerLoss|CoordinatorLoss|Lifecycle|ShardUnion|StartSync|SharedTrace|HeldWakeups|FsAdapter")
    # The preset links the shared libzmq and libsodium: TSan cannot see their own
    # synchronisation, and the suppressions (tests/sanitizer/tsan.supp) name them by library,
    # which a static link hides.
    ;;
  *) echo "sanitize.sh: unknown kind '$kind' (address|thread)" >&2; exit 2 ;;
esac

# Presets (CMakePresets.json): clang-14 when present (so this is also the project's clang build),
# else g++. -O1 and line tables only: half the compile time of -O2 -g, stacks still name
# file:line; no NDEBUG, so every assert is checked as well. With clang the ASan+UBSan tree also
# holds the libFuzzer targets (coverage instrumentation costs the suite little), so CI builds
# the project once for both: scripts/fuzz.sh uses it.
preset=$kind_preset
if ! command -v clang++-14 >/dev/null; then
  [ "$kind" = thread ] && { echo "sanitize.sh: TSan needs clang-14 (scripts/setup.sh)" >&2; exit 2; }
  preset=asan-gcc
fi
cmake --preset "$preset" -B "$build" >/dev/null
echo "sanitize: building $build (preset $preset, -fsanitize=$flags)"
ninja -C "$build" -j"${JOBS:-2}" "${targets[@]}"

reports="$(pwd)/$build/sanitizer-reports"
rm -rf "$reports" && mkdir -p "$reports"
supp="$(pwd)/tests/sanitizer"
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"

status=0
(cd "$build" && ctest --output-on-failure --timeout 600 -j2 "${ctest_filter[@]}" "$@") || status=$?

found=$(find "$reports" -type f | wc -l)
if [ "$found" -gt 0 ]; then
  echo "sanitize: $found sanitizer report(s) in $reports:"
  for f in "$reports"/*; do
    echo "==== $f"
    head -60 "$f"
  done
  status=1
fi
[ "$status" -eq 0 ] && echo "sanitize: $kind: suite passed, no sanitizer report"
exit "$status"
