#!/usr/bin/env bash
# Builds the one image everything runs from, fleet-replay:local (deploy/Dockerfile, docs/compose.md):
# coordinator, worker, lct, redis-server and tini, from Debian packages alone, no registry.
#
#   scripts/image.sh [--tag NAME] [--no-cache] [--print-runtime]
#                    [--from-build DIR | --check-dockerfile]
#
# Default: deploy/Dockerfile whole, from source (the users' path).
# --from-build DIR: the Dockerfile's runtime stage (its last stage, extracted from the file, not
#   copied) fed the binaries of an existing build tree (CI: the tree the suite just tested), with
#   a check that every library they load is in the image. Compiles nothing.
# --check-dockerfile: proves deploy/Dockerfile builds from source, cheaply: its build stage only
#   (the runtime stage is the one --from-build uses), with podman mounting this project's ccache
#   (FLEET_CCACHE_DIR) into the compile, whose flags are the suite's (the `image` preset), so a
#   machine that has built the suite recompiles nothing. Tags NAME (default fleet-replay:check).
#
# Runtime: podman where present (preferred), else docker with a running engine; FLEET_RUNTIME
# forces one. Exit 3 (with the reason) when neither can run containers here.
# Base: FLEET_BASE_IMAGE if set; else debian:bookworm-slim or debian:bookworm if the runtime
# already has it; else fleet-base:bookworm, made once with debootstrap --variant=minbase from
# the mirror the host's apt uses, slimmed (no docs, man pages, locales, apt lists) and imported.
# Podman reads the containers.conf this script writes under build-containers/ (CONTAINERS_CONF;
# never /etc): default_ulimits = [], because a sandbox may forbid raising RLIMIT_NOFILE, and
# the runc runtime.
# Layers, the base image and the debootstrap tarball stay cached between runs on one machine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tag="fleet-replay:local"
no_cache=()
print_runtime=0
from_build=""
check_dockerfile=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --no-cache) no_cache=(--no-cache); shift ;;
    --print-runtime) print_runtime=1; shift ;;
    --from-build) from_build="${2:?image.sh: --from-build needs a build directory}"; shift 2 ;;
    --check-dockerfile) check_dockerfile=1; shift ;;
    *) echo "image.sh: unknown argument '$1' (--tag NAME | --no-cache | --print-runtime | --from-build DIR | --check-dockerfile)" >&2; exit 2 ;;
  esac
done

state="${FLEET_CONTAINER_DIR:-$root/build-containers}"
mkdir -p "$state"
say() { echo "image: $*" >&2; }

# --- the runtime --------------------------------------------------------------------------
if command -v podman >/dev/null && [ -z "${CONTAINERS_CONF:-}" ] &&
  { [ -z "${FLEET_RUNTIME:-}" ] || [ "${FLEET_RUNTIME:-}" = podman ]; }; then
  # runc, not crun: crun refuses a host with cgroups v1 and v2 mounted side by side
  # ("cgroups in hybrid mode not supported"), as on these sandboxes.
  printf '# written by scripts/image.sh\n[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' \
    >"$state/containers.conf"
  export CONTAINERS_CONF="$state/containers.conf"
fi
pick_runtime() {
  local want="${FLEET_RUNTIME:-}"
  if [ -z "$want" ] || [ "$want" = podman ]; then
    if command -v podman >/dev/null; then
      if podman info >/dev/null 2>"$state/podman-info.err"; then
        echo podman
        return
      fi
      say "podman is installed but cannot run here: $(tail -1 "$state/podman-info.err")"
    fi
    [ "$want" = podman ] && return 1
  fi
  if command -v docker >/dev/null; then
    if docker info >/dev/null 2>"$state/docker-info.err"; then
      echo docker
      return
    fi
    say "docker is installed but has no engine: $(tail -1 "$state/docker-info.err")"
  fi
  return 1
}
if ! rt=$(pick_runtime); then
  say "no container runtime can run here (install one: scripts/setup.sh --containers)"
  exit 3
fi
if [ "$print_runtime" = 1 ]; then
  echo "$rt"
  [ -n "${CONTAINERS_CONF:-}" ] && echo "CONTAINERS_CONF=$CONTAINERS_CONF"
  exit 0
fi
say "runtime $rt${CONTAINERS_CONF:+ (CONTAINERS_CONF=$CONTAINERS_CONF)}"

has_image() { "$rt" image inspect "$1" >/dev/null 2>&1; }

# --- the base ----------------------------------------------------------------------------
# The host apt's Debian mirror for SUITE (deb822 sources or a classic sources.list), never a
# fixed host; "" when it has none.
host_mirror() {
  local suite="$1" uri
  uri=$(awk -v s="$suite" '/^URIs:/ {u=$2}
    /^Suites:/ && u { for (i = 2; i <= NF; i++) if ($i == s) { print u; exit } }' \
    /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  [ -z "$uri" ] && uri=$(awk -v s="$suite" '$1=="deb" && $3==s {print $2; exit}' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
  echo "$uri"
}

make_base() {
  local tarball="$state/bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    command -v debootstrap >/dev/null || {
      say "no Debian base image and no debootstrap (scripts/setup.sh --containers)"
      exit 3
    }
    local mirror security dir
    mirror=$(host_mirror bookworm)
    security=$(host_mirror bookworm-security)
    [ -n "$mirror" ] || { say "cannot find a bookworm mirror in the host's apt sources"; exit 1; }
    dir="$state/rootfs"
    rm -rf "$dir"
    say "debootstrap --variant=minbase bookworm from $mirror (once; cached in $tarball)"
    local t0=$SECONDS
    debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$state/debootstrap.log" 2>&1 || {
      tail -5 "$state/debootstrap.log" >&2
      exit 1
    }
    {
      echo "deb $mirror bookworm main"
      echo "deb $mirror bookworm-updates main"
      [ -n "$security" ] && echo "deb $security bookworm-security main"
    } >"$dir/etc/apt/sources.list"
    # As Debian's slim images: no docs, man pages or locales, now or in later installs.
    cat >"$dir/etc/dpkg/dpkg.cfg.d/90-fleet-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
      >"$dir/etc/apt/apt.conf.d/90-fleet-no-recommends"
    find "$dir/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$dir"/usr/share/{man,info,locale,lintian}/* "$dir"/var/cache/apt/archives/*.deb \
      "$dir"/var/lib/apt/lists/* "$dir"/var/log/* "$dir"/tmp/*
    tar -C "$dir" --numeric-owner -cf "$tarball.part" .
    mv "$tarball.part" "$tarball"
    rm -rf "$dir"
    say "base root file system: $(du -m "$tarball" | cut -f1) MB in $((SECONDS - t0)) s"
  fi
  "$rt" import --change 'CMD ["/bin/bash"]' "$tarball" fleet-base:bookworm >/dev/null
}

base="${FLEET_BASE_IMAGE:-}"
if [ -z "$base" ]; then
  for candidate in debian:bookworm-slim debian:bookworm fleet-base:bookworm; do
    if has_image "$candidate"; then base="$candidate"; break; fi
  done
fi
if [ -z "$base" ]; then
  make_base
  base=fleet-base:bookworm
fi
say "base $base"

# --- the image ---------------------------------------------------------------------------
t0=$SECONDS
build_flags=()
# podman build's RUN steps do not follow containers.conf's engine runtime: name it.
[ "$rt" = podman ] && build_flags=(--runtime runc)
build_log="$state/build.log"
run_build() {  # CONTEXT ARGS...: one image build, its log kept, the tail shown on failure
  local context="$1"
  shift
  "$rt" build "${build_flags[@]}" "${no_cache[@]}" --build-arg "BASE=$base" "$@" "$context" \
    >"$build_log" 2>&1 || {
    tail -30 "$build_log" >&2
    say "build failed (log $build_log)"
    exit 1
  }
}
BINARIES=(coordinator/coordinator coordinator/coordinator-net worker/worker tools/lct/lct)

if [ "$check_dockerfile" = 1 ]; then
  [ "$tag" = fleet-replay:local ] && tag=fleet-replay:check
  ccache_args=()
  if [ "$rt" = podman ]; then
    cache="${FLEET_CCACHE_DIR:-$HOME/.cache/fleet-ccache}"
    mkdir -p "$cache"
    ccache_args=(-v "$cache:/ccache" --build-arg FLEET_CCACHE_DIR=/ccache)
  fi
  run_build . -f deploy/Dockerfile --target build "${ccache_args[@]}" -t "$tag"
  # The stage's own checks ran (static libzmq and libstdc++); its binaries must also start.
  for b in coordinator coordinator-net worker lct; do
    flag=--version
    [ "$b" = lct ] && flag=--help  # lct's flags belong to its subcommands
    "$rt" run --rm --network none "$tag" "/out/usr/local/bin/$b" "$flag" >/dev/null 2>"$state/check-$b.err" ||
      { cat "$state/check-$b.err" >&2; say "the Dockerfile's $b does not start"; exit 1; }
  done
  say "deploy/Dockerfile's build stage builds ($tag) in $((SECONDS - t0)) s (log $build_log)"
  exit 0
fi

if [ -n "$from_build" ]; then
  # A context of its own: the binaries (stripped, as the build stage strips them), the two
  # scripts the runtime stage copies, and that stage itself taken out of deploy/Dockerfile,
  # its `COPY --from=build /out/ /` pointed at the binaries here.
  ctx="$state/from-build"
  rm -rf "$ctx" && mkdir -p "$ctx/out/usr/local/bin" "$ctx/deploy/docker" "$ctx/scripts"
  for b in "${BINARIES[@]}"; do
    [ -x "$from_build/$b" ] || { say "--from-build: no $from_build/$b (build it first: scripts/build.sh)"; exit 1; }
    strip -o "$ctx/out/usr/local/bin/$(basename "$b")" "$from_build/$b"
  done
  cp -p deploy/docker/fleet-coordinator.sh "$ctx/deploy/docker/"
  cp -p scripts/fleet-keys.sh "$ctx/scripts/"
  awk '/^FROM / { body = "" } { body = body $0 "\n" } END { printf "%s", body }' deploy/Dockerfile |
    sed 's|^COPY --from=build /out/ /$|COPY out/ /|' >"$ctx/Dockerfile.runtime"
  { grep -m1 '^ARG BASE=' deploy/Dockerfile; cat "$ctx/Dockerfile.runtime"; } >"$ctx/Dockerfile"
  grep -q '^COPY out/ /$' "$ctx/Dockerfile" ||
    { say "deploy/Dockerfile's last stage no longer copies /out/ from the build stage"; exit 1; }
  run_build "$ctx" -f "$ctx/Dockerfile" -t "$tag"
  # Every library each binary loads must be in the image (ldd inside it names a missing one).
  missing=$("$rt" run --rm --network none --entrypoint /bin/sh "$tag" -c \
    'for b in /usr/local/bin/coordinator /usr/local/bin/coordinator-net /usr/local/bin/worker /usr/local/bin/lct; do ldd "$b" 2>&1 | sed "s|^|$b: |"; done' |
    grep 'not found' || true)
  [ -z "$missing" ] || { echo "$missing" >&2; say "--from-build: the image lacks libraries its binaries load"; exit 1; }
  size=$("$rt" image inspect --format '{{.Size}}' "$tag")
  say "built $tag from $from_build's binaries in $((SECONDS - t0)) s: $((size / 1000000)) MB (log $build_log)"
  exit 0
fi

run_build . -f deploy/Dockerfile -t "$tag"
size=$("$rt" image inspect --format '{{.Size}}' "$tag")
say "built $tag in $((SECONDS - t0)) s: $((size / 1000000)) MB (log $build_log)"
