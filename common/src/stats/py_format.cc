#include "fleet/stats/py_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fleet::stats {

double py_round(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  // glibc's printf is exact and rounds ties to even on the binary value, as CPython's
  // _Py_dg_dtoa mode 3 does; strtod then gives the nearest double, as _Py_dg_strtod does.
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);
  return std::strtod(buf, nullptr);
}

std::string py_fixed(double x, int decimals) {
  if (std::isnan(x)) return "nan";  // glibc may print "-nan"; Python never does
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[400];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return std::string(buf, static_cast<std::size_t>(n));
}

std::size_t py_float_repr_to(char* out, double v) {
  auto put = [&](const char* s) {
    std::size_t n = std::strlen(s);
    std::memcpy(out, s, n);
    return n;
  };
  if (std::isnan(v)) return put("NaN");
  if (std::isinf(v)) return put(v > 0 ? "Infinity" : "-Infinity");
  // Shortest round-trip digits, then Python's layout: fixed when -4 <= exp < 16.
  char sci[32];
  auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  const char* p = sci;
  char* o = out;
  if (*p == '-') *o++ = *p++;
  char digits[24];
  std::size_t nd = 0;
  while (*p != 'e') {
    if (*p != '.') digits[nd++] = *p;
    ++p;
  }
  int exp10 = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), res.ptr, exp10);
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      *o++ = '0';
      *o++ = '.';
      for (int k = 0; k < -exp10 - 1; ++k) *o++ = '0';
      std::memcpy(o, digits, nd);
      o += nd;
    } else {
      const std::size_t int_digits = static_cast<std::size_t>(exp10) + 1;
      if (int_digits >= nd) {
        std::memcpy(o, digits, nd);
        o += nd;
        for (std::size_t k = nd; k < int_digits; ++k) *o++ = '0';
        *o++ = '.';
        *o++ = '0';
      } else {
        std::memcpy(o, digits, int_digits);
        o += int_digits;
        *o++ = '.';
        std::memcpy(o, digits + int_digits, nd - int_digits);
        o += nd - int_digits;
      }
    }
  } else {
    *o++ = digits[0];
    if (nd > 1) {
      *o++ = '.';
      std::memcpy(o, digits + 1, nd - 1);
      o += nd - 1;
    }
    *o++ = 'e';
    *o++ = exp10 < 0 ? '-' : '+';
    const int a = std::abs(exp10);
    if (a >= 100) *o++ = static_cast<char>('0' + a / 100);
    *o++ = static_cast<char>('0' + (a / 10) % 10);
    *o++ = static_cast<char>('0' + a % 10);
  }
  return static_cast<std::size_t>(o - out);
}

std::size_t py_len(const std::string& utf8) {
  std::size_t n = 0;
  for (unsigned char c : utf8)
    if ((c & 0xc0) != 0x80) ++n;
  return n;
}

}  // namespace fleet::stats
