// Per-qualname OpStats of a replay (LMCache's ReplayStatsCollector): ordered by qualname in
// code-point order (std::string compares UTF-8 bytes as unsigned, which is the same order),
// mergeable across nodes. Skipped records are never recorded, so a qualname that was only
// skipped never appears; one that only failed appears with zero latency stats.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/stats/op_stats.h"

namespace fleet::stats {

class StatsCollector {
 public:
  using Map = std::map<std::string, OpStats, std::less<>>;

  // The replay loop should look a qualname up once and keep the reference (std::map never
  // moves its nodes), so the per-record cost is OpStats::record_* alone.
  OpStats& op(std::string_view qualname);
  void record(std::string_view qualname, double latency_ms, bool failed) {
    OpStats& s = op(qualname);
    if (failed)
      s.record_failure();
    else
      s.record_success(latency_ms);
  }

  void merge(const StatsCollector& other);
  // merge() of every part, each qualname's union merged in one pass (OpStats::merge_all).
  void merge_all(std::span<const StatsCollector* const> parts);

  // OpStats::prepare_for_merge for every qualname, on up to `threads` threads (they are
  // independent): sorting and summing a large run's samples is most of its output time.
  void prepare_for_merge(unsigned threads);

  bool empty() const { return ops_.empty(); }
  const Map& ops() const { return ops_; }
  // (qualname, summary) in qualname order.
  std::vector<std::pair<std::string, OpSummary>> summary() const;

 private:
  Map ops_;
};

}  // namespace fleet::stats
