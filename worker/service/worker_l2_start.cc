// START's l2 block (docs/l2-traces.md, "Across the fleet"). The run's adapter went through the
// same checks as a storage run's engine config in on_start (--allow-l2, --fs-root, the
// worker's --l2-key-namespace and --l2-secret-file credentials); here the files: each must be
// one this worker's operator lets it read (--trace-root), or the run is refused by name.
#include <cmath>

#include "worker_protocol.h"

namespace fleet::service {

bool WorkerProtocol::apply_l2(const wire::Start& s, RunSetup& setup) {
  if (!s.l2.on) return true;
  const wire::L2Run& l2 = s.l2;
  const std::optional<l2replay::L2Shard> shard = l2replay::l2_shard_from_name(l2.shard);
  std::string bad;
  if (!shard)
    bad = "shard '" + l2.shard + "' (none, source or key)";
  else if (l2.trace_paths.empty())
    bad = "no L2 trace files";
  else if (l2.shift_s.size() != l2.trace_paths.size())
    bad = "one shift per file";
  else if (*shard == l2replay::L2Shard::Key &&
           l2.worker_names.size() != static_cast<size_t>(s.node_count))
    bad = "key sharding needs every worker's name";
  else if (!(l2.trace_percent > 0 && l2.trace_percent <= 100))
    bad = "trace percent in (0, 100]";  // the rest of the numbers: start_limits.h
  if (!bad.empty()) {
    abort_run(wire::AbortKind::Protocol, "worker " + options_.name + ": start: L2: " + bad,
              "bad L2 parameters");
    return false;
  }
  RunSetup::L2 run;
  for (const std::string& path : l2.trace_paths) {
    auto allowed = options_.policy.check_trace_path(path);
    if (!allowed) {
      abort_run(wire::AbortKind::Policy,
                "worker " + options_.name + ": L2 trace: " + allowed.status().message() +
                    " (the worker reads L2 traces itself; its --trace-root must hold them)",
                "an L2 trace outside this worker's --trace-root");
      return false;
    }
    run.paths.push_back(allowed.value());
  }
  run.shift_s = l2.shift_s;
  run.share = {*shard, s.node_index, s.node_count, l2.worker_names};
  run.plan.trace_percent = l2.trace_percent;
  if (l2.max_frame_bytes > 0) run.plan.max_frame_bytes = l2.max_frame_bytes;
  run.speed = s.speed;
  run.drain_timeout_s = l2.drain_timeout_s;
  run.prepare = l2.prepare || l2.prepare_only;
  run.prepare_only = l2.prepare_only;
  setup.l2 = std::move(run);
  return true;
}

}  // namespace fleet::service
