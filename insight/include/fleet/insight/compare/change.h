// One compared quantity, A -> B: both values (either may be missing: an op in one run only, a
// run without a cache), the change B - A, its relative size, and, when the method allows one,
// the 95 % confidence interval of the change. A change whose interval contains 0 is "no
// significant change".
#pragma once

#include <optional>
#include <string>

namespace fleet::compare {

struct Interval {
  double low = 0;
  double high = 0;
  bool contains_zero() const { return low <= 0 && 0 <= high; }
};

enum class Significance {
  kUnknown,         // no interval: one side missing, or a quantity without a noise model
  kNotSignificant,  // the interval contains 0, or the change is under the noise floor
  kIncrease,        // the whole interval is above 0
  kDecrease,        // the whole interval is below 0
};

struct Change {
  std::optional<double> a, b;
  std::optional<Interval> ci;  // of b - a
  // Relative size under which even a change outside its interval is noise (--noise): the
  // interval knows the sampling noise within each run, not the drift between two runs.
  double noise = 0.0;

  bool comparable() const { return a.has_value() && b.has_value(); }
  // b - a; 0 unless comparable().
  double delta() const { return comparable() ? *b - *a : 0.0; }
  // (b - a) / |a|: 0 when both are 0, +-infinity when only a is 0; nullopt unless comparable().
  std::optional<double> relative() const;
  Significance significance() const;
};

// "increase", "decrease", "no significant change", or "" (unknown).
const char* significance_label(Significance s);

}  // namespace fleet::compare
