// `coordinator compare A B` of two L2 replays' run directories (docs/compare.md, "L2 runs"):
// the parameters that differ (speed, trace percent, adapter, trace, the plan's digest), the
// run's totals and, per operation kind, counts, latency percentiles, throughput, lag and waits
// and outcome mismatches, each as A, B, B - A and (B - A) / A. Plain deltas: an L2 run's stats
// carry no per-second samples to bootstrap an interval from, so no significance is claimed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/insight/compare/threshold.h"
#include "fleet/summary/l2_run_stats.h"
#include "fleet/util/status.h"

namespace fleet::compare {

struct L2Delta {
  std::string metric;
  double a = 0.0, b = 0.0;
  double delta() const { return b - a; }
  std::optional<double> relative() const;  // nullopt when a == 0
};

struct L2Parameter {
  std::string name;
  std::string a, b;
  bool differs() const { return a != b; }
};

struct L2KindComparison {
  std::string kind;
  bool in_a = false, in_b = false;
  std::vector<L2Delta> metrics;
};

struct L2Comparison {
  std::string dir_a, dir_b;
  std::vector<L2Parameter> parameters;
  std::vector<L2Delta> run;
  std::vector<L2KindComparison> kinds;
};

L2Comparison compare_l2_runs(const summary::L2RunStats& a, const summary::L2RunStats& b);
// With --fail-on (l2_threshold.h): the thresholds' outcomes after the tables, and in
// compare.json's "thresholds" as a storage comparison writes them.
std::string l2_terminal_table(const L2Comparison& c,
                              const std::vector<ThresholdOutcome>& outcomes = {});
// compare.json for two L2 runs ("level": "l2").
nlohmann::json l2_comparison_json(const L2Comparison& c,
                                  const std::vector<ThresholdOutcome>& outcomes = {});

// When exactly one of the two directories is an L2 replay's: the refusal naming both (and which
// is which); Status() when both or neither are.
Status refuse_mixed_levels(const std::string& dir_a, const std::string& dir_b);

}  // namespace fleet::compare
