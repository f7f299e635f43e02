// The summary readers' tolerant field access (fleet_summary.json, l2_replay_stats.json): a
// missing or wrongly typed field reads as its default, never an exception.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fleet::summary::tolerant {

using Json = nlohmann::json;

inline const Json& field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

inline std::optional<double> opt_number(const Json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

inline double number(const Json& j, const char* key) {
  return opt_number(field(j, key)).value_or(0.0);
}

// A count: a non-negative integer; anything else reads as 0.
inline uint64_t count(const Json& j, const char* key) {
  const Json& v = field(j, key);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() > 0) return static_cast<uint64_t>(v.get<int64_t>());
  return 0;
}

inline int64_t integer(const Json& j, const char* key) {
  const Json& v = field(j, key);
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

inline std::string text(const Json& j, const char* key) {
  const Json& v = field(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

inline bool flag(const Json& j, const char* key) {
  const Json& v = field(j, key);
  return v.is_boolean() && v.get<bool>();
}

inline const Json& array(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  const Json& v = field(j, key);
  return v.is_array() ? v : kEmpty;
}

}  // namespace fleet::summary::tolerant
