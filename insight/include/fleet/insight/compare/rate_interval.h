// The 95 % interval of the difference of two proportions (a cache hit rate in run B minus the
// same in run A), from the key counts: Newcombe's hybrid score interval (his method 10), built
// from each run's Wilson score interval. Unlike the plain normal (Wald) interval it stays
// inside [-1, 1] and behaves at rates of 0 and 1.
#pragma once

#include <cstdint>

#include "fleet/insight/compare/change.h"

namespace fleet::compare {

// hits_a of trials_a in A, hits_b of trials_b in B; both trial counts must be > 0.
Interval proportion_difference_interval(uint64_t hits_a, uint64_t trials_a, uint64_t hits_b,
                                        uint64_t trials_b);

}  // namespace fleet::compare
