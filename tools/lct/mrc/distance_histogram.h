// An exact histogram of stack distances: for every distinct distance, how many accesses had
// it, their bytes and how many were lookups. Exact, so the curve can be read at any size with
// no bucketing error; its size is the number of distinct distances (with uniform object sizes
// at most the number of distinct keys, never more than the accesses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fleet::mrc {

struct Tally {
  uint64_t accesses = 0;
  uint64_t bytes = 0;
  uint64_t lookups = 0;

  void add(const Tally& o) {
    accesses += o.accesses;
    bytes += o.bytes;
    lookups += o.lookups;
  }
};

class DistanceHistogram {
 public:
  // `distance` is StackDistance's (kColdMiss for a first access).
  void add(uint64_t distance, uint64_t bytes, bool lookup);

  // Sorts the distances; add() may not follow.
  void freeze();

  const Tally& total() const { return total_; }
  const Tally& cold() const { return cold_; }
  // Accesses that miss in an LRU cache of `capacity` bytes: cold misses plus every distance
  // > capacity.
  Tally misses(uint64_t capacity) const;
  // The largest distance <= capacity (0 when none): the smallest capacity whose miss count
  // equals misses(capacity), since the curve only steps at distances.
  uint64_t step_at_or_below(uint64_t capacity) const;
  size_t distinct_distances() const { return sorted_.empty() ? counts_.size() : sorted_.size(); }

 private:
  // Index of the first distance > capacity in sorted_.
  size_t first_beyond(uint64_t capacity) const;

  std::unordered_map<uint64_t, Tally> counts_;
  std::vector<std::pair<uint64_t, Tally>> sorted_;  // ascending distance
  std::vector<Tally> beyond_;                       // beyond_[i] = sum of sorted_[i..]
  Tally total_, cold_;
};

}  // namespace fleet::mrc
