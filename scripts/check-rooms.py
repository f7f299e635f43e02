#!/usr/bin/env python3
"""The rooms' include directions, and their sizes (docs/architecture.md, "The rooms").

  check-rooms.py [--source REPO] [--sizes]

Each top-level room may include the public headers (`#include "fleet/<room>/..."`) of the rooms
listed for it below and its own; no source may reach into another folder with a relative
include (`#include "../..."` that leaves its room). Tests and benchmarks may include anything.
Exit 0 with a count when every include is allowed, 1 with `file:line: problem` lines.

--sizes also prints each room's share of the non-test C++ lines and fails when one holds more
than 20 % (issue 39: no room is the house).
"""
import argparse
import os
import re
import subprocess
import sys

# Room -> the rooms it may include, in data-path order. util and security serve everyone;
# coordinator and worker are the processes on top; tools/lct reads traces only. flags is the
# command line's kit at the edges: the binaries (and only they) include it.
ALLOWED = {
    "util": set(),
    "trace": {"util"},
    "stats": {"util"},
    "causal": {"util", "trace", "stats"},
    "wire": {"util", "trace", "stats", "causal"},
    "security": {"util"},
    "plan": {"util", "trace"},
    "engine": {"util", "trace", "stats"},
    "flags": {"util", "engine"},
    "l2replay": {"util", "trace", "stats", "security", "plan", "engine"},
    "replay": {"util", "trace", "stats", "causal", "wire", "engine"},
    "summary": {"util", "trace", "stats", "causal", "wire", "plan", "engine"},
    "insight": {"util", "trace", "stats", "causal", "wire", "engine", "summary"},
    "worker": {"util", "trace", "stats", "causal", "wire", "security", "plan", "engine",
               "replay", "l2replay", "flags"},
    "coordinator": {"util", "trace", "stats", "causal", "wire", "security", "plan", "engine",
                    "replay", "summary", "insight", "flags", "l2replay"},
    "tools": {"util", "trace", "flags"},
}
SOURCE_SUFFIXES = (".cc", ".h", ".cc.in")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SIZE_LIMIT = 0.20


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
    return [p for p in paths if p.endswith(SOURCE_SUFFIXES) and os.path.exists(os.path.join(root, p))]


def room_of(path):
    top = path.split("/", 1)[0]
    return top if top in ALLOWED else None


def check_includes(root, paths):
    problems, checked = [], 0
    for path in paths:
        room = room_of(path)
        if room is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                checked += 1
                if target.startswith("fleet/"):
                    other = target.split("/")[1]
                    if other != room and other not in ALLOWED[room]:
                        problems.append(f"{path}:{number}: room '{room}' may not include "
                                        f"'{target}' (room '{other}'; allowed: "
                                        f"{', '.join(sorted(ALLOWED[room])) or 'none'})")
                elif target.startswith(".."):
                    resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
                    if room_of(resolved) != room:
                        problems.append(f"{path}:{number}: '{target}' reaches out of room "
                                        f"'{room}'; include another room by its public header")
    return problems, checked


def room_sizes(root, paths):
    lines = {}
    for path in paths:
        room = room_of(path)
        if room is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines[room] = lines.get(room, 0) + sum(1 for _ in f)
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--sizes", action="store_true", help="print each room's share of the lines")
    args = ap.parse_args()
    paths = source_files(args.source)
    problems, checked = check_includes(args.source, paths)
    if args.sizes:
        lines = room_sizes(args.source, paths)
        total = sum(lines.values())
        for room in ALLOWED:
            share = lines.get(room, 0) / total if total else 0
            print(f"{room:12} {lines.get(room, 0):7d} lines  {share:5.1%}")
            if share > SIZE_LIMIT:
                problems.append(f"{room}/: {share:.1%} of the non-test lines (limit "
                                f"{SIZE_LIMIT:.0%})")
        print(f"{'total':12} {total:7d} lines")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"check-rooms: {checked} includes in {len(ALLOWED)} rooms follow the allowed directions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
