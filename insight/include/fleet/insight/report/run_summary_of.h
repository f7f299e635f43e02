// A finished run's RunSummary (what fleet_summary.json holds) from its merged RunReport: the
// stats, lateness and nodes as they are, plus what is derived for the readers (cache outcome,
// L2 contention, latency CDFs and histograms).
#pragma once

#include "fleet/summary/run_report.h"
#include "fleet/summary/run_summary.h"

namespace fleet::report {

summary::RunSummary run_summary_of(const RunReport& report);

}  // namespace fleet::report
