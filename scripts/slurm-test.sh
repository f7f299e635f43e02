#!/usr/bin/env bash
# deploy/slurm/fleet-replay.sbatch for real (docs/deploying.md § Tested): a local Slurm cluster
# of 3 nodes, each a network namespace with its own address, hostname and /etc/hosts, runs the
# shipped batch script the way a user submits it, with a real redis-server as the shared L2:
#   job 1  sbatch --nodes=3 --wait ... --shard key --speed 0: exit 0, 3 nodes, every record
#          accounted for, Redis keys named as LMCache names them, the secret keys removed;
#   job 2  the same at --speed 1, one node's worker killed mid-run: exit 3, a partial report;
#   job 3  cancelled with scancel mid-run: nothing left running on any node.
# Then it tears everything down, also on failure or Ctrl-C: daemons, namespaces, temp dir.
#
#   scripts/slurm-test.sh [--skip-if-unavailable] [--keep] [BUILD_DIR]
#
# BUILD_DIR (or $BUILD_DIR; default ./build) holds coordinator/, worker/ and tools/lct/.
# Needs root (network namespaces), slurm-wlm and munge (scripts/setup.sh --slurm) and
# redis-server. Where namespaces or Slurm are not available it prints "SKIPPED: <reason>" and
# exits 77, or 0 with --skip-if-unavailable (CI). --keep keeps the temp dir (logs, reports).
# Each step is bounded by FLEET_STEP_TIMEOUT_S (120); jobs run as FLEET_SLURM_USER (nobody).
#
# The cluster, all of it under one temp dir (nothing in /etc, nothing in the host's network
# namespace but munged's unix socket, which is a file in the temp dir):
#   munged        host namespace, its own key and socket (AuthInfo=socket=...)
#   ctl           namespace with the bridge, 10.78.0.1: slurmctld, redis-server
#   node1..node3  namespaces on that bridge, 10.78.0.11-13: one slurmd -N nodeN each
# Every daemon in a namespace also gets its own UTS namespace (hostname = node name) and mount
# namespace (our hosts file bound over /etc/hosts), so node names resolve on every node as
# they would on a cluster, and the host's /etc/hosts is never touched.
set -euo pipefail

skip_ok=0
keep=0
build="${BUILD_DIR:-build}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --skip-if-unavailable) skip_ok=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    -*) echo "slurm-test.sh: unknown option '$1'" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
# BUILD_DIR is relative to where this is called from; everything else to the repository.
if [[ -d "$build" ]]; then build=$(cd "$build" && pwd); fi
cd "$(dirname "$0")/.."
root=$(pwd)
step_timeout="${FLEET_STEP_TIMEOUT_S:-120}"
job_user="${FLEET_SLURM_USER:-nobody}"
t_start=$SECONDS
step() { echo "slurm-test: [$((SECONDS - t_start))s] $*"; }
fail() {
  echo "slurm-test: FAIL: $*" >&2
  exit 1
}
skip() {
  echo "slurm-test: SKIPPED: $*"
  if [[ $skip_ok == 1 ]]; then exit 0; fi
  exit 77
}

# --- what this machine can do ----------------------------------------------------------------
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, slurmd); run it as root or with sudo"
for c in ip unshare nsenter; do
  command -v "$c" >/dev/null || skip "no '$c' command (iproute2, util-linux)"
done
for c in munged munge slurmctld slurmd sbatch srun scontrol scancel squeue sinfo; do
  command -v "$c" >/dev/null || skip "Slurm or munge is not installed (no '$c'): bash scripts/setup.sh --slurm"
done
for c in redis-server redis-cli python3; do
  command -v "$c" >/dev/null || skip "no '$c' (bash scripts/setup.sh)"
done
id -u "$job_user" >/dev/null 2>&1 || skip "no user '$job_user' to run the jobs as (set FLEET_SLURM_USER)"
for b in coordinator/coordinator coordinator/coordinator-net worker/worker tools/lct/lct; do
  [[ -x "$build/$b" ]] || fail "$build/$b not found: build first (bash scripts/build.sh) or pass BUILD_DIR"
done

tag="fsl$$"  # unique per run: namespaces of concurrent runs never collide
ctl_ns="$tag-ctl"
nodes=(node1 node2 node3)
namespaces=()
pids=()       # daemons started here (munged, and the namespace launchers)
bg=""         # the bounded command running in the background, if any
work=""
ctl=()
ctld_pid=""
redis_pid=""
munged_pid=""
slurmd_pids=()
hosts_sum=$(sha256sum /etc/hosts | cut -d' ' -f1)

# --- teardown: runs on every exit ------------------------------------------------------------
ns_pids() { ip netns pids "$1" 2>/dev/null || true; }
stop() {  # stop PID...: SIGTERM, then up to 5 s for them to end
  local p alive
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 50); do
    alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && return 0
    sleep 0.1
  done
}
teardown() {
  if [[ -n "$bg" ]]; then kill -TERM "$bg" 2>/dev/null || true; fi
  # Jobs first, so that slurmd can still end their steps; bounded.
  if [[ -n "$ctld_pid" ]] && kill -0 "$ctld_pid" 2>/dev/null; then
    timeout 10 "${ctl[@]}" scancel --quiet --full --signal=KILL --partition=fleet >/dev/null 2>&1 || true
    timeout 10 "${ctl[@]}" scancel --quiet --partition=fleet >/dev/null 2>&1 || true
  fi
  # Then the daemons, in the order that lets each one shut down cleanly: the slurmds (they still
  # tell slurmctld), slurmctld and redis, munged last (every Slurm message needs it).
  stop ${slurmd_pids[@]+"${slurmd_pids[@]}"}
  stop $ctld_pid $redis_pid
  stop $munged_pid
  # Whatever is still in our namespaces (slurmstepd, a worker, the coordinator, redis): killed.
  for ns in "${namespaces[@]}"; do
    for p in $(ns_pids "$ns"); do kill -KILL "$p" 2>/dev/null || true; done
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  if [[ -n "$work" ]]; then
    rm -f "$work/munge/key/munge.key"
    # Any job's secret keys (a killed job cannot remove its own).
    find "$work" -name '*.key_secret' -delete 2>/dev/null || true
  fi
}
leftovers() {
  local ns p
  for ns in "${namespaces[@]}"; do
    if ip netns list | grep -q "^$ns\b"; then echo "namespace $ns"; fi
  done
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then echo "process $p ($(cat "/proc/$p/comm" 2>/dev/null))"; fi
  done
  if [[ -n "$work" ]]; then
    # A process still running from our temp dir or with our config (slurmstepd, a job).
    for p in $(pgrep -f "$work" 2>/dev/null || true); do
      [[ $p != "$$" ]] && echo "process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)"
    done
  fi
  [[ $(sha256sum /etc/hosts | cut -d' ' -f1) == "$hosts_sum" ]] || echo "/etc/hosts changed"
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  step "teardown"
  teardown
  local left
  left=$(leftovers)
  if [[ -n "$left" ]]; then
    echo "slurm-test: FAIL: left behind: $left" >&2
    status=1
  else
    step "clean: no daemon, job process, namespace or munge key left; /etc/hosts unchanged"
  fi
  if [[ -n "$work" ]]; then
    if [[ $status != 0 || $keep == 1 ]]; then
      echo "slurm-test: logs kept in $work" >&2
    else
      rm -rf "$work"
    fi
  fi
  exit $status
}
trap cleanup EXIT
trap 'echo "slurm-test: FAIL: interrupted (SIGINT)" >&2; exit 130' INT
trap 'echo "slurm-test: FAIL: terminated (SIGTERM, e.g. an outer timeout)" >&2; exit 143' TERM

# bounded SECONDS CMD...: CMD under timeout, in the background so that Ctrl-C is not held up
# until it ends; returns its status.
bounded() {
  local s=$1 rc=0
  shift
  timeout "$s" "$@" &
  bg=$!
  wait "$bg" || rc=$?
  bg=""
  return $rc
}

# --- namespaces --------------------------------------------------------------------------------
if ! err=$(ip netns add "$ctl_ns" 2>&1); then
  skip "cannot create a network namespace (needs CAP_SYS_ADMIN): $err"
fi
namespaces+=("$ctl_ns")
if ! err=$(ip -n "$ctl_ns" link add br0 type bridge 2>&1); then
  skip "cannot create a bridge inside a namespace: $err"
fi
if ! err=$(nsenter --net="/run/netns/$ctl_ns" unshare --mount --uts --propagation private true 2>&1); then
  skip "cannot create mount and UTS namespaces: $err"
fi

work=$(mktemp -d /tmp/fleet-slurm.XXXXXX)
chmod 0755 "$work"  # the job user reaches munged's socket and the submit dir through it
step "cluster in $work (namespaces $tag-*)"
ip -n "$ctl_ns" link set lo up
ip -n "$ctl_ns" addr add 10.78.0.1/24 dev br0
ip -n "$ctl_ns" link set br0 up
{
  echo "127.0.0.1 localhost"
  echo "10.78.0.1 ctl"
} >"$work/hosts"
declare -A addr
for i in "${!nodes[@]}"; do
  n=${nodes[$i]}
  ns="$tag-$n"
  addr[$n]="10.78.0.$((11 + i))"
  ip netns add "$ns"
  namespaces+=("$ns")
  ip -n "$ns" link set lo up
  ip -n "$ctl_ns" link add "v$n" type veth peer name eth0 netns "$ns"
  ip -n "$ctl_ns" link set "v$n" master br0
  ip -n "$ctl_ns" link set "v$n" up
  ip -n "$ns" addr add "${addr[$n]}/24" dev eth0
  ip -n "$ns" link set eth0 up
  echo "${addr[$n]} $n" >>"$work/hosts"
done
chmod 0644 "$work/hosts"

# in_node HOST NS: sets pre=(a command prefix) that runs its command in namespace NS with
# hostname HOST and our hosts file as /etc/hosts. Every link of it execs (no fork), so the pid
# of "${pre[@]}" CMD & is CMD's. nsenter, not `ip netns exec`: that one mounts a new /sys, which
# hides /sys/fs/cgroup, and slurmd 22.05 fails without it even with no cgroup plugin configured.
in_node() {
  # shellcheck disable=SC2016  # expanded by that sh
  pre=(nsenter --net="/run/netns/$2" unshare --mount --uts --propagation private
    sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"' sh "$1" "$work/hosts")
}
export SLURM_CONF="$work/slurm.conf"
in_node ctl "$ctl_ns"
# A Slurm client (or redis-cli) on the controller host, as root.
ctl=("${pre[@]}" env SLURM_CONF="$SLURM_CONF")
# The same as the job user, from the submit directory: a user's shell on the login node.
as_user=("${pre[@]}" setpriv --reuid="$job_user" --regid="$(id -g "$job_user")" --init-groups
  env -C "$work/submit" HOME="$work/submit" SLURM_CONF="$SLURM_CONF")

# --- munge: its own key and socket in the temp dir ---------------------------------------------
mkdir -p "$work/munge/key" "$work/munge/run" "$work/munge/lib" "$work/log"
chmod 0700 "$work/munge/key" "$work/munge/lib"
chmod 0755 "$work/munge" "$work/munge/run"
(umask 077 && dd if=/dev/urandom of="$work/munge/key/munge.key" bs=1024 count=1 status=none)
sock="$work/munge/run/munge.socket"
setsid munged --foreground --force --key-file="$work/munge/key/munge.key" --socket="$sock" \
  --pid-file="$work/munge/run/munged.pid" --seed-file="$work/munge/lib/munged.seed" \
  --log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
munged_pid=$!
pids+=($!)
deadline=$((SECONDS + 10))
until [[ -S $sock ]] || ((SECONDS >= deadline)); do sleep 0.1; done
[[ -S $sock ]] || fail "munged did not start: $(tail -n 3 "$work/log/munged.log" "$work/log/munged.out" 2>/dev/null)"
timeout 10 munge --socket="$sock" -n | timeout 10 unmunge --socket="$sock" >/dev/null ||
  fail "munge credentials do not round-trip through $sock"

# --- slurm.conf ----------------------------------------------------------------------------------
# Minimal: no cgroups (proctrack/linuxproc, task/none), no accounting, state under the temp dir.
mkdir -p "$work/state" "$work/submit"
for n in "${nodes[@]}"; do mkdir -p "$work/spool/$n"; done
chown "$job_user" "$work/submit"
# Each node as slurmd finds the hardware (the three share this machine's CPUs): a node
# configured with more is drained, one with fewer logs an error.
hw=$(timeout 10 slurmd -C | head -1 | grep -o 'CPUs=[0-9]* Boards=[0-9]* SocketsPerBoard=[0-9]* CoresPerSocket=[0-9]* ThreadsPerCore=[0-9]*' || true)
[[ -n "$hw" ]] || hw="CPUs=1"
{
  cat <<EOF
# written by scripts/slurm-test.sh for one run
ClusterName=fleettest
SlurmctldHost=ctl(10.78.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/spool/slurmd-%n.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
KillWait=5
InactiveLimit=0
# sbatch --wait (22.05) polls after 2, 8, 32, 32... s, growing only while below MinJobAge/2:
# 10 gives 2, 8, 8... and keeps an ended job's record (its exit code) longer than a poll.
MinJobAge=10
EOF
  for n in "${nodes[@]}"; do
    echo "NodeName=$n NodeAddr=${addr[$n]} NodeHostname=$n $hw State=UNKNOWN"
  done
  echo "PartitionName=fleet Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP"
} >"$SLURM_CONF"
chmod 0644 "$SLURM_CONF"

# --- daemons -------------------------------------------------------------------------------------
# Every daemon runs under setsid, in a session of its own: a Ctrl-C at the terminal reaches this
# script (which tears down in order) and not slurmctld, which would stop before scancel.
step "slurmctld on ctl (10.78.0.1), slurmd on ${nodes[*]}"
setsid "${pre[@]}" slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
ctld_pid=$!
pids+=($!)
declare -A slurmd_pid
for n in "${nodes[@]}"; do
  in_node "$n" "$tag-$n"
  setsid "${pre[@]}" slurmd -D -N "$n" -f "$SLURM_CONF" >"$work/log/slurmd-$n.out" 2>&1 &
  slurmd_pid[$n]=$!
  slurmd_pids+=($!)
  pids+=($!)
done
idle=0
deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
  idle=$(timeout 5 "${ctl[@]}" sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | grep -c . || true)
  [[ $idle == "${#nodes[@]}" ]] && break
  for n in "${nodes[@]}"; do
    kill -0 "${slurmd_pid[$n]}" 2>/dev/null && continue
    why=$(grep -h -E 'error|fatal' "$work/log/slurmd-$n.log" 2>/dev/null | tail -n 2 | tr '\n' ' ')
    # slurmd 22.05 initialises a cgroup plugin even with proctrack/linuxproc and task/none: a
    # machine where that fails cannot run it at all.
    if grep -q 'Unable to initialize cgroup plugin' <<<"$why"; then
      skip "slurmd cannot initialise its cgroup plugin here (/sys/fs/cgroup): $why"
    fi
    fail "slurmd on $n exited: $why"
  done
  kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld exited: $(tail -n 3 "$work/log/slurmctld.log" "$work/log/slurmctld.out" 2>/dev/null)"
  sleep 0.5
done
[[ $idle == "${#nodes[@]}" ]] ||
  fail "$idle of ${#nodes[@]} nodes idle after 60 s: $(timeout 5 "${ctl[@]}" sinfo -N 2>&1; tail -n 3 "$work"/log/slurm*.log)"
step "cluster up: $(timeout 5 "${ctl[@]}" sinfo -h -o '%P %D nodes %T %N' | tr '\n' ' ')($(slurmctld -V))"

# Each node answers as itself, through srun (as the job user).
bounded 60 "${as_user[@]}" srun --nodes=3 --ntasks=3 --ntasks-per-node=1 hostname \
  >"$work/log/srun-hostname.out" 2>&1 || fail "srun --nodes=3 hostname failed: $(tail -5 "$work/log/srun-hostname.out")"
got=$(sort "$work/log/srun-hostname.out" | tr '\n' ' ')
[[ $got == "node1 node2 node3 " ]] || fail "srun --nodes=3 hostname gave '$got', expected node1 node2 node3"
step "srun --nodes=3 hostname: $got"

# --- redis (the shared L2) and a trace --------------------------------------------------------------
in_node ctl "$ctl_ns"
setsid "${pre[@]}" redis-server --bind 10.78.0.1 --port 6379 --protected-mode no --save "" \
  --appendonly no --dir "$work" --maxmemory 512mb --maxmemory-policy allkeys-lru \
  >"$work/log/redis.log" 2>&1 &
redis_pid=$!
pids+=($!)
redis() { timeout 5 "${ctl[@]}" redis-cli -h 10.78.0.1 -p 6379 "$@"; }
deadline=$((SECONDS + 10))
until [[ $(redis ping 2>/dev/null) == PONG ]] || ((SECONDS >= deadline)); do sleep 0.1; done
[[ $(redis ping 2>/dev/null) == PONG ]] || fail "redis-server did not start: $(tail -3 "$work/log/redis.log")"

mkdir -p "$work/traces"
trace="$work/traces/sample.lct"
bounded "$step_timeout" "$build/tools/lct/lct" gen -o "$trace" --seed 11 --duration 20 --rate 20 \
  --era 3 --tp 1 --layout 2x4x8x128:bfloat16 >"$work/log/gen.log" 2>&1 || fail "lct gen: $(tail -3 "$work/log/gen.log")"
chmod 0755 "$work/traces"
chmod 0644 "$trace"
records=$("$build/tools/lct/lct" info "$trace" | awk '/total_records:/ {print $2}')
[[ -n "$records" && "$records" -gt 0 ]] || fail "lct info: no total_records for the generated trace"
step "redis-server on 10.78.0.1:6379, trace of $records records"

# The job's environment, as a user would export it before sbatch (--export=ALL, the default).
export FLEET_BIN="$build"
export FLEET_L2_ADAPTER='{"type":"resp","host":"10.78.0.1","port":6379,"num_workers":4}'
export FLEET_ALLOW_L2=10.78.0.1:6379
export FLEET_WORKER_ARGS="--l1-size-gb 1 --no-l1-use-lazy --max-l1-gb 2"
sbatch_script="$root/deploy/slurm/fleet-replay.sbatch"

summary_field() {  # summary_field FILE PYTHON-EXPR-ON-s
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($2)" "$1"
}
expect_balanced() {  # expect_balanced JOB DIR: its fleet_summary.json exists and adds up
  [[ -s "$2/fleet_summary.json" ]] || fail "$1 wrote no fleet_summary.json in $2: $(find "$2" -maxdepth 1 -printf '%f ' 2>&1)"
  [[ $(summary_field "$2/fleet_summary.json" 's["accounting"]["balanced"]') == True ]] ||
    fail "$1: record accounting does not balance"
}
expect_no_secrets() {  # expect_no_secrets JOB DIR
  local left
  left=$(find "$2/keys" -name '*.key_secret' 2>/dev/null | head -3)
  [[ -z "$left" ]] || fail "$1: secret keys left after the job: $left"
}
# submit NAME SPEED: sbatch --wait in the background (as the user); sets job_pid. The report
# goes where the script puts it by default: $SLURM_SUBMIT_DIR/out/slurm-JOBID.
submit() {
  timeout "$step_timeout" "${as_user[@]}" \
    sbatch --parsable --nodes=3 --wait "$sbatch_script" "$trace" --shard key --speed "$2" \
    >"$work/log/sbatch-$1.out" 2>"$work/log/sbatch-$1.err" &
  job_pid=$!
  bg=$job_pid
}
job_id() {  # job_id NAME: sets id to the job id sbatch --parsable printed (bounded wait)
  id=""
  local deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    id=$(head -1 "$work/log/sbatch-$1.out" 2>/dev/null | cut -d';' -f1 || true)  # not there yet: ""
    [[ -n "$id" ]] && break
    sleep 0.1
  done
  [[ -n "$id" ]] || fail "$1: sbatch printed no job id: $(cat "$work/log/sbatch-$1.err")"
}
wait_job() {  # wait_job: sets rc to sbatch --wait's status (the job's exit code)
  rc=0
  wait "$job_pid" || rc=$?
  bg=""
}
wait_started() {  # wait_started NAME ID: until the coordinator has started the run
  local f="$work/submit/fleet-replay-$2.out" deadline=$((SECONDS + step_timeout))
  while ((SECONDS < deadline)); do
    grep -q "start: T0" "$f" 2>/dev/null && return 0
    kill -0 "$job_pid" 2>/dev/null || break
    sleep 0.5
  done
  fail "$1: the coordinator did not start the run: $(tail -5 "$f" 2>&1)"
}
node_procs() {  # node_procs NODE: processes in that node's namespace other than its slurmd
  local p c
  for p in $(ns_pids "$tag-$1"); do
    c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
    [[ $c == slurmd ]] || echo "$c($p)"
  done
}

# --- job 1: a correct 3-node report --------------------------------------------------------------
step "job 1: sbatch --nodes=3 --wait fleet-replay.sbatch TRACE --shard key --speed 0 (as $job_user)"
submit job1 0
job_id job1
id1=$id
wait_job
log1="$work/submit/fleet-replay-$id1.out"
[[ $rc == 0 ]] || fail "job 1 ($id1): sbatch --wait exited $rc, expected 0: $(tail -8 "$log1" 2>&1; cat "$work/log/sbatch-job1.err")"
out1="$work/submit/out/slurm-$id1"
expect_balanced "job 1" "$out1"
s="$out1/fleet_summary.json"
n=$(summary_field "$s" 'len(s["nodes"])')
[[ $n == 3 ]] || fail "job 1: fleet_summary.json has $n nodes, expected 3"
names=$(summary_field "$s" '" ".join(sorted(n.get("name", "?") for n in s["nodes"]))')
traced=$(summary_field "$s" 's["accounting"]["trace_records"]')
[[ $traced == "$records" ]] || fail "job 1: summary counts $traced trace records, lct info $records"
merged=$(summary_field "$s" 's["records"]["total"] - s["accounting"].get("split_extra_parts", 0)')
[[ $merged == "$records" ]] || fail "job 1: merged records $merged (less split parts) != trace's $records"
step "job 1 ($id1): exit 0, 3 nodes ($names), $merged of $records records, accounting balanced"
keys=$(redis --scan 2>/dev/null | head -1000 || true)
nkeys=$(printf '%s\n' "$keys" | grep -c . || true)
[[ $nkeys -gt 0 ]] || fail "job 1: no key in the shared Redis"
# LMCache's resp key: MODEL@RANK(8 hex)@GROUP(hex)@CHUNK_HASH(hex)[@SALT] (as compose-test.sh)
bad=$(printf '%s\n' "$keys" | grep -Evc '^([^:@]+:)?[^@]+@[0-9a-f]{8}@[0-9a-f]+@[0-9a-f]+(@.*)?$' || true)
[[ $bad == 0 ]] || fail "job 1: $bad Redis keys not named as LMCache names them, e.g. $(printf '%s\n' "$keys" | head -1)"
dbsize=$(redis dbsize)
step "job 1: $dbsize Redis keys, named as LMCache names them (e.g. $(printf '%s\n' "$keys" | head -1))"
expect_no_secrets "job 1" "$out1"
for nd in "${nodes[@]}"; do
  left=$(node_procs "$nd")
  [[ -z "$left" ]] || fail "job 1: still running on $nd after the job: $left"
done
step "job 1: secret keys removed, nothing left running on any node"
redis flushall >/dev/null

# --- job 2: one node's worker killed mid-run -----------------------------------------------------
victim=node2
step "job 2: the same at --speed 1; kill -KILL the worker on $victim mid-run"
submit job2 1
job_id job2
id2=$id
wait_started "job 2" "$id2"
sleep 3
wpid=""
for p in $(ns_pids "$tag-$victim"); do
  [[ $(cat "/proc/$p/comm" 2>/dev/null) == worker ]] && wpid=$p
done
[[ -n "$wpid" ]] || fail "job 2: no worker process on $victim: $(node_procs "$victim")"
kill -KILL "$wpid"
wait_job
log2="$work/submit/fleet-replay-$id2.out"
[[ $rc == 3 ]] || fail "job 2 ($id2): sbatch --wait exited $rc, expected 3 (a lost worker): $(tail -8 "$log2" 2>&1)"
out2="$work/submit/out/slurm-$id2"
expect_balanced "job 2" "$out2"
lost=$(summary_field "$out2/fleet_summary.json" '",".join(n.get("name", "?") for n in s["nodes"] if n.get("status") == "lost")')
[[ $lost == "$victim" ]] || fail "job 2: nodes reported lost: '$lost', expected $victim"
expect_no_secrets "job 2" "$out2"
for nd in "${nodes[@]}"; do
  left=$(node_procs "$nd")
  [[ -z "$left" ]] || fail "job 2: still running on $nd after the job: $left"
done
step "job 2 ($id2): exit 3, $victim lost, partial report with balanced accounting, keys removed"

# --- job 3: scancel mid-run --------------------------------------------------------------------------
step "job 3: --speed 1, scancel mid-run"
submit job3 1
job_id job3
id3=$id
wait_started "job 3" "$id3"
sleep 2
bounded 30 "${as_user[@]}" scancel "$id3" || fail "job 3: scancel $id3 failed"
wait_job
[[ $rc != 0 ]] || fail "job 3: sbatch --wait exited 0 for a cancelled job"
# Slurm ends the steps with SIGTERM, then SIGKILL after KillWait (5 s): bounded wait for both.
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
  state=$(timeout 5 "${ctl[@]}" squeue -h -j "$id3" -o %T 2>/dev/null || true)
  left=""
  for nd in "${nodes[@]}"; do left+=$(node_procs "$nd"); done
  [[ -z "$state" && -z "$left" ]] && break
  sleep 0.5
done
[[ -z "$state" ]] || fail "job 3: still $state 30 s after scancel"
for nd in "${nodes[@]}"; do
  left=$(node_procs "$nd")
  [[ -z "$left" ]] || fail "job 3: still running on $nd after scancel: $left"
done
out3="$work/submit/out/slurm-$id3"
expect_no_secrets "job 3" "$out3"
# The coordinator, signalled with the rest of the batch step, stops the run and writes what it
# has before KillWait ends (it waits ~1.5 s for the workers' last heartbeats).
expect_balanced "job 3" "$out3"
early=$(summary_field "$out3/fleet_summary.json" 's.get("stopped_early")')
[[ $early == True ]] || fail "job 3: the cancelled run's report does not say stopped_early"
step "job 3 ($id3): cancelled (sbatch --wait exited $rc), nothing left running on any node, keys removed, partial report"
step "ok in $((SECONDS - t_start)) s"
