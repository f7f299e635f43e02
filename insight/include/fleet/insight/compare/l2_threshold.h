// --fail-on for two L2 runs (docs/compare.md, "L2 runs"): threshold.h's grammar and exit codes
// over the L2 comparison's metrics.
//
//   METRIC  l2.<run metric>         ops_per_s bytes_per_s operations total_replay_s
//                                   max_schedule_lag_s mean_schedule_lag_s dependency_wait_s
//                                   outcome_mismatches outcome_mismatch_rate
//                                   dependency_violations
//           l2.<kind>.<stat>        kind: store lookup_task load_task unlock delete
//                                   stat: p50 p90 p99 max (ms) ops_per_s submitted completed
//                                   failed bytes_moved schedule_lag_max_s schedule_lag_mean_s
//                                   dependency_wait_max_s dependency_wait_total_s
//                                   outcome_mismatches
// Counts (operations, outcome_mismatches, dependency_violations, submitted, completed, failed)
// compare B's own value under a plain VALUE, as storage counters do; the rest the change B - A.
// No change is called noise: L2 stats carry no interval, so a threshold is decided by value.
#pragma once

#include <string>
#include <vector>

#include "fleet/insight/compare/l2_comparison.h"
#include "fleet/insight/compare/threshold.h"

namespace fleet::compare {

// Throws ThresholdError naming the unknown metric (and listing the known ones).
Threshold parse_l2_threshold(const std::string& text);

ThresholdOutcome evaluate_l2(const Threshold& t, const L2Comparison& c);
std::vector<ThresholdOutcome> evaluate_l2_all(const std::vector<Threshold>& thresholds,
                                              const L2Comparison& c);

}  // namespace fleet::compare
