// The L1 miss-ratio curve of an access stream: the stack algorithm run once over the stream,
// then read at any capacity. miss ratio(C) = accesses whose distance > C (cold misses
// included) / accesses; byte miss ratio weighs each access by its object's bytes. A sampled
// stream (SHARDS) has its distances scaled by 1/R (as published: the whole distance, own
// object included, which is the posterior mean of the true distance given the sampled one;
// scaling only the other objects was measured worse, docs/benchmarks.md, "Measured and not
// adopted") and its counts estimated for the whole trace.
#pragma once

#include <cstdint>
#include <vector>

#include "mrc/distance_histogram.h"
#include "mrc/mrc_stream.h"

namespace fleet::mrc {

struct CurvePoint {
  uint64_t size_bytes = 0;
  double miss_ratio = 0;
  double byte_miss_ratio = 0;
  double lookup_miss_ratio = 0;  // over submit_prefetch_task LOOKUP keys only
  uint64_t accesses = 0;         // of the whole trace
  uint64_t misses = 0;           // exact, or miss_ratio * accesses when sampled
};

class MissRatioCurve {
 public:
  static MissRatioCurve compute(const AccessStream& stream);

  CurvePoint at(uint64_t size_bytes) const;
  // The smallest capacity with the same miss count as `size_bytes` (the curve's step there).
  uint64_t step_at_or_below(uint64_t size_bytes) const;

  double sample_rate() const { return rate_; }
  uint64_t trace_accesses() const { return trace_accesses_; }
  uint64_t sampled_accesses() const { return hist_.total().accesses; }
  uint64_t cold_misses() const;                           // estimated when sampled
  uint64_t distinct_keys() const;                         // estimated when sampled
  uint64_t working_set_bytes() const;                     // peak resident bytes, estimated
  uint64_t smallest_object() const { return smallest_; }  // bytes, 0 without accesses
  const DistanceHistogram& histogram() const { return hist_; }

 private:
  uint64_t scaled(uint64_t sampled) const;

  DistanceHistogram hist_;
  double rate_ = 1.0;
  uint64_t trace_accesses_ = 0;
  uint64_t distinct_ = 0;
  uint64_t peak_bytes_ = 0;
  uint64_t smallest_ = 0;
};

// `points` sizes spaced evenly on a log axis from `lo` to `hi` (both included, rounded to
// bytes, duplicates dropped).
std::vector<uint64_t> log_spaced_sizes(uint64_t lo, uint64_t hi, size_t points);

}  // namespace fleet::mrc
