// An L2 adapter-level trace across the fleet (docs/l2-traces.md, "Across the fleet"):
// `coordinator FILE [FILE...] --local N|--workers ... --shard none|source|key`. The workers read
// the files themselves and replay their shares against the run's one L2 adapter; the
// coordinator connects them (CURVE as for any fleet run), sends START with the L2 block, starts
// them at one T0, watches heartbeats and loss, and merges their results exactly into
// l2_replay_stats.json (with a "nodes" array) and the terminal summary.
#pragma once

#include <string>

#include "fleet/coordinator/session/fleet_run.h"

namespace fleet::session {

// Whether `path` is a regular file whose header says level "l2" (false for a pipe, which is not
// read here, and for anything unreadable: the storage path then reports it as it always has).
bool is_l2_trace_file(const std::string& path);

// kOk, kBadInput (a refused flag or file; a worker refused the run: its policy, a file it cannot
// read, an adapter it cannot build), kRunIncomplete (a worker was lost: the others' results are
// written, the lost one named) or kInterrupted.
ExitCode run_l2_fleet(FleetOptions options, util::Clock& clock);

}  // namespace fleet::session
