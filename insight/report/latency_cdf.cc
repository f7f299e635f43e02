#include "fleet/insight/report/latency_cdf.h"

#include <algorithm>
#include <cmath>

namespace fleet::report {

const std::vector<double>& cdf_fractions() {
  static const std::vector<double> grid = [] {
    std::vector<double> g;
    for (int i = 1; i <= 100; ++i) g.push_back(i / 100.0);
    for (int i = 1; i <= 9; ++i) g.push_back(0.99 + i / 1000.0);
    g.push_back(0.9999);
    std::sort(g.begin(), g.end());
    return g;
  }();
  return grid;
}

std::map<std::string, summary::Cdf> op_latency_cdfs(const stats::StatsCollector& stats) {
  std::map<std::string, summary::Cdf> out;
  for (const auto& [qualname, op] : stats.ops()) {
    if (op.count() == 0) continue;
    op.sort_samples();
    std::span<const double> s = op.samples();
    summary::Cdf& points = out[std::string(qualname)];
    points.reserve(cdf_fractions().size());
    for (double f : cdf_fractions()) {
      const auto n = static_cast<double>(s.size());
      const size_t rank = std::max<size_t>(static_cast<size_t>(std::ceil(f * n)), 1) - 1;
      points.emplace_back(s[std::min(rank, s.size() - 1)], f);
    }
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
