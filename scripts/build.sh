#!/usr/bin/env bash
# Configures and builds everything into ./build (Release with debug info, Ninja, -j2), with
# warnings as errors (-DFLEET_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLEET_WERROR=ON >/dev/null
ninja -C "$BUILD_DIR" -j"${JOBS:-2}"
