#!/usr/bin/env bash
# Checks that every tracked C++ file (*.cc, *.h; `git ls-files`) is formatted as .clang-format
# says, with Debian's clang-format (14; scripts/setup.sh installs it). Prints each offending file
# and exits 1 if there is any, 0 if none, 2 if clang-format is missing or fails on a file.
#   bash scripts/check-format.sh          # check only
#   bash scripts/check-format.sh --fix    # reformat the offending files in place
# CLANG_FORMAT selects another binary.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,7s/^# \{0,1\}//p' "$0"; }
fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT not found (bash scripts/setup.sh installs clang-format)" >&2
  exit 2
fi

# Tracked files that are still present in the work tree (a file deleted but not yet committed
# is skipped).
files=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && files+=("$f")
done < <(git ls-files -z -- '*.cc' '*.h')

# Many files per clang-format process and one process per core: one process per file cost
# ~60 s of the CI stage on 2 cores, mostly process start-up. Without --Werror a violation is a
# warning ("FILE:LINE:COL: warning: code should be clang-formatted [-Wclang-format-violations]")
# and clang-format exits 0; it exits non-zero only when it cannot do its job.
if ! out=$(printf '%s\0' "${files[@]}" |
           xargs -0 -n 64 -P "$(nproc)" "$CLANG_FORMAT" --style=file --dry-run 2>&1 >/dev/null); then
  echo "check-format: $CLANG_FORMAT failed:" >&2
  grep -v -e '-Wclang-format-violations' <<<"$out" | head -20 >&2
  exit 2
fi
mapfile -t bad < <(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .*-Wclang-format-violations' <<<"$out" |
                   cut -d: -f1 | sort -u)

if [ ${#bad[@]} -eq 0 ]; then
  echo "check-format: all ${#files[@]} files formatted"
  exit 0
fi
if [ $fix -eq 1 ]; then
  "$CLANG_FORMAT" --style=file -i "${bad[@]}"
  printf 'formatted %s\n' "${bad[@]}"
  echo "check-format: reformatted ${#bad[@]} of ${#files[@]} files"
  exit 0
fi
printf '%s\n' "${bad[@]}"
echo "check-format: ${#bad[@]} of ${#files[@]} files need formatting" \
  "(bash scripts/check-format.sh --fix)" >&2
exit 1
