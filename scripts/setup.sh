#!/usr/bin/env bash
# Installs the Debian packages Fleet Replay needs. Idempotent: when everything is present it
# installs nothing and (but with --containers) touches no package list.
#   scripts/setup.sh               build, test, benchmark and run the demo (the default)
#   scripts/setup.sh --build-only  only what compiles coordinator, worker and lct (the image's
#                                  build stage, deploy/Dockerfile)
#   scripts/setup.sh --containers  the default set plus podman, podman-compose and debootstrap
#                                  (scripts/image.sh, scripts/compose-test.sh), and Slurm
#   scripts/setup.sh --slurm       the default set plus slurm-wlm and munge (scripts/slurm-test.sh;
#                                  where systemd runs, installing them enables munge, slurmctld
#                                  and slurmd services, which the test neither needs nor uses)
set -euo pipefail

BUILD_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libzmq3-dev cppzmq-dev libmsgpack-cxx-dev libspdlog-dev libfmt-dev libcli11-dev
  libzstd-dev nlohmann-json3-dev libhiredis-dev
  libjs-chart.js
)
TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev redis-server redis-tools
  python3 python3-msgpack python3-yaml
  iproute2 docker-compose clang-format hyperfine
  clang-14 libclang-rt-14-dev
  chromium fonts-liberation
)
CONTAINER_PACKAGES=(
  podman netavark aardvark-dns iptables runc conmon catatonit podman-compose debootstrap
)
SLURM_PACKAGES=(slurm-wlm munge)

case "${1:-}" in
  "") PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  --build-only) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  # CI's set: the compose stage and the Slurm stage after it.
  --containers) PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${CONTAINER_PACKAGES[@]}" "${SLURM_PACKAGES[@]}") ;;
  --slurm) PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${SLURM_PACKAGES[@]}") ;;
  *) echo "setup.sh: unknown option '$1' (--build-only | --containers | --slurm)" >&2; exit 2 ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# --containers (CI) also brings the C and C++ headers every compile reads up to the archive's
# current versions, the ones deploy/Dockerfile's build stage installs: ccache checks each
# header an object was built from, and a host image a point release behind (linux-libc-dev)
# made every object that includes a kernel header miss in the Dockerfile's build
# (docs/reliability.md, "CI and its build cache").
if [ "${1:-}" = --containers ]; then
  headers=(linux-libc-dev libc6-dev libstdc++-12-dev)
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends --only-upgrade "${headers[@]}" |
    grep -E '^(Unpacking|Setting up)' || true
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
