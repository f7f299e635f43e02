#!/usr/bin/env python3
"""One bench/scale_sim.sh run as one line: the coordinator's costs against N simulated workers,
the merged counts checked; for a run with a frozen worker, when it was reported lost.
Arguments: OUT_DIR N START END TRACE_RECORDS EXIT_CODE SIM_STDOUT COORDINATOR_LOG."""
import datetime
import json
import re
import statistics
import sys

out, n, start, end, records, code, sim_out, log = sys.argv[1:9]
n, records, code = int(n), int(records), int(code)
wall = float(end) - float(start)
s = json.load(open(out + "/fleet_summary.json"))
c, acc = s["coordinator"], s["accounting"]
cpu = c["cpu_user_s"] + c["cpu_system_s"]
rss = c["peak_rss_bytes"] / 2**20
run_s = c["wall_since_t0_s"]
skews = sorted(node["start_skew_us"] for node in s["nodes"])
done = c.get("done_bytes", []) or [0]
msgs = c.get("messages", {})
st = c.get("start") or {}
sim = open(sim_out).read()
frozen = re.search(r"^FROZEN (\S+) (\d+)$", sim, re.M)
sim_cost = re.search(r"^SIM END (.*)$", sim, re.M)

# The accounting identity, whatever happened: every record of the trace is in one bucket of one
# node (a call split over k nodes counts k times), and the merged count is what was replayed.
parts = sum(nd["accounted"] for nd in acc["nodes"]) + acc.get("not_read", 0)
ok = acc["balanced"] and acc["trace_records"] == records and parts == records + acc.get(
    "split_extra_parts", 0)
lost = [nd for nd in s["nodes"] if nd["status"] == "lost"]
if frozen:
    ok = ok and code == 3 and len(lost) == 1 and lost[0]["name"].startswith(frozen.group(1))
else:
    ok = ok and code == 0 and not lost and s["records"]["total"] == acc["expected"]

print(f"N={n:<4} wall {wall:6.2f} s | coord cpu {cpu:6.2f} s ({cpu / n / run_s * 1e3:5.2f} ms per "
      f"worker-second, {cpu / wall:4.2f} core) | rss {rss:6.1f} MiB ({rss / n:5.2f} MiB/worker) | "
      f"connect {c['phase_s']['connect'] * 1e3:5.0f} ms, T0 +{st.get('t0_after_handshake_ms', float('nan')):6.1f} ms "
      f"({st.get('waited_for', '-')}) | skew p50 {statistics.median(skews) / 1e3:6.1f} ms max "
      f"{skews[-1] / 1e3:6.1f} ms | merge {c['phase_s']['merge'] * 1e3:6.1f} ms | DONE mean "
      f"{statistics.mean(done) / 1024:5.1f} KiB max {max(done) / 1024:5.1f} KiB | msgs "
      f"{(msgs.get('sent', 0) + msgs.get('received', 0)) / run_s:6.0f}/s | records {records} -> "
      f"{s['records']['total']} calls, exit {code} "
      f"({'accounting balanced, counts exact' if ok else 'MISMATCH'})")
threads = c.get("thread_cpu_s")
if threads:  # the control thread (socket, heartbeats, credit, merge) and the routing thread apart
    routing = threads.get("routing")
    print(f"       threads: control {threads['control']:.2f} s ({threads['control'] / wall:4.2f} core), "
          f"routing {'-' if routing is None else f'{routing:.2f} s ({routing / wall:4.2f} core)'}, "
          f"rest (ZeroMQ I/O, reader) {cpu - threads['control'] - (routing or 0):.2f} s")
if sim_cost:
    print(f"       simulator: {sim_cost.group(1)}")
if frozen:
    name, frozen_ms = frozen.group(1), int(frozen.group(2))
    why = lost[0]["engine"]["counters"].get("lost_reason", "") if lost else ""
    silence = re.search(r"no heartbeat for ([0-9]+) ms", why)
    # The coordinator's verdict line carries its local wall time: "[HH:MM:SS.mmm] ... lost".
    verdict = re.search(r"^\[(\d\d):(\d\d):(\d\d)\.(\d{3})\] \[error\] worker \S+ silent for .*: lost$",
                        open(log).read(), re.M)
    after = float("nan")
    if verdict:
        f = datetime.datetime.fromtimestamp(frozen_ms / 1000)
        v = f.replace(hour=int(verdict.group(1)), minute=int(verdict.group(2)),
                      second=int(verdict.group(3)), microsecond=int(verdict.group(4)) * 1000)
        after = (v - f).total_seconds()
    print(f"       frozen {name}: reported lost after {silence.group(1) if silence else '?'} ms of "
          f"silence, {after:.2f} s after it froze (budget 1.5 s: 3 x 500 ms heartbeats); "
          f"partial report: {len(lost)} node lost, {len(s['nodes']) - len(lost)} ok, exit {code}")
if not ok:
    sys.exit(1)
