// trace_replay_summary.json exactly as LMCache writes it: json.dump(indent=2, sort_keys=True)
// of {"duration_s", "ops": {qualname: {count, errors, *_ms}}} plus a trailing newline.
#pragma once

#include <string>

#include "fleet/stats/stats_collector.h"

namespace fleet::stats {

std::string render_summary_json(double duration_s, const StatsCollector& stats);

}  // namespace fleet::stats
