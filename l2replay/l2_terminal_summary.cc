// The terminal summary of an L2 replay: one line per operation kind that occurred, then totals.
#include <cstdio>

#include "fleet/l2replay/l2_stats_json.h"

namespace fleet::l2replay {

namespace {

std::string line(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

std::string l2_terminal_summary(const L2Plan& plan, const L2ReplayResult& r) {
  std::string out = line("L2 replay: %s against %s, speed %g, %g%% (%llu of %llu submissions)\n",
                         plan.path.c_str(), r.adapter_name.c_str(), r.speed, plan.trace_percent,
                         static_cast<unsigned long long>(plan.ops.size()),
                         static_cast<unsigned long long>(plan.source_operations_total));
  out += line("  %-12s %10s %10s %10s %10s %10s %12s %10s\n", "operation", "issued", "completed",
              "p50 ms", "p99 ms", "max ms", "dep wait s", "mismatch");
  for (size_t k = 0; k < kL2OpCount; ++k) {
    const L2OpResult& o = r.ops[k];
    if (o.submitted == 0) continue;
    const stats::OpSummary s = o.latency.summary();
    out += line("  %-12s %10llu %10llu %10.3f %10.3f %10.3f %12.6f %10llu\n",
                std::string(trace::l2_op_name(static_cast<L2Op>(k))).c_str(),
                static_cast<unsigned long long>(o.submitted),
                static_cast<unsigned long long>(o.completed), s.p50_ms, s.p99_ms, s.max_ms,
                o.dependency_wait.max_s, static_cast<unsigned long long>(o.outcome_mismatches));
  }
  const double secs = r.total_replay_seconds;
  out += line(
      "  %llu operations in %.3f s (%.0f ops/s); outcome mismatches %llu of %llu; "
      "issued before a dependency completed: %llu%s\n",
      static_cast<unsigned long long>(r.dispatched()), secs,
      secs > 0 ? static_cast<double>(r.dispatched()) / secs : 0.0,
      static_cast<unsigned long long>(r.mismatches()),
      static_cast<unsigned long long>(r.comparisons()),
      static_cast<unsigned long long>(r.dependency_violations),
      r.interrupted ? " (interrupted)" : "");
  return out;
}

}  // namespace fleet::l2replay
