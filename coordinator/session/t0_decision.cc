#include "fleet/coordinator/session/t0_decision.h"

#include <algorithm>

namespace fleet::session {

std::optional<T0Decision> decide_t0(const std::vector<NodeReadiness>& nodes, const T0Inputs& in) {
  T0Decision d;
  d.ready_ns = in.handshake_end_ns;
  bool any_live = false;
  for (const NodeReadiness& n : nodes) {
    if (n.lost) continue;
    if (!n.ready) return std::nullopt;
    any_live = true;
    d.ready_ns = std::max(d.ready_ns, n.ready_ns);
    if (d.slowest_node.empty() || n.engine_build_ns > d.slowest_engine_build_ns) {
      d.slowest_node = n.name;
      d.slowest_engine_build_ns = n.engine_build_ns;
    }
    d.clock_uncertainty_ns = std::max(d.clock_uncertainty_ns, n.clock_uncertainty_ns);
  }
  if (!any_live || in.queued_ns == 0) return std::nullopt;
  d.queued_ns = in.queued_ns;
  // GO travels one way (<= RTT/2 = the uncertainty) and the worker's T0 is off by up to its
  // offset's error (another RTT/2): twice the uncertainty, doubled again for jitter.
  d.margin_ns = kGoProcessingNs + 4 * d.clock_uncertainty_ns;
  const int64_t settled = std::max({d.ready_ns, d.queued_ns, in.now_ns});
  d.t0_ns = settled + d.margin_ns;
  d.waited_for = "readiness";
  if (const int64_t floor = in.handshake_end_ns + in.start_delay_ns; floor > d.t0_ns) {
    d.t0_ns = floor;
    d.waited_for = "--start-delay";
  }
  if (in.start_at_ns > 0) {
    if (in.start_at_ns >= d.t0_ns) {
      d.t0_ns = in.start_at_ns;
      d.waited_for = "--start-at";
    } else {
      d.start_at_missed_ns = d.t0_ns - in.start_at_ns;
    }
  }
  return d;
}

nlohmann::json T0Decision::to_json(int64_t handshake_end_ns) const {
  auto ms = [&](int64_t t) { return static_cast<double>(t - handshake_end_ns) / 1e6; };
  nlohmann::json j;
  j["waited_for"] = waited_for;
  j["t0_after_handshake_ms"] = ms(t0_ns);
  j["last_ready_after_handshake_ms"] = ms(ready_ns);
  j["queued_after_handshake_ms"] = ms(queued_ns);
  j["slowest_engine_node"] = slowest_node;
  j["slowest_engine_build_ms"] = static_cast<double>(slowest_engine_build_ns) / 1e6;
  j["margin_ms"] = static_cast<double>(margin_ns) / 1e6;
  j["max_clock_uncertainty_us"] = static_cast<double>(clock_uncertainty_ns) / 1e3;
  if (start_at_missed_ns > 0)
    j["start_at_missed_ms"] = static_cast<double>(start_at_missed_ns) / 1e6;
  return j;
}

}  // namespace fleet::session
