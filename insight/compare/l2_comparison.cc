#include "fleet/insight/compare/l2_comparison.h"

#include <cstdio>

namespace fleet::compare {

namespace {

using summary::L2KindStats;
using summary::L2RunStats;

std::string g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::vector<L2Parameter> parameters(const L2RunStats& a, const L2RunStats& b) {
  return {{"speed", g(a.speedup), g(b.speedup)},
          {"trace_percent", g(a.trace_percent), g(b.trace_percent)},
          {"adapter", a.adapter, b.adapter},
          {"trace", a.trace, b.trace},
          {"operations_selected", std::to_string(a.operations_selected),
           std::to_string(b.operations_selected)},
          {"plan_sha256", a.plan.plan_sha256, b.plan.plan_sha256},
          {"prepared", a.prepare ? "yes" : "no", b.prepare ? "yes" : "no"}};
}

std::vector<L2Delta> run_deltas(const L2RunStats& a, const L2RunStats& b) {
  auto d = [](const char* m, double x, double y) { return L2Delta{m, x, y}; };
  auto n = [](uint64_t v) { return static_cast<double>(v); };
  return {d("operations", n(a.operations()), n(b.operations())),
          d("total_replay_seconds", a.total_replay_seconds, b.total_replay_seconds),
          d("operations_per_second", a.operations_per_second, b.operations_per_second),
          d("throughput_bytes_per_second", a.throughput_bytes_per_second,
            b.throughput_bytes_per_second),
          d("max_schedule_lag_seconds", a.max_schedule_lag_seconds, b.max_schedule_lag_seconds),
          d("mean_schedule_lag_seconds", a.mean_schedule_lag_seconds, b.mean_schedule_lag_seconds),
          d("total_dependency_wait_seconds", a.total_dependency_wait_seconds,
            b.total_dependency_wait_seconds),
          d("outcome_mismatches", n(a.outcome_mismatch_count), n(b.outcome_mismatch_count)),
          d("outcome_mismatch_rate", a.outcome_mismatch_rate, b.outcome_mismatch_rate),
          d("dependency_violations", n(a.dependency_violations), n(b.dependency_violations)),
          d("interrupted", a.interrupted ? 1 : 0, b.interrupted ? 1 : 0)};
}

std::vector<L2Delta> kind_deltas(const L2KindStats& a, const L2KindStats& b) {
  auto d = [](const char* m, double x, double y) { return L2Delta{m, x, y}; };
  auto n = [](uint64_t v) { return static_cast<double>(v); };
  std::vector<L2Delta> out = {
      d("submitted", n(a.submitted), n(b.submitted)),
      d("completed", n(a.completed), n(b.completed)),
      d("failed", n(a.failed), n(b.failed)),
      d("bytes_moved", n(a.bytes_moved), n(b.bytes_moved)),
      d("operations_per_second", a.operations_per_second, b.operations_per_second),
      d("p50_ms", a.latency_p50_ms, b.latency_p50_ms),
      d("p90_ms", a.latency_p90_ms, b.latency_p90_ms),
      d("p99_ms", a.latency_p99_ms, b.latency_p99_ms),
      d("max_ms", a.latency_max_ms, b.latency_max_ms),
      d("schedule_lag_max_s", a.schedule_lag_max_s, b.schedule_lag_max_s),
      d("schedule_lag_mean_s", a.schedule_lag_mean_s, b.schedule_lag_mean_s),
      d("dependency_wait_max_s", a.dependency_wait_max_s, b.dependency_wait_max_s),
      d("dependency_wait_total_s", a.dependency_wait_total_s, b.dependency_wait_total_s),
      d("outcome_mismatches", n(a.outcome_mismatches), n(b.outcome_mismatches))};
  if (a.latency_count == 0 && b.latency_count == 0) {  // unlock, delete: no latency, no outcome
    std::erase_if(out, [](const L2Delta& x) {
      return x.metric.ends_with("_ms") || x.metric == "completed" || x.metric == "failed" ||
             x.metric == "bytes_moved" || x.metric == "outcome_mismatches";
    });
  }
  return out;
}

}  // namespace

std::optional<double> L2Delta::relative() const {
  if (a == 0.0) return std::nullopt;
  return (b - a) / a;
}

L2Comparison compare_l2_runs(const L2RunStats& a, const L2RunStats& b) {
  L2Comparison c;
  c.dir_a = a.dir;
  c.dir_b = b.dir;
  c.parameters = parameters(a, b);
  c.run = run_deltas(a, b);
  for (const char* kind : {"store", "lookup_task", "load_task", "unlock", "delete"}) {
    const L2KindStats* ka = a.kind(kind);
    const L2KindStats* kb = b.kind(kind);
    if (!ka && !kb) continue;
    const L2KindStats none{};
    if ((!ka || ka->submitted == 0) && (!kb || kb->submitted == 0)) continue;
    c.kinds.push_back(
        {kind, ka != nullptr, kb != nullptr, kind_deltas(ka ? *ka : none, kb ? *kb : none)});
  }
  return c;
}

Status refuse_mixed_levels(const std::string& dir_a, const std::string& dir_b) {
  const bool l2_a = summary::is_l2_run_dir(dir_a), l2_b = summary::is_l2_run_dir(dir_b);
  if (l2_a == l2_b) return Status();
  const std::string& l2 = l2_a ? dir_a : dir_b;
  const std::string& other = l2_a ? dir_b : dir_a;
  return Status::error("cannot compare an L2 replay with a storage run: " + l2 +
                       " is an L2 replay (l2_replay_stats.json), " + other +
                       " is not (compare two runs of the same level)");
}

}  // namespace fleet::compare
