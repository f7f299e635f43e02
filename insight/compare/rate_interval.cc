#include "fleet/insight/compare/rate_interval.h"

#include <cmath>

namespace fleet::compare {

namespace {

constexpr double kZ95 = 1.959963984540054;  // the standard normal's 97.5 % quantile

struct Wilson {
  double p, low, high;
};

Wilson wilson(uint64_t hits, uint64_t trials) {
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(hits) / n;
  const double z2 = kZ95 * kZ95;
  const double denom = 1 + z2 / n;
  const double centre = (p + z2 / (2 * n)) / denom;
  const double half = kZ95 * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom;
  return {p, std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace

Interval proportion_difference_interval(uint64_t hits_a, uint64_t trials_a, uint64_t hits_b,
                                        uint64_t trials_b) {
  const Wilson a = wilson(hits_a, trials_a), b = wilson(hits_b, trials_b);
  const double d = b.p - a.p;
  return {d - std::hypot(b.p - b.low, a.high - a.p), d + std::hypot(b.high - b.p, a.p - a.low)};
}

}  // namespace fleet::compare
