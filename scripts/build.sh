#!/usr/bin/env bash
# Configures and builds everything into ./build (CMakePresets.json's `default`: RelWithDebInfo,
# Ninja, warnings as errors, through ccache when installed), -j2.
#   BUILD_DIR=DIR     another tree;  JOBS=N     parallel jobs
#   TARGETS="a b"     only those targets (CI builds what its stages run)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake --preset default -B "$BUILD_DIR" >/dev/null
# shellcheck disable=SC2086
ninja -C "$BUILD_DIR" -j"${JOBS:-2}" ${TARGETS:-}
