#include "fleet/insight/html/number_format.h"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace fleet::report::html {

namespace {

// v with three significant digits, trailing zeros dropped ("4.5", "123", "0.0123").
std::string sig3(double v) {
  if (v == 0) return "0";
  // A worker's absurd sample (4.5e303 ms) overflows to infinity once scaled to ns: shown as
  // it is, not converted to an int (undefined behaviour; the done_report fuzz target).
  if (!std::isfinite(v)) return v != v ? "NaN" : v > 0 ? "inf" : "-inf";
  int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  int decimals = std::max(0, 2 - magnitude);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// v scaled down by `step` until below it, with the matching unit ("12.3 k").
std::string scaled(double v, double step, std::initializer_list<std::string_view> units) {
  auto unit = units.begin();
  // 999.7 rounds to "1000": move to the next unit before it does.
  while (std::fabs(v) >= step * 0.9995 && unit + 1 != units.end()) {
    v /= step;
    ++unit;
  }
  std::string s = sig3(v);
  if (!unit->empty()) s += std::string(" ") + std::string(*unit);
  return s;
}

}  // namespace

std::string fmt_count(Number v) {
  if (!v) return kMissing;
  if (std::fabs(*v) < 1000 && *v == std::floor(*v)) return fmt_exact(v);
  return scaled(*v, 1000, {"", "k", "M", "G", "T", "P"});
}

std::string fmt_exact(Number v) {
  if (!v) return kMissing;
  if (*v != std::floor(*v) || std::fabs(*v) >= 1e18) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", *v);
    return buf;
  }
  std::string digits = std::to_string(static_cast<long long>(std::fabs(*v)));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return *v < 0 ? "-" + out : out;
}

std::string fmt_percent(Number frac) {
  if (!frac) return kMissing;
  double p = *frac * 100;
  if (p == 0) return "0 %";
  if (std::fabs(p) < 0.05) return p > 0 ? "<0.1 %" : ">-0.1 %";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %%", p);
  return buf;
}

std::string fmt_us(Number us) {
  if (!us) return kMissing;
  if (*us == 0) return "0";
  return scaled(*us * 1000, 1000, {"ns", "µs", "ms", "s"});
}

std::string fmt_ms(Number ms) { return ms ? fmt_us(*ms * 1000) : kMissing; }

std::string fmt_seconds(Number s) {
  if (!s) return kMissing;
  if (*s == 0) return "0 s";
  if (std::fabs(*s) < 60) return fmt_us(*s * 1e6);
  if (!(std::fabs(*s) < 1e15)) return fmt_exact(s) + " s";  // beyond llround's range, or NaN
  long long total = std::llround(*s);
  char buf[64];
  if (total < 3600) {
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", total / 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld h %02lld min", total / 3600, total / 60 % 60);
  }
  return buf;
}

std::string fmt_bytes(Number bytes) {
  if (!bytes) return kMissing;
  if (std::fabs(*bytes) < 1024) return fmt_exact(std::round(*bytes)) + " B";
  return scaled(*bytes, 1024, {"B", "KiB", "MiB", "GiB", "TiB", "PiB"});
}

std::string fmt_rate(Number per_s) { return per_s ? fmt_count(*per_s) + "/s" : kMissing; }

std::string fmt_ratio(Number v) {
  if (!v) return kMissing;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", *v);
  return buf;
}

}  // namespace fleet::report::html
