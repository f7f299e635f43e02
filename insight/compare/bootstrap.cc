#include "fleet/insight/compare/bootstrap.h"

#include <algorithm>

#include "bucket_resampler.h"
#include "fleet/stats/percentile_rank.h"

namespace fleet::compare {

namespace {

constexpr double kNsPerMs = 1e6;

// A histogram's non-empty buckets: each one's value (its midpoint clamped to the run's exact
// min and max, as LogLinearHistogram::percentile reports it) and count.
struct Buckets {
  std::vector<double> values_ms;
  std::vector<uint64_t> counts;
};

Buckets buckets_of(const stats::LogLinearHistogram& h) {
  Buckets b;
  h.for_each_bucket([&](size_t i, uint64_t count) {
    using H = stats::LogLinearHistogram;
    const auto mid = static_cast<int64_t>(H::bucket_low(i) + (H::bucket_width(i) - 1) / 2);
    b.values_ms.push_back(static_cast<double>(std::clamp(mid, h.min(), h.max())) / kNsPerMs);
    b.counts.push_back(count);
  });
  return b;
}

// p50, p90, p99 by LMCache's nearest rank and the mean, of `counts` samples at `values`.
LatencyStats stats_of(const std::vector<double>& values, const std::vector<uint64_t>& counts,
                      uint64_t total) {
  LatencyStats s;
  if (total == 0) return s;
  const uint64_t ranks[3] = {stats::nearest_rank(50, total), stats::nearest_rank(90, total),
                             stats::nearest_rank(99, total)};
  double* out[3] = {&s.p50, &s.p90, &s.p99};
  size_t next = 0;
  uint64_t seen = 0;
  double sum = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    seen += counts[i];
    sum += values[i] * static_cast<double>(counts[i]);
    while (next < 3 && seen >= ranks[next]) *out[next++] = values[i];
  }
  s.mean = sum / static_cast<double>(total);
  return s;
}

// The percentile interval (2.5 %, 97.5 %, nearest rank) of the resampled differences.
Interval percentile_interval(std::vector<double>& d) {
  std::sort(d.begin(), d.end());
  const uint64_t n = d.size();
  return {d[stats::nearest_rank(2.5, n) - 1], d[stats::nearest_rank(97.5, n) - 1]};
}

}  // namespace

uint64_t stream_of(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

LatencyStats histogram_stats(const stats::LogLinearHistogram& h) {
  const Buckets b = buckets_of(h);
  return stats_of(b.values_ms, b.counts, h.count());
}

LatencyIntervals bootstrap_latency_change(const stats::LogLinearHistogram& a,
                                          const stats::LogLinearHistogram& b,
                                          const BootstrapOptions& options, uint64_t stream) {
  const Buckets ba = buckets_of(a), bb = buckets_of(b);
  const BucketResampler ra(ba.counts), rb(bb.counts);
  // seed_seq's mixing and mt19937_64 are specified by the standard and the samplers are our
  // own: the same seed gives the same intervals with any standard library.
  std::seed_seq seq{static_cast<uint32_t>(options.seed), static_cast<uint32_t>(options.seed >> 32),
                    static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
  std::mt19937_64 rng(seq);
  const int n = std::max(options.resamples, 1);
  std::vector<double> d50, d90, d99, dmean;
  for (auto* v : {&d50, &d90, &d99, &dmean}) v->reserve(n);
  std::vector<uint64_t> ca, cb;
  for (int r = 0; r < n; ++r) {
    ra.draw(rng, ca);
    rb.draw(rng, cb);
    const LatencyStats sa = stats_of(ba.values_ms, ca, ra.total());
    const LatencyStats sb = stats_of(bb.values_ms, cb, rb.total());
    d50.push_back(sb.p50 - sa.p50);
    d90.push_back(sb.p90 - sa.p90);
    d99.push_back(sb.p99 - sa.p99);
    dmean.push_back(sb.mean - sa.mean);
  }
  return {percentile_interval(d50), percentile_interval(d90), percentile_interval(d99),
          percentile_interval(dmean)};
}

}  // namespace fleet::compare
