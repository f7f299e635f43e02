#include "fleet/stats/latency_cdf_points.h"

#include <algorithm>
#include <cmath>

namespace fleet::stats {

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

std::vector<std::pair<double, double>> latency_cdf_points(const OpStats& op) {
  std::vector<std::pair<double, double>> points;
  if (op.count() == 0) return points;
  op.sort_samples();
  std::span<const double> s = op.samples();
  points.reserve(cdf_fractions().size());
  for (double f : cdf_fractions()) {
    const auto n = static_cast<double>(s.size());
    const size_t rank = std::max<size_t>(static_cast<size_t>(std::ceil(f * n)), 1) - 1;
    points.emplace_back(s[std::min(rank, s.size() - 1)], f);
  }
  return points;
}

}  // namespace fleet::stats
