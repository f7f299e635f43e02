// LMCache's nearest-rank percentile rule (docs/trace-format.md §6.1), shared by the exact
// per-op stats and the histogram so both pick the same rank for the same n.
#pragma once

#include <cstdint>

namespace fleet::stats {

// 1-based rank of the p-th percentile among n sorted samples: ceil(p*n/100), at least 1,
// p <= 0 => 1 (min), p >= 100 => n (max). Integer p uses exact integer ceil-division; any
// other p evaluates math.ceil(p * n / 100.0) in doubles exactly as LMCache's Python does.
// n must be > 0.
uint64_t nearest_rank(double p, uint64_t n);

}  // namespace fleet::stats
