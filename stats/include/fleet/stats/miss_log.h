// misses.csv: one line per classified miss of a run, `t_wall,key,where,class` (the record's
// recorded wall-clock time, exact to the bit; the key as 16 hex digits of stable_key_id), in the
// order the misses were decided. A later run of the same
// trace names this run's directory with --baseline to pair its misses with these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleet/stats/miss_attribution.h"
#include "fleet/util/status.h"

namespace fleet::stats {

inline constexpr const char* kMissLogFile = "misses.csv";
// A baseline's log may come from a whole fleet: at most this many lines are read.
inline constexpr size_t kMaxMissLogLines = 64'000'000;

Status write_miss_log(const std::string& path, const std::vector<MissEvent>& events);
// Errors name the file and the line.
Result<std::vector<MissEvent>> read_miss_log(const std::string& path);

}  // namespace fleet::stats
