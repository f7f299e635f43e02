#include "fleet/insight/report/latency_cdf.h"

#include <algorithm>
#include <cmath>

#include "fleet/util/json_pair.h"
#include "fleet/util/keyed_object.h"

namespace fleet::report {

namespace {
using Json = nlohmann::ordered_json;
}  // namespace

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

nlohmann::ordered_json op_latency_cdf_json(const stats::StatsCollector& stats) {
  nlohmann::ordered_json out = util::keyed_object(stats.ops().size());
  for (const auto& [qualname, op] : stats.ops()) {
    if (op.count() == 0) continue;
    op.sort_samples();
    std::span<const double> s = op.samples();
    Json::array_t points;
    points.reserve(cdf_fractions().size());
    for (double f : cdf_fractions()) {
      const auto n = static_cast<double>(s.size());
      const size_t rank = std::max<size_t>(static_cast<size_t>(std::ceil(f * n)), 1) - 1;
      points.emplace_back(util::json_pair<Json>(s[std::min(rank, s.size() - 1)], f));
    }
    out[std::string(qualname)] = std::move(points);
  }
  return out;
}

nlohmann::ordered_json lateness_cdf_json(const stats::LatenessStats& lateness) {
  Json::array_t points;
  if (lateness.count() == 0) return points;
  points.reserve(cdf_fractions().size());
  for (double f : cdf_fractions()) {
    points.emplace_back(
        util::json_pair<Json>(static_cast<double>(lateness.percentile_ns(f * 100.0)) / 1e3, f));
  }
  return points;
}

}  // namespace fleet::report
