#!/usr/bin/env bash
# README command (2): set up, build and run the whole test suite (unit + integration).
# Integration tests start real worker processes over loopback and a real redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure --timeout 300 -j2 "$@"
