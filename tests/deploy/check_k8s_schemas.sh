#!/usr/bin/env bash
# deploy/k8s/*.yaml against the Kubernetes OpenAPI schemas, offline (tests/deploy/k8s-schema/
# validate.mjs, npm package kubernetes-models pinned by its package-lock.json). Installs the
# package once with `npm ci` (the npm registry); exit 77 (ctest: skipped) with the reason when
# Node.js/npm are missing or the registry cannot be reached.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$here/k8s-schema"
command -v node >/dev/null && command -v npm >/dev/null || {
  echo "check_k8s_schemas: SKIPPED: Node.js and npm are not installed"
  exit 77
}
if [ ! -d "$dir/node_modules/kubernetes-models" ]; then
  if ! (cd "$dir" && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>"$dir/npm.err"); then
    echo "check_k8s_schemas: SKIPPED: npm ci failed: $(tail -1 "$dir/npm.err")"
    exit 77
  fi
fi
node "$dir/validate.mjs" "$here/../../deploy/k8s"
