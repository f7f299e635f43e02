// Ascending runs of latency samples and the two things done with several of them: merging
// them into one array (O(n log k)), and finding the value of a given rank in their union
// without merging (O(64 k log n)), which is how the coordinator's exact percentiles over every
// node's samples avoid building the union at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fleet/util/huge_page_allocator.h"

namespace fleet::stats {

// A sorted run kept by reference: `data` lives as long as `owner` (a received DONE message).
struct SharedRun {
  std::shared_ptr<const void> owner;
  const double* data = nullptr;
  std::size_t n = 0;
  std::span<const double> span() const { return {data, n}; }
};

// The ascending union of ascending runs, appended to `out`.
void merge_sorted_runs(std::span<const std::span<const double>> runs,
                       util::HugeVector<double>& out);

// The rank-th smallest value (1-based, 1 <= rank <= total) of the union of ascending runs of
// NaN-free doubles: a binary search over the doubles' total order, counting with one binary
// search per run and step.
double select_rank(std::span<const std::span<const double>> runs, uint64_t rank);

}  // namespace fleet::stats
