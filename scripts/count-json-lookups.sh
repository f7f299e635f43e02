#!/usr/bin/env bash
# String-keyed JSON reads, per file: `["key"]` (not an assignment), `.at("key")`, `.value("key"`,
# `.contains("key")`, `.find("key")`, `.count("key")`, and the tolerant helpers that take
# (json, "key"): at, num, str, count, field, number, text, text_of, flag, arr, obj, u64, member,
# json_integer_or. docs/architecture.md ("The run summary") says which of them read the run's
# summary. Usage: scripts/count-json-lookups.sh [DIR...]   (default: insight coordinator)
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(insight coordinator)
pattern='(\["[A-Za-z0-9_.]+"\](?!\s*=[^=])|\.(at|value|contains|find|count)\("[A-Za-z0-9_.]+"|\b(at|num|str|count|field|number|text|text_of|flag|arr|obj|u64|member|json_integer_or<[a-z0-9_]+>)\([^()"]*,\s*"[A-Za-z0-9_.]+")'
grep -rnoP "$pattern" "${dirs[@]}" --include=*.cc --include=*.h | cut -d: -f1 | sort | uniq -c |
  sort -rn
echo "total: $(grep -rnoP "$pattern" "${dirs[@]}" --include=*.cc --include=*.h | wc -l)"
