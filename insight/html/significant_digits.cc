#include "fleet/insight/html/significant_digits.h"

#include <charconv>
#include <cmath>

namespace fleet::report::html {

namespace {

// Powers of ten that are exact doubles.
constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kMaxExactPow10 = 22;

// |m| is a*10^k rounded once; it is within ~2e-12 of the exact product (m < 10^4).
constexpr double kAmbiguous = 1e-7;

}  // namespace

double round4_by_text(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  // to_chars with a precision is defined as printf; from_chars as strtod (without the locale).
  char b[32];
  const auto printed = std::to_chars(b, b + sizeof b, v, std::chars_format::general, 4);
  double out = v;
  std::from_chars(b, printed.ptr, out);
  return out;
}

double round4(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double a = std::fabs(v);
  int exp2 = 0;
  std::frexp(a, &exp2);  // 2^(exp2-1) <= a < 2^exp2
  // k scales a to four integer digits; floor(log10(2) * (exp2 - 1)) misses by at most one.
  int k = 3 - static_cast<int>(std::floor(0.30102999566398120 * (exp2 - 1)));
  auto scaled = [a](int kk) { return kk >= 0 ? a * kPow10[kk] : a / kPow10[-kk]; };
  if (k > kMaxExactPow10 || k < -kMaxExactPow10) return round4_by_text(v);
  double m = scaled(k);
  if (m >= 1e4) {
    if (--k < -kMaxExactPow10) return round4_by_text(v);
    m = scaled(k);
  } else if (m < 1e3) {
    if (++k > kMaxExactPow10) return round4_by_text(v);
    m = scaled(k);
  }
  const double whole = std::floor(m);
  const double frac = m - whole;
  // Too near a tie, the exact value decides. (Near a decade's edge both decades round to the
  // same power of ten, so m's last-bit error cannot change the result there.)
  if (std::fabs(frac - 0.5) < kAmbiguous || m < 1e3 || m >= 1e4) return round4_by_text(v);
  const double digits = frac > 0.5 ? whole + 1 : whole;  // four digits, exact in a double
  // One correctly rounded operation on exact operands: the double nearest digits*10^-k, which
  // is what strtod returns for the printed text.
  const double r = k >= 0 ? digits / kPow10[k] : digits * kPow10[-k];
  return std::copysign(r, v);
}

}  // namespace fleet::report::html
