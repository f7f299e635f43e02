#!/usr/bin/env bash
# Container entry point for the coordinator (compose and Kubernetes): picks or generates a
# trace, waits until the worker DNS name resolves to the expected number of addresses (the
# coordinator resolves dns:NAME:PORT once), then runs the coordinator. Extra arguments are
# passed to the coordinator unchanged (engine flags, --shard, --speed, ...).
#
# Environment (defaults in brackets):
#   FLEET_WORKERS          worker address spec for --workers            [dns:worker:5555]
#   FLEET_EXPECT_WORKERS   --expect-workers                             [2]
#   FLEET_TRACE            trace to replay ("" or auto: the first /traces/*.lct; else one generated)
#   FLEET_GEN_ARGS         lct gen flags for the generated trace
#                          [--seed 7 --duration 20 --rate 20 --era 3 --tp 1 --layout 2x4x8x128:bfloat16]
#   FLEET_OUT              --output-dir                                  [/out]
#   FLEET_DNS_WAIT_S       seconds to wait for the workers' DNS records [120]
#   FLEET_CONNECT_TIMEOUT_MS  --connect-timeout                          [30000]
#   FLEET_CURVE_CERT       --curve-cert: the coordinator's secret certificate    [none: plaintext]
#   FLEET_KNOWN_WORKERS    --known-workers: the workers' public keys             [none]
#                          (compose and deploy/k8s set both; see docs/security.md)
set -euo pipefail
workers="${FLEET_WORKERS:-dns:worker:5555}"
expect="${FLEET_EXPECT_WORKERS:-2}"
out="${FLEET_OUT:-/out}"
wait_s="${FLEET_DNS_WAIT_S:-120}"
gen_args="${FLEET_GEN_ARGS:---seed 7 --duration 20 --rate 20 --era 3 --tp 1 --layout 2x4x8x128:bfloat16}"
mkdir -p "$out"

trace="${FLEET_TRACE:-}"
[[ "$trace" == auto ]] && trace=""  # compose's default: pick or generate
if [[ -z "$trace" ]]; then
  trace=$(ls /traces/*.lct 2>/dev/null | head -1 || true)
fi
if [[ -z "$trace" ]]; then
  trace="$out/sample.lct"
  # shellcheck disable=SC2086  # FLEET_GEN_ARGS is a flag list
  lct gen -o "$trace" $gen_args
fi
echo "fleet-coordinator: trace $trace"
lct info "$trace" || true

if [[ "$workers" == dns:* ]]; then
  rest="${workers#dns:}"
  name="${rest%:*}"
  found=0
  for _ in $(seq 1 "$wait_s"); do
    found=$(getent ahosts "$name" 2>/dev/null | awk '{print $1}' | sort -u | wc -l || true)
    [[ "$found" -ge "$expect" ]] && break
    sleep 1
  done
  echo "fleet-coordinator: $name resolves to $found address(es), expecting $expect"
fi

# CURVE: the coordinator's secret certificate and the workers' public keys. Without them the
# coordinator speaks plaintext, which workers bound to a non-loopback address refuse unless
# they run with --insecure.
curve_args=()
if [[ -n "${FLEET_CURVE_CERT:-}" ]]; then curve_args+=(--curve-cert "$FLEET_CURVE_CERT"); fi
if [[ -n "${FLEET_KNOWN_WORKERS:-}" ]]; then curve_args+=(--known-workers "$FLEET_KNOWN_WORKERS"); fi
if [[ ${#curve_args[@]} -eq 0 ]]; then
  echo "fleet-coordinator: no FLEET_CURVE_CERT: plaintext to the workers (see docs/security.md)" >&2
fi

exec coordinator "$trace" --workers "$workers" --expect-workers "$expect" \
  --connect-timeout "${FLEET_CONNECT_TIMEOUT_MS:-30000}" --output-dir "$out" --json \
  ${curve_args[@]+"${curve_args[@]}"} "$@"
