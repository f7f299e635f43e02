// The summary readers' field access (fleet_summary.json, l2_replay_stats.json): a missing
// field reads as its default (older runs lack fields); one present with the wrong type or an
// impossible value throws std::invalid_argument naming it.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "fleet/util/json_number.h"

namespace fleet::summary::tolerant {

using Json = nlohmann::json;

inline const Json& field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

// A field that is present but not what it must be is std::invalid_argument naming the field
// (the readers turn it into an error naming the file): read as 0, a `failed: "5"` passed a
// --fail-on 'failed > 0' gate. Missing (or null) reads as the default: older runs lack fields.
[[noreturn]] inline void wrong(const char* key, const Json& v, const char* expected) {
  std::string got = v.dump();
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  throw std::invalid_argument(std::string(key) + ": expected " + expected + ", got " + got);
}

inline std::optional<double> opt_number(const Json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

inline double number(const Json& j, const char* key) {
  const Json& v = field(j, key);
  if (v.is_null()) return 0.0;
  if (!v.is_number()) wrong(key, v, "a number");
  return v.get<double>();
}

// A count: a non-negative integer (a whole float too).
inline uint64_t count(const Json& j, const char* key) {
  const Json& v = field(j, key);
  return v.is_null() ? 0 : util::json_integer<uint64_t>(v, key);
}

inline int64_t integer(const Json& j, const char* key) {
  const Json& v = field(j, key);
  return v.is_null() ? 0 : util::json_integer<int64_t>(v, key);
}

inline std::string text(const Json& j, const char* key) {
  const Json& v = field(j, key);
  if (v.is_null()) return std::string();
  if (!v.is_string()) wrong(key, v, "a string");
  return v.get<std::string>();
}

inline bool flag(const Json& j, const char* key) {
  const Json& v = field(j, key);
  if (v.is_null()) return false;
  if (!v.is_boolean()) wrong(key, v, "true or false");
  return v.get<bool>();
}

inline const Json& array(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  const Json& v = field(j, key);
  return v.is_array() ? v : kEmpty;
}

}  // namespace fleet::summary::tolerant
