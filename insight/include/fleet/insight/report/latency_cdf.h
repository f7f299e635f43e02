// Cumulative distributions for the report's CDF charts, written into fleet_summary.json so the
// page can be rebuilt from a run's files (`coordinator report DIR`). A bounded number of points
// per distribution (quantile grid dense in the tail), whatever the number of samples.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fleet/stats/lateness_stats.h"
#include "fleet/stats/stats_collector.h"
#include "fleet/summary/run_summary.h"

namespace fleet::report {

// The fractions each CDF is sampled at: 1 %, 2 %, ... 100 %, plus 99.1 % ... 99.9 % and 99.99 %.
const std::vector<double>& cdf_fractions();

// Per qualname with successful calls, [[latency_ms, fraction], ...] from the exact merged
// samples (nearest rank).
std::map<std::string, summary::Cdf> op_latency_cdfs(const stats::StatsCollector& stats);
// [[lateness_us, fraction], ...] from the lateness histogram (≤ 0.05 % error).
summary::Cdf lateness_cdf(const stats::LatenessStats& lateness);

}  // namespace fleet::report
