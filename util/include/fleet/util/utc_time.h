// The current time as ISO 8601 UTC ("2026-12-02T06:30:00Z"): when a page or file was made.
#pragma once

#include <ctime>
#include <string>

namespace fleet::util {

inline std::string utc_iso8601_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

}  // namespace fleet::util
