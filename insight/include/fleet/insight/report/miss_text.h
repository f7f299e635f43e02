// How a run's miss attribution reads for people (docs/causal-pacing.md "Miss attribution"): the
// terminal's "Misses" section and the report's verdict line. With a baseline the verdict says
// how many misses the speed-up added and why; without one, how many the classifier blames on
// the compression.
#pragma once

#include <optional>
#include <string>

#include "fleet/stats/metrics_report.h"
#include "fleet/stats/miss_summary.h"

namespace fleet::report {

stats::MetricSection miss_section(const stats::MissSummary& m);

struct MissVerdict {
  bool warn = false;  // the speed-up changed which keys missed
  std::string title, text;
};
std::optional<MissVerdict> miss_verdict(const stats::MissSummary& m);

// " (kept pace: lateness p99 0.6 ms)" after the baseline's name; "" when its pace is unknown.
std::string baseline_pace_text(const stats::MissPairing& p);
// The verdict's warning sentence (leading space) when the baseline fell behind; "" otherwise.
std::string baseline_behind_text(const stats::MissPairing& p);

// "store_not_landed 120, evicted 4" over both wheres, largest first; "none" when empty.
std::string miss_classes_text(const stats::MissCounts& c, size_t max_classes = 4);

}  // namespace fleet::report
