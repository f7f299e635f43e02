// l2_replay_stats.json (docs/l2-traces.md, "Outputs"): the fork's fields with the fork's
// meanings (its driver fields and its latency snapshot), a correctly named field beside each
// misleading one, and Fleet's own figures under "fleet". Written as the fork writes it:
// json.dumps(payload, indent=2, sort_keys=True) and a newline.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_replay_result.h"

namespace fleet::l2replay {

nlohmann::json l2_replay_stats(const L2Plan& plan, const L2ReplayResult& result);
std::string l2_replay_stats_text(const L2Plan& plan, const L2ReplayResult& result);

// The short terminal summary: per operation kind, then the run's totals.
std::string l2_terminal_summary(const L2Plan& plan, const L2ReplayResult& result);

// Percentile p of ascending `sorted` with linear interpolation between closest ranks (the fork's
// latency snapshot; numpy's default). 0 when empty.
double interpolated_percentile(const std::vector<double>& sorted, double p);

}  // namespace fleet::l2replay
