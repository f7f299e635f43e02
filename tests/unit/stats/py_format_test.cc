#include "fleet/stats/py_format.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fleet/util/pyjson.h"

namespace fleet::stats {
namespace {

// An independent statement of Python's float repr, for the random comparison below: the
// shortest round-trip digits laid out as CPython's float_repr_style 'short' does.
std::string reference_repr(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  const bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  const size_t e = s.find('e');
  const int exp10 = std::stoi(s.substr(e + 1));
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  std::string out = neg ? "-" : "";
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) return out + "0." + std::string(-exp10 - 1, '0') + digits;
    const size_t whole = static_cast<size_t>(exp10) + 1;
    if (whole >= digits.size())
      return out + digits + std::string(whole - digits.size(), '0') + ".0";
    return out + digits.substr(0, whole) + "." + digits.substr(whole);
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char eb[16];
  std::snprintf(eb, sizeof eb, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
  return out + eb;
}

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
  char buf[util::kPyReprMax];
  for (std::size_t i = 0; i < std::size(fixed); ++i) {
    EXPECT_EQ(std::string(buf, util::py_float_repr_to(buf, fixed[i])), expected[i]);
    EXPECT_EQ(util::py_float_repr(fixed[i]), expected[i]);
    std::string appended = "x";
    util::append_py_float_repr(appended, fixed[i]);
    EXPECT_EQ(appended, std::string("x") + expected[i]);
    EXPECT_EQ(reference_repr(fixed[i]), expected[i]);
  }
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (i % 2) d = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 80) - 60);
    ASSERT_EQ(std::string(buf, util::py_float_repr_to(buf, d)), reference_repr(d)) << bits;
  }
}

// Python's json.dumps output for the same values (CPython 3.11, ensure_ascii on).
TEST(PyFormat, JsonTextIsPythons) {
  const std::string s = "a\"b\\c\n\r\t\b\f\x01\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 ~";
  const std::string python = R"("a\"b\\c\n\r\t\b\f\u0001\u007f \u00e9 \u20ac \ud83d\ude00 ~")";
  EXPECT_EQ(util::py_json_string(s), python);
  std::string appended = "[";
  util::append_py_json_string(appended, s);
  EXPECT_EQ(appended, "[" + python);
  nlohmann::ordered_json doc = {{"k", {1, -2, 3.5, nullptr, true, "x"}},
                                {"e", nlohmann::ordered_json::object()},
                                {"a", nlohmann::ordered_json::array()},
                                {"u", uint64_t{18446744073709551615u}}};
  EXPECT_EQ(util::py_json_dumps_indent(doc, 2),
            "{\n  \"k\": [\n    1,\n    -2,\n    3.5,\n    null,\n    true,\n    \"x\"\n  ],\n"
            "  \"e\": {},\n  \"a\": [],\n  \"u\": 18446744073709551615\n}");
  EXPECT_EQ(util::py_json_dumps(doc),
            R"({"k": [1, -2, 3.5, null, true, "x"], "e": {}, "a": [], "u": 18446744073709551615})");
}

// A document's floats are each written as their own repr, however often they repeat and
// however many share a slot of the dumper's table of recent reprs (1,000 distinct values,
// each three times, interleaved; signed zeros and NaN among them).
TEST(PyFormat, JsonDumpWritesEveryRepeatedFloatAsItsOwnRepr) {
  std::mt19937_64 rng(7);
  std::vector<double> distinct = {0.0, -0.0, std::nan(""), 1e-05, 0.1, 20.0};
  while (distinct.size() < 1000) distinct.push_back(std::ldexp(double(rng() >> 11), -50));
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  std::string want = "[";
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < distinct.size(); ++i) {
      const double v = distinct[(i * 7 + round * 13) % distinct.size()];
      doc.push_back(v);
      if (want.size() > 1) want += ", ";
      want += reference_repr(v);
    }
  }
  EXPECT_EQ(util::py_json_dumps(doc), want + "]");
}

TEST(PyFormat, Len) {
  EXPECT_EQ(py_len(""), 0u);
  EXPECT_EQ(py_len("abc"), 3u);
  EXPECT_EQ(py_len("caf\xc3\xa9"), 4u);
  EXPECT_EQ(py_len("\xf0\x9f\x98\x80"), 1u);
}

}  // namespace
}  // namespace fleet::stats
