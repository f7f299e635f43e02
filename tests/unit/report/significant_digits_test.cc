// round4 (the page's four significant digits) is printf("%.4g") read back, whichever way it
// is computed: the arithmetic route must give the text route's double for every input.
#include "fleet/insight/html/significant_digits.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace fleet::report::html {
namespace {

// The definition once more, through the C library itself (printf, strtod).
double printf_then_strtod(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  const double back = std::strtod(b, nullptr);
  // 1.798e+308 is past the largest double: round4 keeps such a value as it is.
  return std::isinf(back) && std::isfinite(v) ? v : back;
}

void expect_same(double v) {
  const double want = printf_then_strtod(v);
  const double got = round4(v);
  ASSERT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want))
      << "v=" << v << " (" << std::hexfloat << v << std::defaultfloat << "): round4 " << got
      << ", printf+strtod " << want;
  ASSERT_EQ(std::bit_cast<uint64_t>(round4_by_text(v)), std::bit_cast<uint64_t>(want)) << v;
}

TEST(SignificantDigits, RandomDoublesOfEveryMagnitudeAgreeWithPrintf) {
  std::mt19937_64 rng(20261205);
  std::uniform_int_distribution<int> exponent(-330, 330);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  for (int i = 0; i < 300000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    expect_same(i % 2 ? v : -v);
  }
  // Raw bit patterns: subnormals, odd mantissas, everything the first loop smooths over.
  for (int i = 0; i < 300000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v)) expect_same(v);
  }
}

TEST(SignificantDigits, TiesDecadeEdgesAndNeighboursAgreeWithPrintf) {
  std::vector<double> values = {0.5,     1.5,     2.5,      1234.5, 1235.5,  12345.0,
                                12355.0, 0.12345, 0.99995,  9999.5, 9999.4,  999.95,
                                999.949, 1e-5,    1.0,      10.0,   1e22,    1e23,
                                1e-22,   1e-23,   123456.0, 5e-324, 1e308,   1.7976931348623157e308,
                                0.1,     0.2,     0.3,      100.05, 4.00005, 2.22507e-308};
  for (int e = -25; e <= 25; ++e) {
    for (double d : {1.0, 1.0005, 1.2345, 9.9995, 9.99949, 5.0, 7.7775, 3.1415}) {
      values.push_back(d * std::pow(10.0, e));
    }
  }
  // n + 0.5 scaled by powers of two: exactly representable, and at some scales an exact tie at
  // the fifth digit, where printf rounds half to even (n + 0.5 itself; (n + 0.5) / 2 for
  // n < 2,000; 2n + 1 when it has five digits and ends in 5). Other scales land near ties.
  for (int n = 1000; n < 10000; n += 37) {
    for (int s = -8; s <= 8; ++s) values.push_back(std::ldexp(n + 0.5, s));
  }
  for (double v : std::vector<double>(values)) {
    for (double w :
         {v, std::nextafter(v, 0.0), std::nextafter(v, std::numeric_limits<double>::infinity())}) {
      expect_same(w);
      expect_same(-w);
    }
  }
}

TEST(SignificantDigits, ZeroNanAndInfinityPassThrough) {
  EXPECT_EQ(round4(0.0), 0.0);
  EXPECT_TRUE(std::signbit(round4(-0.0)));
  EXPECT_TRUE(std::isnan(round4(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(round4(std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(round4(1.23456), 1.235);
  EXPECT_EQ(round4(123456.0), 123500.0);
  EXPECT_EQ(round4(1234.5), 1234.0);  // half to even, as printf
  EXPECT_EQ(round4(1235.5), 1236.0);
}

}  // namespace
}  // namespace fleet::report::html
