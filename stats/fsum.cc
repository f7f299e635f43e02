#include "fleet/stats/fsum.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// The exact sum of doubles as a fixed-point number: 32-bit digits in 64-bit limbs, limb i
// weighing 2^(32 i - 1074), so every double's 53-bit significand lands on three limbs with no
// rounding and no dependency between one sample and the next (Shewchuk's partials are a chain:
// ~7.7 ns a sample against ~2 here). Only for finite values below 2^960: there neither this nor
// Shewchuk's partials can overflow (fewer than 2^40 values sum below 2^1000), so both give the
// exact sum, and anything else takes the Accumulator as before.
class FixedPointSum {
 public:
  // False (and the sum is to be dropped) for a value out of the range above.
  bool add(double x) {
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    const auto exponent = static_cast<unsigned>((b >> 52) & 0x7ff);
    if (exponent >= kMaxExponentField) return false;  // >= 2^960, infinite or NaN
    uint64_t m = b & ((uint64_t{1} << 52) - 1);
    unsigned position = 0;  // of m's lowest bit, in units of 2^-1074
    if (exponent != 0) {
      m |= uint64_t{1} << 52;
      position = exponent - 1;
    }
    const unsigned d = position / 32;
    const auto v = static_cast<unsigned __int128>(m) << (position % 32);
    const auto lo = static_cast<int64_t>(static_cast<uint64_t>(v) & 0xffffffffu);
    const auto mid = static_cast<int64_t>(static_cast<uint64_t>(v >> 32) & 0xffffffffu);
    const auto hi = static_cast<int64_t>(static_cast<uint64_t>(v >> 64));
    if (b >> 63) {
      limb_[d] -= lo;
      limb_[d + 1] -= mid;
      limb_[d + 2] -= hi;
    } else {
      limb_[d] += lo;
      limb_[d + 1] += mid;
      limb_[d + 2] += hi;
    }
    if (++since_carry_ == kCarryEvery) carry();
    return true;
  }

  // Doubles whose exact sum is the sum (one per non-zero limb, each exact); nullopt if the sum
  // does not fit them, which the range above rules out.
  std::optional<std::vector<double>> partials() {
    carry();
    std::vector<double> out;
    for (std::size_t i = 0; i < kLimbs; ++i) {
      if (limb_[i] == 0) continue;
      const int scale = static_cast<int>(32 * i) - 1074;
      const int64_t digit = limb_[i];  // [0, 2^32) below the top limb; the top one is small
      if (digit >= (int64_t{1} << 53) || digit <= -(int64_t{1} << 53) || scale + 53 > 1023) {
        return std::nullopt;
      }
      out.push_back(std::ldexp(static_cast<double>(digit), scale));
    }
    return out;
  }

 private:
  static constexpr unsigned kMaxExponentField = 1023 + 960;
  // Positions reach 1981 + 53 bits: limb 63, plus two for a shifted significand and carries.
  static constexpr std::size_t kLimbs = 67;
  // Each add moves a limb by less than 2^32: 2^16 adds stay far inside int64.
  static constexpr uint32_t kCarryEvery = 1u << 16;

  // Every limb but the last into [0, 2^32), its excess carried up (an arithmetic shift floors).
  void carry() {
    for (std::size_t i = 0; i + 1 < kLimbs; ++i) {
      const int64_t c = limb_[i] >> 32;
      limb_[i] -= c * (int64_t{1} << 32);
      limb_[i + 1] += c;
    }
    since_carry_ = 0;
  }

  std::array<int64_t, kLimbs> limb_{};
  uint32_t since_carry_ = 0;
};

}  // namespace

double fsum(std::span<const double> values) {
  Accumulator acc;
  for (double x : values) acc.add(x);
  return acc.result();
}

std::optional<std::vector<double>> fsum_partials(std::span<const double> values) {
  {
    FixedPointSum fixed;
    bool in_range = true;
    for (double x : values) {
      if (!fixed.add(x)) {
        in_range = false;
        break;
      }
    }
    if (in_range) {
      if (auto p = fixed.partials()) return p;
    }
  }
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
