#!/usr/bin/env bash
# Installs every Debian package Fleet Replay needs to build, test, benchmark and run its demo.
# Idempotent: when everything is present it installs nothing and touches no package list.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libzmq3-dev cppzmq-dev libmsgpack-cxx-dev libspdlog-dev libfmt-dev libcli11-dev
  libzstd-dev libgtest-dev libgmock-dev nlohmann-json3-dev libssl-dev libhiredis-dev
  libbenchmark-dev redis-server redis-tools python3 python3-msgpack python3-yaml
  iproute2 docker-compose clang-format
  clang-14 libclang-rt-14-dev
  libjs-chart.js chromium fonts-liberation
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
