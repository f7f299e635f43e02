#include "fleet/insight/compare/l2_threshold.h"

#include <array>
#include <string_view>

namespace fleet::compare {

namespace {

// A threshold's name for a metric, the comparison's name for it (l2_comparison.cc), its unit,
// and whether it is a count.
struct L2Metric {
  std::string_view name, delta, unit;
  bool counter;
};

constexpr std::array<L2Metric, 10> kRunMetrics{{
    {"ops_per_s", "operations_per_second", " ops/s", false},
    {"bytes_per_s", "throughput_bytes_per_second", " B/s", false},
    {"operations", "operations", "", true},
    {"total_replay_s", "total_replay_seconds", " s", false},
    {"max_schedule_lag_s", "max_schedule_lag_seconds", " s", false},
    {"mean_schedule_lag_s", "mean_schedule_lag_seconds", " s", false},
    {"dependency_wait_s", "total_dependency_wait_seconds", " s", false},
    {"outcome_mismatches", "outcome_mismatches", "", true},
    {"outcome_mismatch_rate", "outcome_mismatch_rate", "", false},
    {"dependency_violations", "dependency_violations", "", true},
}};

constexpr std::array<L2Metric, 14> kKindMetrics{{
    {"p50", "p50_ms", " ms", false},
    {"p90", "p90_ms", " ms", false},
    {"p99", "p99_ms", " ms", false},
    {"max", "max_ms", " ms", false},
    {"ops_per_s", "operations_per_second", " ops/s", false},
    {"submitted", "submitted", "", true},
    {"completed", "completed", "", true},
    {"failed", "failed", "", true},
    {"bytes_moved", "bytes_moved", " B", false},
    {"schedule_lag_max_s", "schedule_lag_max_s", " s", false},
    {"schedule_lag_mean_s", "schedule_lag_mean_s", " s", false},
    {"dependency_wait_max_s", "dependency_wait_max_s", " s", false},
    {"dependency_wait_total_s", "dependency_wait_total_s", " s", false},
    {"outcome_mismatches", "outcome_mismatches", "", true},
}};

constexpr std::array<std::string_view, 5> kKinds{"store", "lookup_task", "load_task", "unlock",
                                                 "delete"};

template <size_t N>
const L2Metric* find(const std::array<L2Metric, N>& table, std::string_view name) {
  for (const L2Metric& m : table)
    if (m.name == name) return &m;
  return nullptr;
}

template <size_t N>
std::string listed(const std::array<L2Metric, N>& table) {
  std::string out;
  for (const L2Metric& m : table) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

[[noreturn]] void unknown(const Threshold& t, const std::string& why) {
  throw ThresholdError("--fail-on '" + t.text + "': unknown L2 metric '" + t.metric + "' (" + why +
                       "; docs/compare.md, \"L2 runs\")");
}

void check_l2_metric(Threshold& t) {
  const std::string& m = t.metric;
  if (!m.starts_with("l2.")) unknown(t, "an L2 run's metrics are l2.<metric> or l2.<kind>.<stat>");
  const std::string rest = m.substr(3);
  const size_t dot = rest.find('.');
  const L2Metric* metric = nullptr;
  if (dot == std::string::npos) {
    metric = find(kRunMetrics, rest);
    if (!metric) unknown(t, "run metrics: " + listed(kRunMetrics));
  } else {
    t.op_name = rest.substr(0, dot);
    bool kind_known = false;
    for (std::string_view k : kKinds) kind_known |= k == t.op_name;
    if (!kind_known) unknown(t, "kinds: store, lookup_task, load_task, unlock, delete");
    metric = find(kKindMetrics, std::string_view(rest).substr(dot + 1));
    if (!metric) unknown(t, "per-kind statistics: " + listed(kKindMetrics));
  }
  t.family = Threshold::Family::kL2;
  t.stat = std::string(metric->delta);
  t.unit = std::string(metric->unit);
  t.l2_counter = metric->counter;
}

const L2Delta* find_delta(const std::vector<L2Delta>& deltas, const std::string& metric) {
  for (const L2Delta& d : deltas)
    if (d.metric == metric) return &d;
  return nullptr;
}

}  // namespace

Threshold parse_l2_threshold(const std::string& text) {
  return parse_threshold_with(text, check_l2_metric);
}

ThresholdOutcome evaluate_l2(const Threshold& t, const L2Comparison& c) {
  const L2Delta* d = nullptr;
  bool kind_listed = false;
  if (t.op_name.empty()) {
    d = find_delta(c.run, t.stat);
  } else {
    for (const L2KindComparison& k : c.kinds) {
      if (k.kind != t.op_name) continue;
      kind_listed = true;
      d = find_delta(k.metrics, t.stat);
    }
  }
  if (!d && kind_listed) {  // unlocks and deletes: no completion, latency or outcome
    ThresholdOutcome out;
    out.expression = t.text;
    out.message = t.text + ": not evaluated: " + t.op_name +
                  " operations have no completion, latency or outcome";
    return out;
  }
  if (!d) return evaluate_change(t, nullptr, t.unit, false);
  Change change;  // no interval: decided by value alone
  change.a = d->a;
  change.b = d->b;
  return evaluate_change(t, &change, t.unit, false);
}

std::vector<ThresholdOutcome> evaluate_l2_all(const std::vector<Threshold>& thresholds,
                                              const L2Comparison& c) {
  std::vector<ThresholdOutcome> out;
  for (const Threshold& t : thresholds) out.push_back(evaluate_l2(t, c));
  return out;
}

}  // namespace fleet::compare
