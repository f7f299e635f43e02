#include "fleet/stats/stats_collector.h"

namespace fleet::stats {

OpStats& StatsCollector::op(std::string_view qualname) {
  auto it = ops_.find(qualname);
  if (it == ops_.end()) it = ops_.emplace(std::string(qualname), OpStats{}).first;
  return it->second;
}

void StatsCollector::merge(const StatsCollector& other) {
  for (const auto& [name, stats] : other.ops_) op(name).merge(stats);
}

void StatsCollector::merge_all(std::span<const StatsCollector* const> parts) {
  std::map<std::string_view, std::vector<const OpStats*>> by_name;
  for (const StatsCollector* c : parts) {
    for (const auto& [name, stats] : c->ops_) by_name[name].push_back(&stats);
  }
  for (const auto& [name, stats] : by_name) op(name).merge_all(stats);
}

std::vector<std::pair<std::string, OpSummary>> StatsCollector::summary() const {
  std::vector<std::pair<std::string, OpSummary>> out;
  out.reserve(ops_.size());
  for (const auto& [name, stats] : ops_) out.emplace_back(name, stats.summary());
  return out;
}

}  // namespace fleet::stats
