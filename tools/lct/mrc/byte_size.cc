#include "mrc/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fleet::mrc {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<int> unit_shift(std::string_view unit) {
  std::string u = lower(unit);
  if (u.empty() || u == "b") return 0;
  static constexpr const char* kPrefixes = "kmgt";
  for (int i = 0; i < 4; ++i) {
    std::string p(1, kPrefixes[i]);
    if (u == p || u == p + "b" || u == p + "ib") return 10 * (i + 1);
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  size_t n = 0;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || text[n] == '.'))
    ++n;
  if (n == 0) return std::nullopt;
  std::string number(text.substr(0, n));
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(v)) return std::nullopt;
  std::string_view unit = text.substr(n);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  auto shift = unit_shift(unit);
  if (!shift) return std::nullopt;
  long double bytes = std::ldexp(static_cast<long double>(v), *shift);
  if (bytes < 1 || bytes > std::ldexp(1.0L, 62)) return std::nullopt;  // 1 B .. 4 EiB
  return static_cast<uint64_t>(std::llroundl(bytes));
}

std::string format_byte_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) v /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.1f %s" : "%.2f %s", v, kUnits[u]);
  return buf;
}

}  // namespace fleet::mrc
