#include "fleet/stats/stats_collector.h"

#include <algorithm>
#include <thread>

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

void StatsCollector::prepare_for_merge(unsigned threads) {
  std::vector<OpStats*> ops;
  for (auto& [name, stats] : ops_) ops.push_back(&stats);
  // Largest first, each to the less loaded of two halves: one helper thread at most.
  std::sort(ops.begin(), ops.end(),
            [](const OpStats* a, const OpStats* b) { return a->count() > b->count(); });
  // A thread costs a few hundred microseconds to start here: worth it for a large run only.
  constexpr uint64_t kHelperFrom = 32768;
  uint64_t total = 0;
  for (const OpStats* s : ops) total += s->count();
  if (total < kHelperFrom) threads = 1;
  std::vector<OpStats*> mine, theirs;
  uint64_t load_mine = 0, load_theirs = 0;
  for (OpStats* s : ops) {
    const bool to_helper = threads > 1 && load_theirs < load_mine;
    (to_helper ? theirs : mine).push_back(s);
    (to_helper ? load_theirs : load_mine) += s->count();
  }
  std::thread helper;
  if (!theirs.empty()) {
    helper = std::thread([&theirs] {
      for (OpStats* s : theirs) s->prepare_for_merge();
    });
  }
  for (OpStats* s : mine) s->prepare_for_merge();
  if (helper.joinable()) helper.join();
}

std::vector<std::pair<std::string, OpSummary>> StatsCollector::summary() const {
  std::vector<std::pair<std::string, OpSummary>> out;
  out.reserve(ops_.size());
  for (const auto& [name, stats] : ops_) out.emplace_back(name, stats.summary());
  return out;
}

}  // namespace fleet::stats
