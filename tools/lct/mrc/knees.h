// Knees of a miss-ratio curve: the capacities where buying more L1 pays off most.
//
// Rule: on a fine log grid (16 sizes per doubling, from twice the smallest object to the
// working set), drop(C) = miss_ratio(C/2) - miss_ratio(C), the misses saved by the last
// doubling. The knees are the local maxima of drop, largest first, at least one doubling
// apart; each is then moved down to the curve's step (the smallest capacity with the same miss
// ratio), so a knee is a capacity at which the steep part has just been bought.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mrc/miss_ratio_curve.h"

namespace fleet::mrc {

struct Knee {
  uint64_t size_bytes = 0;
  double miss_ratio = 0;          // at size_bytes
  double miss_ratio_at_half = 0;  // at size_bytes / 2
  double drop() const { return miss_ratio_at_half - miss_ratio; }
};

std::vector<Knee> find_knees(const MissRatioCurve& curve, size_t count = 3);

}  // namespace fleet::mrc
