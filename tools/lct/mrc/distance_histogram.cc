#include "mrc/distance_histogram.h"

#include <algorithm>

#include "mrc/stack_distance.h"

namespace fleet::mrc {

void DistanceHistogram::add(uint64_t distance, uint64_t bytes, bool lookup) {
  Tally t{1, bytes, lookup ? 1u : 0u};
  total_.add(t);
  if (distance == StackDistance::kColdMiss)
    cold_.add(t);
  else
    counts_[distance].add(t);
}

void DistanceHistogram::freeze() {
  sorted_.assign(counts_.begin(), counts_.end());
  counts_ = {};
  std::sort(sorted_.begin(), sorted_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  beyond_.assign(sorted_.size() + 1, Tally{});
  for (size_t i = sorted_.size(); i-- > 0;) {
    beyond_[i] = beyond_[i + 1];
    beyond_[i].add(sorted_[i].second);
  }
}

size_t DistanceHistogram::first_beyond(uint64_t capacity) const {
  auto it = std::partition_point(sorted_.begin(), sorted_.end(),
                                 [&](const auto& e) { return e.first <= capacity; });
  return static_cast<size_t>(it - sorted_.begin());
}

Tally DistanceHistogram::misses(uint64_t capacity) const {
  Tally m = beyond_.empty() ? Tally{} : beyond_[first_beyond(capacity)];
  m.add(cold_);
  return m;
}

uint64_t DistanceHistogram::step_at_or_below(uint64_t capacity) const {
  size_t i = first_beyond(capacity);
  return i == 0 ? 0 : sorted_[i - 1].first;
}

}  // namespace fleet::mrc
