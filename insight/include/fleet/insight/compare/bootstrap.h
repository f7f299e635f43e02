// Confidence intervals for the change of an op's latency statistics between two runs, by a
// bootstrap over each run's log-linear latency histogram (docs/compare.md § Confidence
// intervals): each resample is a multinomial draw of the run's sample count over its buckets,
// every drawn sample taking its bucket's value; the statistic is computed on a resample of A
// and one of B, and the interval is the 2.5 % and 97.5 % percentiles of the R differences.
#pragma once

#include <cstdint>
#include <string_view>

#include "fleet/insight/compare/change.h"
#include "fleet/stats/log_linear_histogram.h"

namespace fleet::compare {

struct BootstrapOptions {
  int resamples = 1000;
  uint64_t seed = 1;
  double latency_noise = 0.05;  // --noise: a latency change under 5 % is never significant
};

// The statistics a bootstrap resamples, in ms.
struct LatencyStats {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};

struct LatencyIntervals {
  Interval p50, p90, p99, mean;  // of B - A, in ms
};

// Both histograms must be non-empty. `stream` picks an independent random stream per op (the
// qualname's hash), so adding an op to a run leaves every other op's interval unchanged, and the
// same inputs, options and stream always give the same intervals.
LatencyIntervals bootstrap_latency_change(const stats::LogLinearHistogram& a,
                                          const stats::LogLinearHistogram& b,
                                          const BootstrapOptions& options, uint64_t stream);

// The statistics of a histogram taken as the samples themselves (each at its bucket's value):
// what a resample is measured with, and the centre its intervals sit around.
LatencyStats histogram_stats(const stats::LogLinearHistogram& h);

// A stable 64-bit hash (FNV-1a) of a name: an op's random stream.
uint64_t stream_of(std::string_view name);

}  // namespace fleet::compare
