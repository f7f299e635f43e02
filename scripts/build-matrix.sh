#!/usr/bin/env bash
# Builds and tests the configurations docs/reliability.md promises, one after another, each in
# its own tree, and prints a line per configuration: build time, tests passed, warnings.
#   scripts/build-matrix.sh [CONFIG...]    CONFIG: release debug relwithdebinfo clang
# (default: all four). Warnings are errors here (-DFLEET_WERROR=ON), as in CI; a user's plain
# `cmake -S . -B build && cmake --build build` only warns.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(release debug relwithdebinfo clang)

summary=()
status=0
for c in "${configs[@]}"; do
  case "$c" in
    release | debug | relwithdebinfo | clang) ;;  # presets of CMakePresets.json
    *) echo "build-matrix: unknown configuration '$c'" >&2; exit 2 ;;
  esac
  dir="build-matrix-$c"
  log="$dir.log"
  start=$SECONDS
  echo "build-matrix: $c (preset $c) -> $dir, log $log"
  if cmake --preset "$c" >"$log" 2>&1 && ninja -C "$dir" -j"${JOBS:-2}" >>"$log" 2>&1; then
    built=$((SECONDS - start))
    warnings=$(grep -c "warning:" "$log" || true)
    (cd "$dir" && ctest --timeout 600 -j2) >>"$log" 2>&1
    rc=$?
    tests=$(grep -Eo "[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1)
    summary+=("$c: built in ${built}s, $warnings warnings; $tests")
    [ $rc -ne 0 ] && status=1
  else
    summary+=("$c: BUILD FAILED after $((SECONDS - start))s (see $log)")
    status=1
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
