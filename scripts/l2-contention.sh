#!/usr/bin/env bash
# The L2 contention scenario in one command: how does one shared Redis L2 hold up when N nodes
# replay the same production traffic at once? Starts a real redis-server on a free loopback port,
# replays one trace at every fleet size (default N = 1, 2, 4) with every worker's engine using
# that Redis as its `resp` L2 adapter, and prints one table (`coordinator report --contention`,
# see docs/contention.md); every run directory also holds its own report.html.
#
#   scripts/l2-contention.sh [--sizes "1 2 4"] [--duration S] [--rate R] [--trace FILE]
#                            [--mode none|stack] [--ns] [--out DIR] [--speed X]
#                            [--l1-size-gb F] [--layout GEOMETRY] [--redis-maxmemory SIZE]
#                            [--timeout S] [--check] [-- EXTRA COORDINATOR ARGS...]
#
#   --mode none   (default) `--shard none`: every node replays the whole trace, so each node
#                 offers exactly the recorded load and the fleet offers N times it, on the same
#                 keys (N replicas of the recorded node sharing one L2).
#   --mode stack  `--shard time --timeline stack`: the trace is cut into N time windows that all
#                 start at T0, so each node offers the recorded rate on its own slice of the keys.
#   --ns          run each fleet inside network namespaces (scripts/netns-cluster.sh): workers
#                 are separate hosts with their own addresses; Redis runs in the coordinator's
#                 namespace. Skipped, with the reason printed, where namespaces are not allowed.
#   --check       exit 1 unless every node reported, L2 ops > 0 and fairness is in (0, 1].
#
# Binaries come from $BUILD_DIR (default ./build). Exit 77 = skipped (redis-server missing).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${BUILD_DIR:-$ROOT/build}"
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac

sizes="1 2 4"
duration=10
rate=20
trace=""
mode=none
use_ns=0
out=""
speed=1
l1_size_gb=0.25
layout="2x4x2x128:bfloat16"   # 1 MiB per 256-token chunk: real payloads, laptop-sized
redis_maxmemory=2gb
run_timeout=""
check=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --trace) trace="$2"; shift 2 ;;
    --mode) mode="$2"; shift 2 ;;
    --ns) use_ns=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --speed) speed="$2"; shift 2 ;;
    --l1-size-gb) l1_size_gb="$2"; shift 2 ;;
    --layout) layout="$2"; shift 2 ;;
    --redis-maxmemory) redis_maxmemory="$2"; shift 2 ;;
    --timeout) run_timeout="$2"; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "l2-contention: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
extra=("$@")
[[ $mode == none || $mode == stack ]] || { echo "l2-contention: --mode must be none or stack" >&2; exit 2; }

say() { echo "l2-contention: $*" >&2; }
skip() { echo "l2-contention: SKIPPED: $*"; exit 77; }

command -v redis-server >/dev/null 2>&1 || skip "redis-server is not installed (Debian: apt-get install redis-server, or scripts/setup.sh)"
command -v python3 >/dev/null 2>&1 || { say "python3 is required (free port, RESP helper, trace length)"; exit 2; }
for b in coordinator/coordinator coordinator/coordinator-net worker/worker; do
  [[ -x "$BIN/$b" ]] || { say "$BIN/$b not built (run scripts/build.sh or set BUILD_DIR)"; exit 2; }
done

netns_script="$ROOT/scripts/netns-cluster.sh"
if [[ $use_ns == 1 ]]; then
  [[ -f "$netns_script" ]] || skip "--ns: $netns_script is missing"
  command -v ip >/dev/null 2>&1 || skip "--ns: the ip command (iproute2) is not installed"
  set +e
  reason=$(bash "$netns_script" --check 2>&1)
  rc=$?
  set -e
  [[ $rc == 0 ]] || skip "--ns: network namespaces not available here: ${reason:-netns-cluster.sh --check exited $rc}"
fi

out="${out:-$ROOT/out/l2-contention}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The trace: given, or generated once so every fleet size replays identical records.
if [[ -z "$trace" ]]; then
  [[ -x "$BIN/tools/lct/lct" ]] || { say "$BIN/tools/lct/lct not built: pass --trace FILE"; exit 2; }
  trace="$out/contention.lct"
  "$BIN/tools/lct/lct" gen -o "$trace" --seed 7 --duration "$duration" --rate "$rate" \
    --era 3 --tp 1 --layout "$layout" -q
fi
[[ -f "$trace" ]] || { say "trace $trace not found"; exit 2; }
trace="$(cd "$(dirname "$trace")" && pwd)/$(basename "$trace")"

# Trace length in seconds (for --mode stack windows and the per-run timeout).
trace_s=$(python3 - "$trace" "$BIN" <<'EOF'
import subprocess, sys, re
try:
    info = subprocess.run([sys.argv[2] + "/tools/lct/lct", "info", sys.argv[1]],
                          capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"duration:\s*([0-9.]+)s", info)
    print(m.group(1) if m else "")
except Exception:
    print("")
EOF
)
trace_s=${trace_s:-$duration}
if [[ -z "$run_timeout" ]]; then
  run_timeout=$(python3 -c "import sys; d,s=float(sys.argv[1]),float(sys.argv[2]); print(int((d/s if s>0 else d)*3+60))" "$trace_s" "$speed")
fi

redis_pid=""
cleanup() {
  if [[ -n "$redis_pid" ]]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# A RESP command over a plain socket (redis-cli may not be installed).
resp() {  # host port cmd...
  python3 - "$@" <<'EOF'
import socket, sys
host, port, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
msg = "*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a.encode()), a) for a in args)
with socket.create_connection((host, port), timeout=5) as s:
    s.sendall(msg.encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
        if data[:1] in (b"+", b"-", b":") and data.endswith(b"\r\n"):
            break
        if data[:1] == b"$":
            n = int(data[1:data.index(b"\r\n")])
            if n < 0 or len(data) >= data.index(b"\r\n") + 2 + n + 2:
                break
    text = data.decode(errors="replace")
    if text.startswith("$"):
        text = text.split("\r\n", 1)[1]
    print(text.strip())
EOF
}

wait_redis() {  # host port
  for _ in $(seq 1 100); do
    resp "$1" "$2" PING 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  return 1
}

redis_args=(--save "" --appendonly no --maxmemory "$redis_maxmemory" --maxmemory-policy allkeys-lru)
engine_args=(--l1-size-gb "$l1_size_gb" --no-l1-use-lazy)
mode_args=(--shard none)

coord_common=(--json -q --progress never --speed "$speed")

if [[ $use_ns == 0 ]]; then
  port=$(free_port)
  redis-server --bind 127.0.0.1 --port "$port" "${redis_args[@]}" >"$out/redis.log" 2>&1 &
  redis_pid=$!
  wait_redis 127.0.0.1 "$port" || { say "redis-server did not start (see $out/redis.log)"; exit 2; }
  say "redis-server on 127.0.0.1:$port (maxmemory $redis_maxmemory)"
else
  # netns-cluster.sh starts "$bin_dir/coordinator/coordinator" inside the coordinator namespace:
  # point --bin-dir at a shim whose coordinator starts Redis there (on the bridge address the
  # workers route to), adds the resp adapter, runs the real coordinator, then stops Redis.
  shim="$out/ns-bin"
  mkdir -p "$shim/coordinator" "$shim/worker"
  ln -sf "$BIN/worker/worker" "$shim/worker/worker"
  cat >"$shim/coordinator/coordinator" <<'EOF'
#!/usr/bin/env bash
set -uo pipefail
addr=$(ip -4 -o addr show dev br0 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -1)
addr=${addr:-10.77.0.1}
redis-server --bind "$addr" --port 6379 --protected-mode no --save "" --appendonly no \
  --maxmemory "$FLEET_REDIS_MAXMEMORY" --maxmemory-policy allkeys-lru \
  >"$FLEET_RUN_DIR/redis.log" 2>&1 &
rpid=$!
for _ in $(seq 1 100); do
  python3 -c 'import socket,sys; socket.create_connection((sys.argv[1],6379),timeout=1).close()' "$addr" 2>/dev/null && break
  sleep 0.1
done
"$FLEET_REAL_COORDINATOR" "$@" \
  --l2-adapter "{\"type\":\"resp\",\"host\":\"$addr\",\"port\":6379,\"num_workers\":8}"
rc=$?
bash "$FLEET_RESP_HELPER" "$addr" 6379 INFO commandstats >"$FLEET_RUN_DIR/redis_commandstats.txt" 2>/dev/null
kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null
exit $rc
EOF
  chmod +x "$shim/coordinator/coordinator"
  # The resp() helper as a standalone script for the shim.
  { echo '#!/usr/bin/env bash'; declare -f resp; echo 'resp "$@"'; } >"$out/resp.sh"
  export FLEET_REAL_COORDINATOR="$BIN/coordinator/coordinator" FLEET_REDIS_MAXMEMORY="$redis_maxmemory"
  export FLEET_RESP_HELPER="$out/resp.sh"
fi

runs=()
for n in $sizes; do
  run="$out/n$n"
  rm -rf "$run"
  mkdir -p "$run"
  if [[ $mode == stack ]]; then
    # One window per node, all starting at T0: N nodes at the recorded rate on distinct slices.
    win=$(python3 -c "import sys; print(max(float(sys.argv[1])/int(sys.argv[2]), 0.001))" "$trace_s" "$n")
    mode_args=(--shard time --timeline stack --window "$win")
  fi
  say "N=$n: replaying $(basename "$trace") (${mode_args[*]})"
  set +e
  if [[ $use_ns == 0 ]]; then
    resp 127.0.0.1 "$port" FLUSHALL >/dev/null
    resp 127.0.0.1 "$port" CONFIG RESETSTAT >/dev/null
    timeout -k 5 "$run_timeout" "$BIN/coordinator/coordinator" "$trace" --local "$n" \
      "${mode_args[@]}" "${coord_common[@]}" "${engine_args[@]}" \
      --l2-adapter "{\"type\":\"resp\",\"host\":\"127.0.0.1\",\"port\":$port,\"num_workers\":8}" \
      --output-dir "$run" "${extra[@]}" >"$run/coordinator.out" 2>"$run/coordinator.err"
    rc=$?
    resp 127.0.0.1 "$port" INFO commandstats >"$run/redis_commandstats.txt" 2>/dev/null
  else
    export FLEET_RUN_DIR="$run"
    timeout -k 5 "$run_timeout" bash "$netns_script" --trace "$trace" --out "$run" --workers "$n" \
      --bin-dir "$shim" --worker-arg --allow-l2 --worker-arg 10.77.0.1:6379 \
      -- "${mode_args[@]}" "${coord_common[@]}" "${engine_args[@]}" "${extra[@]}" \
      >"$run/netns.out" 2>"$run/netns.err"
    rc=$?
  fi
  set -e
  if [[ $rc != 0 || ! -f "$run/fleet_summary.json" ]]; then
    say "N=$n failed (exit $rc); logs in $run:"
    tail -n 20 "$run"/*.err >&2 2>/dev/null || true
    exit 1
  fi
  runs+=("$n=$run")
done

echo "L2 contention: $(basename "$trace") (${trace_s}s), mode $mode, speed $speed, L1 ${l1_size_gb} GB," \
  "$([[ $use_ns == 1 ]] && echo "network namespaces" || echo "loopback"), Redis maxmemory $redis_maxmemory"
report_args=(--json "$out/contention.json")
[[ $check == 1 ]] && report_args+=(--check)
"$BIN/coordinator/coordinator" report --contention "${report_args[@]}" "${runs[@]}"
echo "runs and logs: $out"
