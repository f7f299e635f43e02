#include "fleet/stats/py_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "fleet/util/pyjson.h"

namespace fleet::stats {
namespace {

// round(x, 3) then "%.2f", as CPython 3.11 prints them.
TEST(PyFormat, RoundThenFixed) {
  struct Case {
    double x;
    double rounded;
    const char* two;
  };
  const Case cases[] = {
      {0.0625, 0.062, "0.06"},  // exact binary tie -> even
      {2.675, 2.675, "2.67"},   // 2.675 is 2.67499999... in binary
      {1.0005, 1.0, "1.00"},
      {0.0049996, 0.005, "0.01"},  // double rounding: direct "%.2f" would give 0.00
      {1.2345, 1.234, "1.23"},
      {0.0045, 0.004, "0.00"},
      {12.3456, 12.346, "12.35"},
      {0.0004999, 0.0, "0.00"},
      {123456.7895, 123456.789, "123456.79"},
      {1.125, 1.125, "1.12"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(py_round(c.x, 3), c.rounded) << c.x;
    EXPECT_EQ(py_fixed(py_round(c.x, 3), 2), c.two) << c.x;
  }
  EXPECT_EQ(py_fixed(0.0049996, 2), "0.00");
  EXPECT_EQ(py_fixed(INFINITY, 2), "inf");
  EXPECT_EQ(py_fixed(-INFINITY, 6), "-inf");
  EXPECT_EQ(py_fixed(-NAN, 2), "nan");
  EXPECT_EQ(py_fixed(0.0000005, 6), "0.000000");  // 5e-7 is just below the tie
  EXPECT_EQ(py_fixed(1e20, 6), "100000000000000000000.000000");
}

TEST(PyFormat, ReprMatchesPyFloatRepr) {
  const double fixed[] = {0.1,
                          1e-05,
                          20.0,
                          1e16,
                          1.2345678901234567e+19,
                          123456789.0,
                          0.0001,
                          1e22,
                          5e-324,
                          -0.0,
                          1.7976931348623157e308,
                          9999999999999998.0,
                          0.0,
                          -2.5e-7,
                          NAN,
                          INFINITY,
                          -INFINITY};
  const char* expected[] = {"0.1",
                            "1e-05",
                            "20.0",
                            "1e+16",
                            "1.2345678901234567e+19",
                            "123456789.0",
                            "0.0001",
                            "1e+22",
                            "5e-324",
                            "-0.0",
                            "1.7976931348623157e+308",
                            "9999999999999998.0",
                            "0.0",
                            "-2.5e-07",
                            "NaN",
                            "Infinity",
                            "-Infinity"};
  char buf[kPyReprMax];
  for (std::size_t i = 0; i < std::size(fixed); ++i)
    EXPECT_EQ(std::string(buf, py_float_repr_to(buf, fixed[i])), expected[i]);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (i % 2) d = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 80) - 60);
    ASSERT_EQ(std::string(buf, py_float_repr_to(buf, d)), util::py_float_repr(d)) << bits;
  }
}

TEST(PyFormat, Len) {
  EXPECT_EQ(py_len(""), 0u);
  EXPECT_EQ(py_len("abc"), 3u);
  EXPECT_EQ(py_len("caf\xc3\xa9"), 4u);
  EXPECT_EQ(py_len("\xf0\x9f\x98\x80"), 1u);
}

}  // namespace
}  // namespace fleet::stats
