#!/usr/bin/env bash
# The compose stack for real (docs/compose.md § Tested): builds the image (cached when
# unchanged), brings up Redis, 3 workers and the coordinator on a private network, replays a
# generated trace with --shard key, checks the result from the host, then kills a worker
# mid-run in a second run and checks exit 3 with the partial report, and tears it all down
# (also on failure or Ctrl-C), leaving no container, pod, network or volume behind.
#
#   scripts/compose-test.sh [--skip-if-unavailable] [--from-build DIR] [--check-dockerfile]
#
# --skip-if-unavailable: where no container runtime can run, print why and exit 0 (CI).
# --from-build DIR: the image from DIR's binaries (scripts/image.sh --from-build), not compiled
#   again; CI passes the tree its tests stage just tested.
# --check-dockerfile: afterwards, prove that deploy/Dockerfile builds from source
#   (scripts/image.sh --check-dockerfile), as CI does when it used --from-build.
# FLEET_COMPOSE overrides the compose command (default: podman-compose with podman, else
# `docker compose`, else docker-compose). Each step is bounded by FLEET_STEP_TIMEOUT_S (300).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
skip_ok=0
image_args=()
check_dockerfile=0
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-if-unavailable) skip_ok=1; shift ;;
    --from-build) image_args=(--from-build "${2:?compose-test.sh: --from-build needs a build directory}"); shift 2 ;;
    --check-dockerfile) check_dockerfile=1; shift ;;
    *) echo "compose-test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
step_timeout="${FLEET_STEP_TIMEOUT_S:-300}"
t_start=$SECONDS
step() { echo "compose-test: [$((SECONDS - t_start))s] $*"; }
fail() {
  echo "compose-test: FAIL: $*" >&2
  exit 1
}

# --- image and runtime ---------------------------------------------------------------------
rc=0
runtime_info=$(bash scripts/image.sh --print-runtime 2>&1) || rc=$?
if [ $rc -eq 3 ]; then
  if [ $skip_ok = 1 ]; then
    echo "compose-test: SKIPPED: $runtime_info"
    exit 0
  fi
  fail "$runtime_info"
fi
[ $rc -eq 0 ] || fail "$runtime_info"
rt=$(echo "$runtime_info" | head -1)
conf=$(echo "$runtime_info" | sed -n 's/^CONTAINERS_CONF=//p')
[ -n "$conf" ] && export CONTAINERS_CONF="$conf"

step "image: scripts/image.sh ${image_args[*]} ($rt)"
timeout "${FLEET_IMAGE_TIMEOUT_S:-1800}" bash scripts/image.sh "${image_args[@]}" || fail "image build"
image=fleet-replay:local

if [ -n "${FLEET_COMPOSE:-}" ]; then
  read -r -a compose <<<"$FLEET_COMPOSE"
elif [ "$rt" = podman ] && command -v podman-compose >/dev/null; then
  compose=(podman-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
else
  fail "no compose tool for $rt (podman-compose, docker compose or docker-compose)"
fi

# --- a private project directory -------------------------------------------------------------
work=$(mktemp -d /tmp/fleet-compose.XXXXXX)
project="fleettest$$"
uid=$(id -u)
gid=$(id -g)
export FLEET_UID=$uid FLEET_GID=$gid FLEET_SHARD=key FLEET_EXPECT_WORKERS=3
export FLEET_TRACE=/traces/sample.lct
export FLEET_DNS_WAIT_S=60 FLEET_L1_SIZE_GB=1 FLEET_MAX_L1_GB=2 FLEET_REDIS_MAXMEMORY=512mb
cp docker-compose.yml "$work/"
mkdir -p "$work/out" "$work/traces" "$work/deploy"
dc() { (cd "$work" && timeout "$step_timeout" "${compose[@]}" -p "$project" -f docker-compose.yml "$@"); }

leftovers() {
  {
    "$rt" ps -a --format '{{.Names}}' | grep "$project" || true
    "$rt" network ls --format '{{.Name}}' | grep "$project" || true
    "$rt" volume ls --format '{{.Name}}' | grep "$project" || true
    if [ "$rt" = podman ]; then "$rt" pod ps --format '{{.Name}}' | grep "$project" || true; fi
  } 2>/dev/null
}
teardown() {
  dc down -v -t 2 >"$work/down.log" 2>&1 || true
  # Whatever compose left (a killed container, the network, podman's pod): by the project name.
  for c in $("$rt" ps -a --format '{{.Names}}' | grep "$project" || true); do
    "$rt" rm -f "$c" >/dev/null 2>&1 || true
  done
  if [ "$rt" = podman ]; then
    for p in $("$rt" pod ps --format '{{.Name}}' | grep "$project" || true); do
      "$rt" pod rm -f "$p" >/dev/null 2>&1 || true
    done
  fi
  for n in $("$rt" network ls --format '{{.Name}}' | grep "$project" || true); do
    "$rt" network rm -f "$n" >/dev/null 2>&1 || true
  done
  for v in $("$rt" volume ls --format '{{.Name}}' | grep "$project" || true); do
    "$rt" volume rm -f "$v" >/dev/null 2>&1 || true
  done
}
cleanup() {
  local status=$?
  step "teardown"
  teardown
  local left
  left=$(leftovers)
  if [ -n "$left" ]; then
    echo "compose-test: FAIL: left behind: $left" >&2
    status=1
  fi
  if [ $status -ne 0 ]; then
    echo "compose-test: logs kept in $work" >&2
  else
    rm -rf "$work"
  fi
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_image() {  # runs a tool of the image as the calling user, with the project dir at /w
  timeout "$step_timeout" "$rt" run --rm --network none --user "$uid:$gid" -v "$work:/w" \
    --entrypoint "" "$image" "$@"
}

step "keys: fleet-keys /w/deploy/keys (inside the image)"
in_image fleet-keys /w/deploy/keys >"$work/keys.log" 2>&1 || fail "fleet-keys: $(tail -3 "$work/keys.log")"

step "trace: lct gen (inside the image)"
in_image lct gen -o /w/traces/sample.lct --seed 11 --duration 30 --rate 20 --era 3 --tp 1 \
  --layout 2x4x8x128:bfloat16 >"$work/gen.log" 2>&1 || fail "lct gen: $(tail -3 "$work/gen.log")"
records=$(in_image lct info /w/traces/sample.lct | awk '/total_records:/ {print $2}')
[ -n "$records" ] && [ "$records" -gt 0 ] || fail "lct info: no total_records for the generated trace"
step "trace: $records records"

summary_field() {  # summary_field FILE PYTHON-EXPR-ON-s
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($2)" "$1"
}
expect_balanced() {  # expect_balanced RUN: its fleet_summary.json exists and its accounting adds up
  [ -s "$work/out/fleet_summary.json" ] || fail "$1 wrote no fleet_summary.json"
  [ "$(summary_field "$work/out/fleet_summary.json" 's["accounting"]["balanced"]')" = True ] ||
    fail "$1: record accounting does not balance"
}

# --- run 1: the whole stack to a correct report ----------------------------------------------
container_of() {  # the project's container of a service (the last replica)
  "$rt" ps -a --format '{{.Names}}' | grep "$project" | grep "$1" | sort | tail -1
}
wait_coordinator() {  # waits for the coordinator container to end; prints its exit status
  local c
  c=$(container_of coordinator)
  [ -n "$c" ] || fail "$1: no coordinator container"
  timeout "$step_timeout" "$rt" wait "$c" | tail -1 || fail "$1: the coordinator did not end"
  "$rt" logs "$c" >"$work/$1-coordinator.log" 2>&1 || true
}

# Detached, so that Redis still holds the keys when the coordinator has finished.
step "run 1: up -d, 3 workers (--shard key --speed 0)"
FLEET_SPEED=0 dc up -d --scale worker=3 >"$work/run1-up.log" 2>&1 ||
  fail "run 1 up: $(tail -5 "$work/run1-up.log")"
rc=$(wait_coordinator run1)
[ "$rc" = 0 ] || fail "run 1: coordinator exited $rc, expected 0: $(tail -5 "$work/run1-coordinator.log")"
expect_balanced "run 1"
s="$work/out/fleet_summary.json"
nodes=$(summary_field "$s" 'len(s["nodes"])')
[ "$nodes" = 3 ] || fail "fleet_summary.json has $nodes nodes, expected 3"
traced=$(summary_field "$s" 's["accounting"]["trace_records"]')
[ "$traced" = "$records" ] || fail "summary counts $traced trace records, lct info $records"
merged=$(summary_field "$s" 's["records"]["total"] - s["accounting"].get("split_extra_parts", 0)')
[ "$merged" = "$records" ] || fail "merged records $merged (less split parts) != trace's $records"
step "run 1: exit 0, 3 nodes, $merged of $records records, accounting balanced"

keys=$("$rt" exec "$(container_of redis)" redis-cli --scan 2>/dev/null | head -1000 || true)
nkeys=$(printf '%s\n' "$keys" | grep -c . || true)
[ "$nkeys" -gt 0 ] || fail "no key in the shared Redis after run 1"
# LMCache's resp key: MODEL@RANK(8 hex)@GROUP(hex)@CHUNK_HASH(hex)[@SALT]
bad=$(printf '%s\n' "$keys" | grep -Evc '^([^:@]+:)?[^@]+@[0-9a-f]{8}@[0-9a-f]+@[0-9a-f]+(@.*)?$' || true)
[ "$bad" = 0 ] || fail "$bad Redis keys not named as LMCache names them, e.g. $(printf '%s\n' "$keys" | head -1)"
step "run 1: $nkeys+ Redis keys, named as LMCache names them (e.g. $(printf '%s\n' "$keys" | head -1))"

owners=$(find "$work/out" -mindepth 1 -not -uid "$uid" | head -3)
[ -z "$owners" ] || fail "report files not owned by uid $uid: $owners"
step "run 1: every file in out/ owned by uid $uid"
mv "$work/out" "$work/out-run1"
mkdir -p "$work/out"
dc down -v -t 2 >"$work/down1.log" 2>&1 || true

# --- run 2: a worker killed mid-run ----------------------------------------------------------
step "run 2: up -d (--speed 1, a 30 s trace), then kill one worker mid-run"
FLEET_SPEED=1 dc up -d --scale worker=3 >"$work/run2-up.log" 2>&1 || fail "run 2 up: $(tail -5 "$work/run2-up.log")"
coord=$(container_of coordinator)
[ -n "$coord" ] || fail "run 2: no coordinator container"
started=0
for _ in $(seq 1 120); do
  if "$rt" logs "$coord" 2>&1 | grep -q "start: T0"; then started=1; break; fi
  sleep 0.5
done
[ $started = 1 ] || fail "run 2: the coordinator did not start the run: $("$rt" logs "$coord" 2>&1 | tail -5)"
sleep 3
victim=$(container_of worker)
step "run 2: kill $victim"
"$rt" kill "$victim" >/dev/null
code=$(wait_coordinator run2)
[ "$code" = 3 ] || fail "run 2: coordinator exited $code, expected 3 (a lost worker): $(tail -5 "$work/run2-coordinator.log")"
expect_balanced "run 2"
lost=$(summary_field "$work/out/fleet_summary.json" \
  'sum(1 for n in s["nodes"] if n.get("status") == "lost")')
[ "$lost" = 1 ] || fail "run 2: $lost nodes reported lost, expected 1"
step "run 2: exit 3, 1 node lost, partial report with balanced accounting"
if [ $check_dockerfile = 1 ]; then
  step "deploy/Dockerfile from source: scripts/image.sh --check-dockerfile"
  timeout "${FLEET_IMAGE_TIMEOUT_S:-1800}" bash scripts/image.sh --check-dockerfile ||
    fail "deploy/Dockerfile does not build"
fi
step "ok in $((SECONDS - t_start)) s"
