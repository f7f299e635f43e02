// Exactly rounded floating-point sums, bit-for-bit what CPython's math.fsum and
// statistics.fmean return, so Fleet's mean_ms matches LMCache's collector to the last bit.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace fleet::stats {

// math.fsum: Shewchuk's exact partials with CPython's final half-even fix-up. The result does
// not depend on the order of `values`. NaN/inf inputs behave as in CPython (inf + -inf => NaN);
// where CPython raises OverflowError for an intermediate overflow, this returns +/-inf.
double fsum(std::span<const double> values);

// Exact partials: a few doubles whose exact sum is the exact sum of `values` (from a fixed-point
// accumulator for finite values below 2^960, else Shewchuk's partials as fsum keeps them);
// nullopt when an infinity, a NaN or an intermediate overflow made the sum inexact. fsum over the
// concatenated partials of several parts is the fsum of all their values (both are the correctly
// rounded exact sum): how a node's DONE lets the coordinator compute the union's exact mean without
// a pass over every sample.
std::optional<std::vector<double>> fsum_partials(std::span<const double> values);

// statistics.fmean: fsum(values) / n (0.0 for an empty span; Python raises there, LMCache
// never calls it with no samples).
double fmean(std::span<const double> values);

}  // namespace fleet::stats
