#!/usr/bin/env python3
"""Bounded-memory benchmark (docs/reliability.md, "Bounded memory").

    bench/memory.py [--build DIR] [--records N] [--context TOKENS] [--keep]

Generates an era-3 trace of N records (default 5,000,000; --context 2048 gives ~0.2 KiB
records), then measures the peak RSS (ru_maxrss of each process, from wait4) of:
  * an embedded replay (--engine noop --speed 0);
  * a streaming fleet run, --shard key --trace-access stream, on 2 workers started by hand,
    so the coordinator's and each worker's peak are measured apart.
Each at N/5 and at N records, so the growth per record is a slope measured in the same run,
and checks the limits docs/reliability.md states. Exit 1 when a limit is exceeded.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# The limits the docs state (docs/reliability.md § Bounded memory): a fixed part plus the
# exact-percentile samples, 8 bytes a record held (the worker its own shard's; the coordinator
# every node's, merged), times what cutting the percentiles holds at its peak: the coordinator
# merges sorted runs into one array (2 copies); a worker and the embedded replay sort their own
# chunks through a contiguous copy and a radix-sort scratch (up to 4-5 copies, measured).
FIXED_MIB = {"embedded": 96, "coordinator": 96, "worker": 96}
PER_RECORD_BYTES = {"embedded": 40, "coordinator": 24, "worker": 40}


def gen(build, path, records, context):
    subprocess.run([f"{build}/bench/fleet_bench", "gen", path, str(records), str(context)],
                   check=True, stdout=subprocess.DEVNULL)


def wait_rss(proc):
    """Waits for proc and returns (exit code, peak RSS in MiB)."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss / 1024.0


def embedded(build, trace, out):
    p = subprocess.Popen([f"{build}/coordinator/coordinator", trace, "--engine", "noop",
                          "--speed", "0", "-q", "--progress", "never", "--no-report",
                          "--output-dir", out], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    code, rss = wait_rss(p)
    if code != 0:
        sys.exit(f"embedded run failed ({code}): {p.stderr.read().decode()}")
    summary = json.load(open(f"{out}/fleet_summary.json"))
    return {"embedded": rss, "embedded_records": summary["records"]["total"]}


def start_worker(build, name, log):
    p = subprocess.Popen([f"{build}/worker/worker", "--listen", "tcp://127.0.0.1:0",
                          "--announce", "--engine", "noop", "--name", name],
                         stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    line = p.stdout.readline()  # "LISTENING tcp://127.0.0.1:PORT" once bound
    m = re.search(r"LISTENING tcp://(127\.0\.0\.1:\d+)", line)
    if not m:
        p.kill()
        sys.exit(f"worker {name} did not announce its port: {line!r} {open(log).read()}")
    return p, m.group(1)


def fleet(build, trace, out, work):
    workers = [start_worker(build, f"w{i}", f"{work}/w{i}.log") for i in range(2)]
    p = subprocess.Popen([f"{build}/coordinator/coordinator", trace, "--workers",
                          ",".join(a for _, a in workers), "--shard", "key", "--engine", "noop",
                          "--trace-access", "stream", "--speed", "0", "--start-delay", "0",
                          "-q", "--progress", "never", "--no-report", "--output-dir", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    code, rss = wait_rss(p)
    if code != 0:
        sys.exit(f"fleet run failed ({code}): {p.stderr.read().decode()}")
    result = {"coordinator": rss}
    for i, (w, _) in enumerate(workers):
        w.terminate()
        result[f"worker{i}"] = wait_rss(w)[1]
    summary = json.load(open(f"{out}/fleet_summary.json"))
    result["records"] = summary["records"]["total"]
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.path.join(here, "..", "build"))
    ap.add_argument("--records", type=int, default=5_000_000)
    ap.add_argument("--context", type=int, default=2048)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fleet-memory-")
    try:
        sizes = [a.records // 5, a.records]
        rows = {}
        for n in sizes:
            trace = f"{work}/t{n}.lct"
            gen(a.build, trace, n, a.context)
            row = {"trace_mib": os.path.getsize(trace) / 2**20}
            row.update(embedded(a.build, trace, f"{work}/emb{n}"))
            row.update(fleet(a.build, trace, f"{work}/fleet{n}", work))
            rows[n] = row
            os.remove(trace)
        small, big = rows[sizes[0]], rows[sizes[1]]
        print(f"{'process':<12} {'records':>10} {'peak_rss_mib':>13} {'at_N/5_mib':>11} "
              f"{'slope_B/record':>15} {'limit_mib':>10} verdict")
        failed = False
        for proc in ["embedded", "coordinator", "worker0", "worker1"]:
            # Records the process held samples for: every record, or (a worker) its shard's half.
            # (key sharding splits calls: a fleet run holds a sample per sub-call).
            key = "embedded_records" if proc == "embedded" else "records"
            held_big = big[key] / (2 if proc.startswith("worker") else 1)
            held_small = small[key] / (2 if proc.startswith("worker") else 1)
            slope = (big[proc] - small[proc]) * 2**20 / max(held_big - held_small, 1)
            kind = "worker" if proc.startswith("worker") else proc
            limit = FIXED_MIB[kind] + PER_RECORD_BYTES[kind] * held_big / 2**20
            ok = big[proc] <= limit
            failed |= not ok
            print(f"{proc:<12} {int(held_big):>10} {big[proc]:>13.1f} {small[proc]:>11.1f} "
                  f"{slope:>15.1f} {limit:>10.1f} {'ok' if ok else 'OVER'}")
        print(f"trace: {sizes[1]} records, {big['trace_mib']:.0f} MiB on disk")
        return 1 if failed else 0
    finally:  # also when a run fails midway: the traces are gigabytes
        if a.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
