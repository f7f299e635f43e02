#!/usr/bin/env python3
"""Expected failures are values (issue 39; docs/architecture.md, "Errors and exit codes").

  check-throws.py [--source REPO]

Counts `throw std::invalid_argument`, `throw std::runtime_error` and `throw std::out_of_range`
in the C++ sources of every top-level folder but tests/, bench/ and the non-code ones, comments
removed, and
fails naming `file: N throw(s)` for each file that is not on the list below or throws more than
the list allows. A listed file that now throws fewer than its count fails too ("stale"), so the
list shrinks with the code and cannot outlive its reason.
"""
import argparse
import os
import re
import subprocess
import sys

# Every top-level folder holds code that is checked but these (a new room is checked at once).
NOT_ROOMS = ("tests", "bench", "docs", "deploy", "scripts", ".ci")
SOURCE_SUFFIXES = (".cc", ".h", ".cc.in")
THROW = re.compile(r"\bthrow\s+std::(invalid_argument|runtime_error|out_of_range)\b")

DONE_DECODER = ("a decoder of a peer's DONE payload: thrown per nested field and caught once by "
                "decode_node_result, which makes it a wire::ProtocolError naming the peer")
CHECKED_BY_CALLER = ("a constructor or factory handed what its caller validated first "
                     "(EngineConfig::validate, the flags' checks): an invariant, not input")

# file -> (throws allowed, why). Only the classes docs/architecture.md names.
ALLOWED = {
    "stats/l2_failures_json.cc": (10, DONE_DECODER + "; fleet_summary.json's reader makes it a "
                                  "Result (run_summary_reader.cc l2_failures_of)"),
    "stats/lateness_stats.cc": (3, DONE_DECODER),
    "causal/pacing_stats.cc": (3, DONE_DECODER + "; fleet_summary.json's reader makes it absent "
                               "(run_summary_reader.cc pacing_of)"),
    "stats/log_linear_histogram.cc": (1, DONE_DECODER),
    "wire/l2_windows_shape.cc": (2, DONE_DECODER),
    "wire/node_result_shape.cc": (1, DONE_DECODER),
    "summary/tolerant_json.h": (1, "a stored run directory's decoder: thrown per field present "
                                "with the wrong type, caught once by read_run_summary and "
                                "read_l2_run_stats, which return a Result naming the file"),
    "util/include/fleet/util/json_number.h": (2, DONE_DECODER + "; the engine config's JSON "
                                              "readers catch it per field and return a Result"),
    "engine/storage/eviction_policy.cc": (1, CHECKED_BY_CALLER),
    "plan/shard_router.cc": (2, CHECKED_BY_CALLER),
    "trace/synthetic_trace.cc": (1, CHECKED_BY_CALLER + " (validate_synthetic_options)"),
    "engine/storage/storage_manager_prefetch.cc": (
        1, "LMCache's own ValueError from submit_prefetch_task: counted, then the record fails "
        "as LMCache's does (the dispatcher catches it per record)"),
    "trace/op_encoder.cc": (1, "an era-4 prefetch has no known codec: LMCache drops it, and "
                            "the encoder's caller drops the record"),
    "plan/route_cache.cc": (1, "the saved plan's entry decoder, once per record on the "
                            "replay's path: a plan damaged after open() checked it whole; "
                            "FleetRun::advance_saved catches it once and aborts the run"),
}


def source_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=root, check=True, capture_output=True, text=True).stdout
        paths = out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".git", "node_modules"))]
            paths += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(p for p in paths
                  if "/" in p and p.split("/", 1)[0] not in NOT_ROOMS
                  and not p.startswith("build") and p.endswith(SOURCE_SUFFIXES)
                  and os.path.exists(os.path.join(root, p)))


def without_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def count_throws(root):
    counts = {}
    for path in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            n = len(THROW.findall(without_comments(f.read())))
        if n:
            counts[path] = n
    return counts


def problems(counts):
    out = []
    for path, n in sorted(counts.items()):
        allowed = ALLOWED.get(path, (0, ""))[0]
        if n > allowed:
            out.append(f"{path}: {n} throw(s) of std::invalid_argument/runtime_error/out_of_range"
                       f" (allowed {allowed}): return a Status or Result (util/status.h), or "
                       f"name the class in scripts/check-throws.py and docs/architecture.md")
    for path, (allowed, _) in sorted(ALLOWED.items()):
        n = counts.get(path, 0)
        if n < allowed:
            out.append(f"{path}: stale entry: {n} throw(s), the list allows {allowed}: lower it")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--allowed", action="store_true", help="print the list and its reasons")
    args = ap.parse_args()
    if args.allowed:
        for path, (n, why) in sorted(ALLOWED.items()):
            print(f"{path}: {n}: {why}")
        return 0
    counts = count_throws(args.source)
    found = problems(counts)
    for p in found:
        print(p)
    total = sum(counts.values())
    print(f"check-throws: {total} throw site(s) in {len(counts)} file(s), "
          f"{len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
