#include "start_limits.h"

#include <cmath>

#include "fleet/engine/engine_config.h"

namespace fleet::service {

namespace {

std::string l2_limits_error(const wire::L2Run& l2) {
  if (l2.trace_paths.size() > wire::kMaxL2TraceFiles) {
    return "L2: " + std::to_string(l2.trace_paths.size()) + " trace files (at most " +
           std::to_string(wire::kMaxL2TraceFiles) + ")";
  }
  for (double shift : l2.shift_s)
    if (!std::isfinite(shift)) return "L2: a file's time shift is not finite";
  if (!(l2.drain_timeout_s > 0 && l2.drain_timeout_s <= wire::kMaxDrainTimeoutS)) {
    return "L2: drain timeout " + std::to_string(l2.drain_timeout_s) + " s (in (0, " +
           std::to_string(static_cast<int>(wire::kMaxDrainTimeoutS)) + "])";
  }
  return "";
}

}  // namespace

std::string start_limits_error(const wire::Start& s) {
  if (s.node_count < 1 || s.node_count > wire::kMaxNodes || s.node_index < 0 ||
      s.node_index >= s.node_count) {
    return "node " + std::to_string(s.node_index) + " of " + std::to_string(s.node_count) +
           " (1 to " + std::to_string(wire::kMaxNodes) + " nodes, index below the count)";
  }
  if (s.credit_window < 1 || s.credit_window > wire::kMaxCreditWindow) {
    return "credit window " + std::to_string(s.credit_window) + " (1 to " +
           std::to_string(wire::kMaxCreditWindow) + ")";
  }
  if (!(s.speed >= 0)) return "speed " + std::to_string(s.speed) + " (must be >= 0)";
  if (!std::isfinite(s.t_origin)) return "trace origin is not finite";
  if (Status ns = storage::check_l2_key_namespace(s.l2_key_namespace); !ns)
    return "the run's key namespace: " + ns.message();
  return s.l2.on ? l2_limits_error(s.l2) : "";
}

}  // namespace fleet::service
