// --fail-on thresholds (docs/compare.md § Thresholds): `METRIC OP VALUE`, parsed up front (a
// malformed expression names its offending token), then checked against a Comparison.
//
//   METRIC  <qualname-or-short-name>.<p50|p90|p99|mean|count|errors>
//           cache.<l1_hit_rate|l2_hit_rate|l1_l2_hit_rate|miss_rate>
//           lateness.<p50|p99|max>   failed   records_per_s
//   OP      >  <  >=  <=
//   VALUE   a number: the change B - A in the metric's unit, except for the counters (failed,
//           <op>.count, <op>.errors), where it is B's own value;
//           a percentage (+10%, -5%, 3%): the relative change (B - A) / A.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fleet/insight/compare/comparison.h"

namespace fleet::compare {

// A malformed expression or a metric the runs do not have; the message names the token.
class ThresholdError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Threshold {
  enum class Family { kOp, kCache, kLateness, kFailed, kRecordsPerS, kL2 };
  enum class Op { kGreater, kLess, kGreaterEqual, kLessEqual };
  std::string text;    // the expression as given
  std::string metric;  // e.g. "read_prefetched_results.enter.p99"
  Family family = Family::kOp;
  std::string op_name;  // kOp: the qualname or short name
  std::string stat;     // p99, l1_hit_rate, max, ...
  Op op = Op::kGreater;
  bool percent = false;     // VALUE was a percentage: compare the relative change
  double value = 0;         // in the metric's unit, or in percent
  bool l2_counter = false;  // kL2: a count (mismatches, violations, ...): on B's own value
  std::string unit;         // kL2: the metric's unit in messages (" ms", " s", ...)

  // failed, <op>.count, <op>.errors: a plain VALUE is compared with B's own value.
  bool on_b_value() const;
};

// Throws ThresholdError naming the offending token.
Threshold parse_threshold(const std::string& text);
// The same grammar with another set of metrics (L2 runs, l2_threshold.h): `check_metric` fills
// the metric's fields from `metric` or throws ThresholdError naming it.
Threshold parse_threshold_with(const std::string& text,
                               const std::function<void(Threshold&)>& check_metric);

struct ThresholdOutcome {
  std::string expression;
  bool crossed = false;
  // The change crossed the threshold but its interval contains 0 (not counted without --strict).
  bool not_significant = false;
  bool evaluated = false;  // false: a side lacks the metric (e.g. an op only in one run)
  std::string message;     // what was compared and by how much
};

// Throws ThresholdError when the metric names an op neither run has (or a short name shared by
// two qualnames).
ThresholdOutcome evaluate(const Threshold& t, const Comparison& c, bool strict);
// The same for a change found elsewhere (an L2 comparison); nullptr: neither run has it.
ThresholdOutcome evaluate_change(const Threshold& t, const Change* change, const std::string& unit,
                                 bool strict);
std::vector<ThresholdOutcome> evaluate_all(const std::vector<Threshold>& thresholds,
                                           const Comparison& c, bool strict);

}  // namespace fleet::compare
