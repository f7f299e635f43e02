// What an L2 fleet run checks and computes before it connects (l2_fleet_run.cc): the flags it
// refuses, and the files' alignment on one timeline.
#pragma once

#include <string>
#include <vector>

#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/l2replay/l2_fleet_share.h"
#include "fleet/util/status.h"

namespace fleet::session {

// The run's files, in order: FILE, then the more positional ones.
std::vector<std::string> l2_trace_files(const ReplayOptions& o);

// Flags of the storage fleet (or the embedded L2 replay) that an L2 fleet run does not do:
// refused, naming the flag. `shard` is the L2 shard mode they asked for.
Result<l2replay::L2Shard> l2_fleet_shard(const FleetOptions& o);

// Per file, the shift that puts its records on the run's one timeline: t = t_mono + shift,
// where each file's first record sits at its t_wall's distance from the earliest file's first
// record (as `lmcache trace replay-events` orders several files by t_wall). One file: its
// first record at 0. An error names a file that is unreadable, not level "l2", or empty.
Result<std::vector<double>> l2_file_shifts(const std::vector<std::string>& files,
                                           uint32_t max_frame_bytes);

}  // namespace fleet::session
