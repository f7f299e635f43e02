#include "fleet/insight/report/latency_cdf.h"

#include "fleet/stats/latency_cdf_points.h"

namespace fleet::report {

const std::vector<double>& cdf_fractions() { return stats::cdf_fractions(); }

std::map<std::string, summary::Cdf> op_latency_cdfs(const stats::StatsCollector& stats) {
  std::map<std::string, summary::Cdf> out;
  for (const auto& [qualname, op] : stats.ops()) {
    if (op.count() == 0) continue;
    out[std::string(qualname)] = stats::latency_cdf_points(op);
  }
  return out;
}

summary::Cdf lateness_cdf(const stats::LatenessStats& lateness) {
  summary::Cdf points;
  if (lateness.count() == 0) return points;
  points.reserve(cdf_fractions().size());
  for (double f : cdf_fractions())
    points.emplace_back(static_cast<double>(lateness.percentile_ns(f * 100.0)) / 1e3, f);
  return points;
}

}  // namespace fleet::report
