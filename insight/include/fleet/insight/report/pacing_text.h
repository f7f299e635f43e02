// How a paced run's dependency edges read for people (docs/causal-pacing.md): the terminal
// summary's "Pacing" section and the report's verdict line, from the pacing statistics merged
// over nodes. A uniform run faster than 1x that raced edges gets a warning: its answer may not
// be the 1x answer.
#pragma once

#include <string>

#include "fleet/causal/pacing_stats.h"
#include "fleet/stats/metrics_report.h"

namespace fleet::report {

stats::MetricSection pacing_section(const causal::PacingStats& p);

struct PacingVerdict {
  bool warn = false;  // the speed-up raced dependency edges
  std::string title, text;
};
PacingVerdict pacing_verdict(const causal::PacingStats& p);

}  // namespace fleet::report
