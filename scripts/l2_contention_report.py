#!/usr/bin/env python3
"""Builds the L2 contention table from the fleet_summary.json of each fleet size.

Usage: l2_contention_report.py [--json OUT.json] [--check] N=DIR [N=DIR ...]

Each DIR holds one coordinator run's outputs (fleet_summary.json). Per fleet size N the table
shows: nodes that reported, L2 ops/s, L2 latency p50/p99 per operation (store, lookup, load),
Jain's fairness index over the nodes' L2 ops, replay lateness p99, and hit/miss counters.

Where the numbers come from (fleet_summary.json):
  * "contention" (top level, when the coordinator merges per-node L2 histograms): per_op n,
    p50_us, p99_us; per_node ops; fairness. These are measured per completed L2 operation.
  * otherwise nodes[].engine.counters.l2_adapters[]: store_tasks + lookup_tasks + load_tasks
    per node (ops) and the fairness index over them; latency is then "n/a" (not reported by
    the binaries), never estimated.
  * DIR/redis_commandstats.txt (INFO commandstats saved by l2-contention.sh), when present:
    calls and mean usec per call per Redis command, measured inside Redis (server side only,
    no network or queueing time), printed as a second table.
  * hit/miss: prefetch_l1_hit_keys / prefetch_l1_miss_keys (L1), l2_lookup_found_keys /
    l2_lookup_keys (L2 lookups) summed over nodes.
--check exits 1 unless every run is sane: every node reported "ok", L2 ops > 0, fairness in
(0, 1]. Standard library only.
"""
import json
import sys

OPS = ("store", "lookup", "load")


def jain(xs):
    s, sq = sum(xs), sum(x * x for x in xs)
    if not xs or sq == 0:
        return None
    return s * s / (len(xs) * sq)


def node_counter(node, key):
    return node.get("engine", {}).get("counters", {}).get(key, 0) or 0


def node_l2_tasks(node):
    total = 0
    for a in node.get("engine", {}).get("counters", {}).get("l2_adapters", []) or []:
        total += sum(a.get(k, 0) or 0 for k in ("store_tasks", "lookup_tasks", "load_tasks"))
    return total


def row_for(n, summary):
    nodes = summary.get("nodes", [])
    ok = sum(1 for x in nodes if x.get("status") == "ok")
    duration = summary.get("duration_s") or 0.0
    cont = summary.get("contention") or {}
    per_op = cont.get("per_op") or {}
    row = {"n": n, "nodes_ok": ok, "nodes": len(nodes), "duration_s": duration}
    if per_op:
        row["latency_source"] = "contention"
        per_node = cont.get("per_node") or {}
        node_ops = [float(per_node.get(x.get("name"), 0)) for x in nodes]
        row["l2_ops"] = sum(int(v.get("n", 0)) for v in per_op.values())
        row["fairness"] = cont.get("fairness")
        if row["fairness"] is None:
            row["fairness"] = jain(node_ops)
        for op in OPS:
            v = per_op.get(op)
            row[op + "_p50_us"] = v.get("p50_us") if v else None
            row[op + "_p99_us"] = v.get("p99_us") if v else None
            row[op + "_n"] = int(v.get("n", 0)) if v else 0
    else:
        row["latency_source"] = "counters"
        node_ops = [float(node_l2_tasks(x)) for x in nodes]
        row["l2_ops"] = int(sum(node_ops))
        row["fairness"] = jain(node_ops)
        for op in OPS:
            row[op + "_p50_us"] = None
            row[op + "_p99_us"] = None
            row[op + "_n"] = sum(
                sum((a.get(op + "_tasks", 0) or 0)
                    for a in x.get("engine", {}).get("counters", {}).get("l2_adapters", []) or [])
                for x in nodes)
    row["node_ops"] = node_ops
    row["l2_ops_per_s"] = row["l2_ops"] / duration if duration > 0 else None
    row["lateness_p99_us"] = (summary.get("lateness_us") or {}).get("p99")
    row["l1_hit_keys"] = sum(node_counter(x, "prefetch_l1_hit_keys") for x in nodes)
    row["l1_miss_keys"] = sum(node_counter(x, "prefetch_l1_miss_keys") for x in nodes)
    row["l2_lookup_keys"] = sum(node_counter(x, "l2_lookup_keys") for x in nodes)
    row["l2_found_keys"] = sum(node_counter(x, "l2_lookup_found_keys") for x in nodes)
    row["l2_store_failed"] = sum(node_counter(x, "l2_store_failed_tasks") for x in nodes)
    return row


def redis_stats(d):
    stats = {}
    try:
        with open(d.rstrip("/") + "/redis_commandstats.txt") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("cmdstat_"):
                    continue
                name, rest = line[len("cmdstat_"):].split(":", 1)
                kv = dict(x.split("=", 1) for x in rest.split(",") if "=" in x)
                stats[name] = (int(kv.get("calls", 0)), float(kv.get("usec_per_call", 0)))
    except OSError:
        pass
    skip = ("info", "flushall", "config", "ping", "dbsize", "command")
    return {k: v for k, v in stats.items() if k.split("|")[0] not in skip}


def render_redis(rows):
    cmds = sorted({c for r in rows for c in r.get("redis", {})})
    if not cmds:
        return ""
    head = ["N"] + ["%s calls / us per call" % c.upper() for c in cmds]
    table = [head]
    for r in rows:
        st = r.get("redis", {})
        table.append([str(r["n"])] + ["%d / %.1f" % st[c] if c in st else "-" for c in cmds])
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = ["Redis server side (INFO commandstats: mean time inside Redis per command):"]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in table]
    return "\n".join(lines)


def fmt(v, spec="{:.1f}"):
    return "n/a" if v is None else spec.format(v)


def render(rows):
    head = ["N", "nodes", "L2 ops", "L2 ops/s",
            "store p50/p99 us", "lookup p50/p99 us", "load p50/p99 us",
            "fairness", "late p99 us", "L1 hit/miss keys", "L2 found/lookup keys"]
    table = [head]
    for r in rows:
        lat = [fmt(r[op + "_p50_us"]) + "/" + fmt(r[op + "_p99_us"]) for op in OPS]
        table.append([str(r["n"]), "%d/%d" % (r["nodes_ok"], r["n"]), str(r["l2_ops"]),
                      fmt(r["l2_ops_per_s"]), *lat, fmt(r["fairness"], "{:.3f}"),
                      fmt(r["lateness_p99_us"]),
                      "%d/%d" % (r["l1_hit_keys"], r["l1_miss_keys"]),
                      "%d/%d" % (r["l2_found_keys"], r["l2_lookup_keys"])])
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if any(r["latency_source"] == "counters" for r in rows):
        lines.append("latency n/a: these binaries report no per-operation L2 latency "
                     "(no \"contention\" in fleet_summary.json); ops and fairness come from "
                     "the engine's L2 task counters.")
    return "\n".join(lines)


def check(rows):
    problems = []
    for r in rows:
        if r["nodes_ok"] != r["n"] or r["nodes"] != r["n"]:
            problems.append("N=%d: %d of %d nodes reported ok" % (r["n"], r["nodes_ok"], r["n"]))
        if r["l2_ops"] <= 0:
            problems.append("N=%d: no L2 operations" % r["n"])
        if any(x <= 0 for x in r["node_ops"]):
            problems.append("N=%d: a node did no L2 operations: %s" % (r["n"], r["node_ops"]))
        f = r["fairness"]
        if f is None or not (0 < f <= 1 + 1e-9):
            problems.append("N=%d: fairness %s not in (0, 1]" % (r["n"], f))
    return problems


def main(argv):
    out_json, do_check, runs = None, False, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--json":
            out_json = argv[i + 1]
            i += 2
            continue
        if a == "--check":
            do_check = True
        elif "=" in a:
            n, d = a.split("=", 1)
            runs.append((int(n), d))
        else:
            print("l2_contention_report.py: unexpected argument %r" % a, file=sys.stderr)
            return 2
        i += 1
    rows = []
    for n, d in runs:
        path = d.rstrip("/") + "/fleet_summary.json"
        try:
            with open(path) as f:
                rows.append(row_for(n, json.load(f)))
            rows[-1]["redis"] = redis_stats(d)
        except (OSError, ValueError) as e:
            print("l2_contention_report.py: %s: %s" % (path, e), file=sys.stderr)
            return 1
    print(render(rows))
    extra = render_redis(rows)
    if extra:
        print()
        print(extra)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1)
    if do_check:
        problems = check(rows)
        for p in problems:
            print("CHECK FAILED: " + p, file=sys.stderr)
        if problems:
            return 1
        print("check: every node reported, L2 ops > 0, fairness in (0, 1]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
