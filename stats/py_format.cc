#include "fleet/stats/py_format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

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

std::size_t py_len(const std::string& utf8) {
  std::size_t n = 0;
  for (unsigned char c : utf8)
    if ((c & 0xc0) != 0x80) ++n;
  return n;
}

}  // namespace fleet::stats
