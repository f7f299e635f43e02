#!/usr/bin/env bash
# CURVE key pairs for a Fleet Replay deployment (docs/security.md § Keys), made with
# `worker keygen`.
#
#   scripts/fleet-keys.sh [--force] [--port PORT] OUT_DIR [WORKER[:PORT]...]
#
# Writes in OUT_DIR (created mode 0700 when missing):
#   coordinator.key, coordinator.key_secret   the coordinator's pair: --curve-cert coordinator.key_secret
#   worker.key, worker.key_secret             with no WORKER given: one pair every worker shares
#   WORKER.key, WORKER.key_secret             with WORKERs given: one pair per worker
#   authorized_keys/coordinator.key           the workers' --authorized-keys (a copy of coordinator.key)
#   known_workers                             the coordinator's --known-workers: "* key=..." for the
#                                             shared pair, or "WORKER:PORT key=..." per named worker
# WORKER is the host name the coordinator will use for that worker (its hosts-file / --workers
# name). Its port is the one given as WORKER:PORT, else --port, else 5555.
#
# Secrets are written under umask 077 and end up 0600, public files 0644. Idempotent: a pair
# that already exists is kept (it is never overwritten without --force), and known_workers /
# authorized_keys are rewritten only when they would change; when OUT_DIR already holds every
# key it does nothing. --force makes new pairs for the coordinator and every requested worker.
#
# The worker binary: $FLEET_WORKER_BIN, else build/worker/worker of this repository, else
# `worker` on PATH (as in the container image, where this script is `fleet-keys`).
# Exit status: 0 ok, 2 bad arguments or keygen failure.
set -euo pipefail
umask 077

prog="fleet-keys.sh"
usage() {
  cat <<'U'
usage: fleet-keys.sh [--force] [--port PORT] OUT_DIR [WORKER[:PORT]...]

Creates CURVE key pairs with `worker keygen` in OUT_DIR:
  coordinator.key{,_secret}     the coordinator's pair
  worker.key{,_secret}          one pair shared by every worker (when no WORKER is given)
  WORKER.key{,_secret}          one pair per WORKER (when WORKERs are given)
  authorized_keys/              for the workers' --authorized-keys
  known_workers                 for the coordinator's --known-workers
                                ("* key=..." or "WORKER:PORT key=...", PORT default 5555)
Existing keys are kept; --force replaces them. See docs/security.md.
Worker binary: $FLEET_WORKER_BIN, else build/worker/worker, else worker on PATH.
U
}
die() { echo "$prog: $*" >&2; exit 2; }

force=0
default_port=5555
out=""
specs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --force) force=1; shift ;;
    --port)
      [[ $# -ge 2 ]] || die "--port needs a value"
      default_port="$2"; shift 2 ;;
    --port=*) default_port="${1#--port=}"; shift ;;
    --) shift; while [[ $# -gt 0 ]]; do specs+=("$1"); shift; done ;;
    -*) usage >&2; die "unknown option $1" ;;
    *) if [[ -z "$out" ]]; then out="$1"; else specs+=("$1"); fi; shift ;;
  esac
done
[[ -n "$out" ]] || { usage >&2; exit 2; }
valid_port() { [[ "$1" =~ ^[0-9]{1,5}$ ]] && (( 10#$1 >= 1 && 10#$1 <= 65535 )); }
valid_port "$default_port" || die "--port $default_port: not a port (1-65535)"

# Worker names and ports: host names (letters, digits, '.', '-', '_'), since each also names
# the key files. An IPv6 literal cannot be a WORKER; give the host a name.
names=()
ports=()
for s in ${specs[@]+"${specs[@]}"}; do
  name="$s" port="$default_port"
  if [[ "$s" == *:* ]]; then name="${s%:*}" port="${s##*:}"; fi
  [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
    die "worker '$s': a WORKER must be a host name (letters, digits, '.', '-', '_'), optionally :PORT"
  valid_port "$port" || die "worker '$s': '$port' is not a port (1-65535)"
  [[ "$name" != coordinator ]] || die "worker 'coordinator': that name is the coordinator's key pair"
  for n in ${names[@]+"${names[@]}"}; do [[ "$n" != "$name" ]] || die "worker '$name' given twice"; done
  names+=("$name")
  ports+=("$port")
done

# The worker binary, and whether it can make keys.
if [[ -n "${FLEET_WORKER_BIN:-}" ]]; then
  bin="$FLEET_WORKER_BIN"
  [[ -x "$bin" ]] || die "FLEET_WORKER_BIN=$bin is not an executable"
else
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  if [[ -x "$here/../build/worker/worker" ]]; then
    bin="$here/../build/worker/worker"
  elif bin="$(command -v worker)"; then
    :
  else
    die "no worker binary: build it (bash scripts/build.sh), put it on PATH, or set FLEET_WORKER_BIN"
  fi
fi
# (An older worker answers `keygen --help` with its own help, which has no --dir.)
keygen_help="$("$bin" keygen --help 2>&1 || true)"
[[ "$keygen_help" == *--dir* ]] ||
  die "$bin has no 'keygen' subcommand (an older build? rebuild with bash scripts/build.sh)"

mkdir -p "$out"
[[ -d "$out" && -w "$out" ]] || die "$out: not a writable directory"

# The Z85 public key of a certificate (ZPL: `public-key = "<40 Z85 characters>"`).
public_key() {
  local k
  k="$(sed -n 's/^[[:space:]]*public-key[[:space:]]*=[[:space:]]*"\{0,1\}\([^"[:space:]]*\)"\{0,1\}[[:space:]]*$/\1/p' "$1" | head -n 1)"
  [[ ${#k} -eq 40 ]] || die "$1: no 40-character Z85 public-key line (not a CURVE certificate?)"
  printf '%s' "$k"
}

changed=0
# A pair NAME.key + NAME.key_secret: kept when both exist (unless --force), made otherwise.
make_pair() {
  local name="$1" pub="$out/$1.key" sec="$out/$1.key_secret"
  if [[ $force == 0 && -e "$pub" && -e "$sec" ]]; then
    public_key "$pub" >/dev/null
    return 0
  fi
  if [[ $force == 0 && ( -e "$pub" || -e "$sec" ) ]]; then
    die "$out: only one of $name.key / $name.key_secret exists; remove it, or use --force"
  fi
  local args=(keygen "$name" --dir "$out")
  [[ $force == 0 ]] || args+=(--force)
  "$bin" "${args[@]}" || die "'$bin ${args[*]}' failed"
  [[ -f "$pub" && -f "$sec" ]] || die "worker keygen did not write $pub and $sec"
  chmod 0600 "$sec"
  chmod 0644 "$pub"
  public_key "$pub" >/dev/null
  changed=1
}

# Write FILE (mode MODE) with CONTENT only if it differs; atomically (temp file + rename).
put_file() {
  local file="$1" mode="$2" content="$3" tmp
  if [[ -f "$file" ]] && [[ "$(cat "$file")" == "$content" ]]; then
    chmod "$mode" "$file"
    return 0
  fi
  tmp="$(mktemp "$file.XXXXXX")"
  if ! { printf '%s\n' "$content" >"$tmp" && chmod "$mode" "$tmp" && mv -f "$tmp" "$file"; }; then
    rm -f "$tmp"  # no half-written temp file left beside the key files
    echo "fleet-keys.sh: cannot write $file" >&2
    return 1
  fi
  changed=1
}

make_pair coordinator
if [[ ${#names[@]} -eq 0 ]]; then
  make_pair worker
  known="# written by scripts/fleet-keys.sh: the coordinator's --known-workers
# every worker shares the key pair worker.key / worker.key_secret
* key=$(public_key "$out/worker.key")"
else
  known="# written by scripts/fleet-keys.sh: the coordinator's --known-workers
# one key pair per worker (WORKER.key / WORKER.key_secret); HOST:PORT as the coordinator dials it"
  for i in "${!names[@]}"; do
    make_pair "${names[$i]}"
    known+=$'\n'"${names[$i]}:${ports[$i]} key=$(public_key "$out/${names[$i]}.key")"
  done
fi

mkdir -p "$out/authorized_keys"
chmod 0755 "$out/authorized_keys"
put_file "$out/authorized_keys/coordinator.key" 0644 "$(cat "$out/coordinator.key")"
put_file "$out/known_workers" 0644 "$known"

if [[ $changed == 0 ]]; then
  echo "$prog: $out already holds these keys; nothing changed (--force makes new ones)"
  exit 0
fi
if [[ ${#names[@]} -eq 0 ]]; then wsec="$out/worker.key_secret"; else wsec="$out/WORKER.key_secret"; fi
cat <<EOF
$prog: keys written to $out
  each worker:     --curve-cert $wsec --authorized-keys $out/authorized_keys
  the coordinator: --curve-cert $out/coordinator.key_secret --known-workers $out/known_workers
  Copy a worker's secret (keep it mode 0600) and authorized_keys/ to that worker's host only;
  coordinator.key_secret stays with the coordinator. The .key files are public.
EOF
