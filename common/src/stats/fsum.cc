#include "fleet/stats/fsum.h"

#include <cmath>
#include <utility>
#include <vector>

namespace fleet::stats {

namespace {

// A line-by-line port of CPython's math_fsum (Modules/mathmodule.c) so that every rounding
// step, including the half-even correction across partials, is the same.
struct Accumulator {
  std::vector<double> partials;
  double special_sum = 0.0;
  double inf_sum = 0.0;
  bool overflow = false;
  double overflow_sign = 0.0;

  Accumulator() { partials.reserve(32); }

  void add(double x) {
    const double xsave = x;
    std::size_t i = 0;
    for (std::size_t j = 0; j < partials.size(); ++j) {
      double y = partials[j];
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double yr = hi - x;
      const double lo = y - yr;
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    if (x != 0.0) {
      if (!std::isfinite(x)) {
        if (std::isfinite(xsave)) {
          // CPython raises "intermediate overflow in fsum"; remember the direction instead.
          overflow = true;
          overflow_sign = x;
          partials.clear();
          return;
        }
        if (std::isinf(xsave)) inf_sum += xsave;
        special_sum += xsave;
        partials.clear();
      } else {
        partials.push_back(x);
      }
    }
  }

  bool exact() const { return special_sum == 0.0 && !overflow; }

  double result() const {
    if (special_sum != 0.0) return std::isnan(inf_sum) ? std::nan("") : special_sum;
    if (overflow) return overflow_sign > 0 ? INFINITY : -INFINITY;
    double hi = 0.0;
    std::size_t n = partials.size();
    if (n > 0) {
      double lo = 0.0;
      hi = partials[--n];
      // Sum from the top and stop as soon as the sum becomes inexact.
      while (n > 0) {
        const double x = hi;
        const double y = partials[--n];
        hi = x + y;
        const double yr = hi - x;
        lo = y - yr;
        if (lo != 0.0) break;
      }
      // Half-even rounding across partials: sum([1e-16, 1, 1e16]) rounds the last digit up.
      if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
        const double y = lo * 2.0;
        const double x = hi + y;
        const double yr = x - hi;
        if (y == yr) hi = x;
      }
    }
    return hi;
  }
};

}  // namespace

double fsum(std::span<const double> values) {
  Accumulator acc;
  for (double x : values) acc.add(x);
  return acc.result();
}

std::optional<std::vector<double>> fsum_partials(std::span<const double> values) {
  Accumulator acc;
  for (double x : values) acc.add(x);
  if (!acc.exact()) return std::nullopt;
  return std::move(acc.partials);
}

double fmean(std::span<const double> values) {
  if (values.empty()) return 0.0;
  return fsum(values) / static_cast<double>(values.size());
}

}  // namespace fleet::stats
