#include "fleet/stats/op_stats.h"

#include <algorithm>

#include "fleet/stats/fsum.h"
#include "fleet/stats/percentile_rank.h"

namespace fleet::stats {

void OpStats::merge(const OpStats& other) {
  if (&other == this) {
    const OpStats copy = other;  // appending a buffer to itself would read what it writes
    merge(copy);
    return;
  }
  if (!other.samples_.empty()) sorted_ = false;
  samples_.append(other.samples_);
  errors_ += other.errors_;
  histogram_.merge(other.histogram_);
}

OpSummary OpStats::summary() const {
  OpSummary s;
  s.errors = errors_;
  s.count = samples_.size();
  if (samples_.empty()) return s;
  const std::span<double> v = samples_.contiguous();
  if (!sorted_) {
    std::sort(v.begin(), v.end());
    sorted_ = true;
  }
  const auto n = static_cast<uint64_t>(v.size());
  auto pct = [&](double p) { return v[nearest_rank(p, n) - 1]; };
  s.mean_ms = fmean(v);
  s.p50_ms = pct(50);
  s.p90_ms = pct(90);
  s.p99_ms = pct(99);
  s.min_ms = v.front();
  s.max_ms = v.back();
  return s;
}

}  // namespace fleet::stats
