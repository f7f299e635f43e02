// Cumulative distributions for the report's CDF charts, written into fleet_summary.json so the
// page can be rebuilt from a run's files (`coordinator report DIR`). A bounded number of points
// per distribution (quantile grid dense in the tail), whatever the number of samples.
#pragma once

#include <nlohmann/json.hpp>

#include "fleet/stats/lateness_stats.h"
#include "fleet/stats/stats_collector.h"

namespace fleet::report {

// The fractions each CDF is sampled at: 1 %, 2 %, ... 100 %, plus 99.1 % ... 99.9 % and 99.99 %.
const std::vector<double>& cdf_fractions();

// {qualname: [[latency_ms, fraction], ...]} from the exact merged samples (nearest rank).
nlohmann::ordered_json op_latency_cdf_json(const stats::StatsCollector& stats);
// [[lateness_us, fraction], ...] from the lateness histogram (≤ 0.05 % error).
nlohmann::ordered_json lateness_cdf_json(const stats::LatenessStats& lateness);

}  // namespace fleet::report
