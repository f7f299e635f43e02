#!/usr/bin/env bash
# A multi-host fleet on one machine: N worker network namespaces and one coordinator namespace,
# joined by a bridge that lives inside the coordinator namespace (10.77.0.0/24). Nothing is
# added to the host's own namespace, and everything is torn down on exit (trap).
#
#   scripts/netns-cluster.sh --check
#       exit 0 when network namespaces can be created here, else print why and exit 77
#   scripts/netns-cluster.sh --trace FILE --out DIR [--workers N] [--bin-dir BUILD]
#                            [--worker-arg ARG]... [-- COORDINATOR ARGS...]
#       runs N workers (one per namespace, --max-runs 1) and the coordinator against a hosts
#       file; exits with the coordinator's status. Logs and outputs go to DIR. Every worker and
#       the coordinator get CURVE keys made for the run (DIR/keys, `worker keygen`): the workers
#       listen on non-loopback addresses, where protected mode requires a key.
set -euo pipefail

workers=3
bin_dir="$(cd "$(dirname "$0")/.." && pwd)/build"
trace=""
out=""
check=0
worker_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --check) check=1; shift ;;
    --trace) trace="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --worker-arg) worker_args+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "netns-cluster.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

tag="flt$$"  # unique per run, so concurrent runs never collide
namespaces=()
pids=()

cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v ip >/dev/null 2>&1; then
  echo "netns-cluster.sh: the ip command (iproute2) is not installed" >&2
  exit 77
fi
probe="${tag}-probe"
if ! err=$(ip netns add "$probe" 2>&1); then
  echo "netns-cluster.sh: cannot create a network namespace (needs CAP_SYS_ADMIN): $err" >&2
  exit 77
fi
namespaces+=("$probe")
if ! err=$(ip -n "$probe" link add br0 type bridge 2>&1); then
  echo "netns-cluster.sh: cannot create a bridge inside a namespace: $err" >&2
  exit 77
fi
ip netns del "$probe"
namespaces=()
[[ $check == 1 ]] && exit 0

[[ -n "$trace" && -n "$out" ]] || { echo "netns-cluster.sh: --trace and --out are required" >&2; exit 2; }
mkdir -p "$out"
# One key pair per worker and one for the coordinator; hosts.txt carries each worker's key.
keys="$out/keys"
mkdir -p "$keys"
public_key() { sed -n 's/^ *public-key = "\(.*\)"$/\1/p' "$1"; }
"$bin_dir/worker/worker" keygen coordinator --dir "$keys" --force >/dev/null
coord_ns="${tag}-c"
ip netns add "$coord_ns"
namespaces+=("$coord_ns")
ip -n "$coord_ns" link set lo up
ip -n "$coord_ns" link add br0 type bridge
ip -n "$coord_ns" addr add 10.77.0.1/24 dev br0
ip -n "$coord_ns" link set br0 up

: > "$out/hosts.txt"
echo "# written by netns-cluster.sh: one worker namespace per line" >> "$out/hosts.txt"
for i in $(seq 1 "$workers"); do
  ns="${tag}-w$i"
  addr="10.77.0.$((10 + i))"
  ip netns add "$ns"
  namespaces+=("$ns")
  ip -n "$ns" link set lo up
  ip -n "$coord_ns" link add "vw$i" type veth peer name eth0 netns "$ns"
  ip -n "$coord_ns" link set "vw$i" master br0
  ip -n "$coord_ns" link set "vw$i" up
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  "$bin_dir/worker/worker" keygen "w$i" --dir "$keys" --force >/dev/null
  ip netns exec "$ns" "$bin_dir/worker/worker" --listen "tcp://$addr:5555" --announce \
    --max-runs 1 --name "ns-w$i" --curve-cert "$keys/w$i.key_secret" \
    --authorized-keys "$keys/coordinator.key" ${worker_args[@]+"${worker_args[@]}"} \
    >"$out/w$i.out" 2>"$out/w$i.err" &
  pids+=($!)
  echo "$addr:5555 key=$(public_key "$keys/w$i.key")" >> "$out/hosts.txt"
done

# Each worker prints LISTENING once bound; wait for all of them (bounded).
for i in $(seq 1 "$workers"); do
  for _ in $(seq 1 400); do
    grep -q '^LISTENING ' "$out/w$i.out" 2>/dev/null && break
    sleep 0.05
  done
  grep -q '^LISTENING ' "$out/w$i.out" || { echo "netns-cluster.sh: worker $i did not start" >&2; cat "$out/w$i.err" >&2; exit 2; }
done

set +e
ip netns exec "$coord_ns" "$bin_dir/coordinator/coordinator" "$trace" \
  --workers "$out/hosts.txt" --expect-workers "$workers" --output-dir "$out" \
  --curve-cert "$keys/coordinator.key_secret" "$@" \
  >"$out/coordinator.out" 2>"$out/coordinator.err"
rc=$?
set -e
echo "netns-cluster.sh: coordinator exited $rc (outputs in $out)" >&2
exit $rc
