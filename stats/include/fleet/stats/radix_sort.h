// Ascending sort of latency samples in linear time. A node sorts every sample once at the end
// of its run (millions of doubles, on the path between its last record and its DONE); an LSD
// radix sort over the doubles' order-preserving 64-bit keys does in a few passes what
// std::sort does in log2(n) (measured in bench/stats_bench). Passes whose digit is the same for
// every sample (the sign and most exponent bits of latencies) are skipped.
#pragma once

#include <cstddef>

namespace fleet::stats {

// Sorts `n` doubles ascending: the same order as std::sort for non-NaN values, with -0.0
// before 0.0; NaNs (never a latency) go to the ends by their sign. Small inputs use std::sort.
void sort_doubles(double* data, std::size_t n);

}  // namespace fleet::stats
