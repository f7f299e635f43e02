#include "bucket_resampler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fleet::compare {

namespace {

// Fewer samples than this many per bucket: drawing them one by one (a random number and a
// binary search each) is cheaper than a binomial per bucket.
constexpr uint64_t kSamplesPerBucketForBinomials = 2;
// Below this mean, inversion (a few multiplications per unit of the mean); above it, BTRS,
// which needs n p >= 10.
constexpr double kInversionMaxMean = 10;

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Uniform in [0, n), n > 0 (Lemire's multiply-shift; the bias is n / 2^64).
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

// log(k!) - Stirling's approximation of it: a table for small k, the series beyond.
double stirling_tail(double k) {
  static constexpr double kTable[] = {
      0.08106146679532726,  0.04134069595540929, 0.02767792568499834, 0.02079067210376509,
      0.01664469118982119,  0.01387612882307075, 0.01189670994589177, 0.01041126526197209,
      0.009255462182712733, 0.008330563433362871};
  if (k <= 9) return kTable[static_cast<int>(k)];
  const double k1 = k + 1, k1sq = k1 * k1;
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1sq) / k1sq) / k1;
}

// Hormann's BTRS (transformed rejection with squeeze, 1993) for n p >= 10 and p <= 1/2: exact,
// and ~86 % of draws are accepted by the first test, from two uniforms and no logarithm.
uint64_t binomial_by_rejection(std::mt19937_64& rng, uint64_t n_int, double p) {
  const double n = static_cast<double>(n_int);
  const double spq = std::sqrt(n * p * (1 - p));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = std::floor((n + 1) * p);
  for (;;) {
    const double u = uniform01(rng) - 0.5;
    double v = uniform01(rng);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return static_cast<uint64_t>(k);
    if (k < 0 || k > n) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (n - m + 1))) +
                         (n + 1) * std::log((n - m + 1) / (n - k + 1)) +
                         (k + 0.5) * std::log(r * (n - k + 1) / (k + 1)) + stirling_tail(m) +
                         stirling_tail(n - m) - stirling_tail(k) - stirling_tail(n - k);
    if (v <= bound) return static_cast<uint64_t>(k);
  }
}

}  // namespace

uint64_t draw_binomial(std::mt19937_64& rng, uint64_t n, double p) {
  if (n == 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - draw_binomial(rng, n, 1 - p);
  const double mean = static_cast<double>(n) * p;
  if (mean >= kInversionMaxMean) return binomial_by_rejection(rng, n, p);
  // Walk P(X = x) up from P(X = 0) = (1 - p)^n until the uniform is used up.
  const double ratio = p / (1 - p);
  double f = std::exp(static_cast<double>(n) * std::log1p(-p));
  double u = uniform01(rng);
  uint64_t x = 0;
  while (u > f && x < n) {
    u -= f;
    ++x;
    f *= ratio * static_cast<double>(n - x + 1) / static_cast<double>(x);
    if (f <= 0) break;  // rounding left a sliver of u beyond the tail: x is as far as it goes
  }
  return x;
}

BucketResampler::BucketResampler(std::vector<uint64_t> counts) : counts_(std::move(counts)) {
  cumulative_.reserve(counts_.size());
  for (uint64_t c : counts_) cumulative_.push_back(total_ += c);
  by_samples_ = total_ < kSamplesPerBucketForBinomials * counts_.size();
}

void BucketResampler::draw(std::mt19937_64& rng, std::vector<uint64_t>& out) const {
  out.assign(counts_.size(), 0);
  if (total_ == 0) return;
  if (by_samples_) {
    draw_by_samples(rng, out);
  } else {
    draw_by_binomials(rng, out);
  }
}

// Multinomial(n; c_1/n, ..., c_k/n) as k - 1 conditional binomials: bucket i gets
// Binomial(draws left, c_i / samples in buckets i..k).
void BucketResampler::draw_by_binomials(std::mt19937_64& rng, std::vector<uint64_t>& out) const {
  uint64_t left = total_;
  uint64_t rest = total_;
  for (size_t i = 0; i < counts_.size() && left > 0; ++i) {
    const uint64_t x =
        i + 1 == counts_.size()
            ? left
            : draw_binomial(rng, left, static_cast<double>(counts_[i]) / static_cast<double>(rest));
    out[i] = x;
    left -= x;
    rest -= counts_[i];
  }
}

void BucketResampler::draw_by_samples(std::mt19937_64& rng, std::vector<uint64_t>& out) const {
  for (uint64_t k = 0; k < total_; ++k) {
    const uint64_t u = uniform_below(rng, total_);
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    ++out[static_cast<size_t>(it - cumulative_.begin())];
  }
}

}  // namespace fleet::compare
