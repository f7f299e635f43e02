#include "number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fleet::compare {

std::string number_text(double v, bool with_sign) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  const double magnitude = std::fabs(v);
  int decimals = 0;
  if (magnitude > 0) decimals = 3 - static_cast<int>(std::floor(std::log10(magnitude)));
  decimals = std::clamp(decimals, 0, 9);
  if (v == std::floor(v) && magnitude < 1e15) decimals = 0;  // counts print as integers
  char b[64];
  std::snprintf(b, sizeof b, with_sign ? "%+.*f" : "%.*f", decimals, v);
  std::string s = b;
  if (s.find('.') != std::string::npos) {  // 0.02, not 0.02000
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "+0" || s == "-0") s = "0";
  return s;
}

std::string number_text(std::optional<double> v, bool with_sign) {
  return v ? number_text(*v, with_sign) : "n/a";
}

std::string percent_text(double fraction) {
  if (std::isinf(fraction)) return fraction > 0 ? "+inf %" : "-inf %";
  char b[64];
  std::snprintf(b, sizeof b, "%+.1f %%", fraction * 100);
  std::string s = b;
  if (s == "-0.0 %") s = "+0.0 %";
  return s;
}

}  // namespace fleet::compare
