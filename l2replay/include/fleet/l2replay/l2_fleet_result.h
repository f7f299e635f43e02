// An L2 replay's result as a node sends it in DONE and as the coordinator merges it
// (docs/l2-traces.md, "Across the fleet"). The exact latencies travel as the storage replay's do
// (stats::OpStats in the node's StatsCollector, qualname "l2.<operation>"); everything else as
// JSON, with the per-second windows (l2_timeline_merge.h). The merge is exact: counts and bytes
// sum, latencies merge sample by sample, waits take the max of the maxima and the sum of the
// totals, times (seconds from T0) the extremes, windows merge by index on T0.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/l2replay/l2_fleet_share.h"
#include "fleet/l2replay/l2_prepare.h"
#include "fleet/l2replay/l2_replay_result.h"
#include "fleet/stats/stats_collector.h"

namespace fleet::l2replay {

std::string l2_latency_qualname(L2Op op);  // "l2.store", "l2.lookup_task", ...

// Everything but the latencies, the node's share figures, and what its --prepare-l2 seeded.
nlohmann::json l2_result_json(const L2ReplayResult& r, const L2ShareFigures& share,
                              const std::optional<L2PrepareResult>& prepare = std::nullopt);
void put_l2_latencies(const L2ReplayResult& r, stats::StatsCollector& out);

// The inverse; an error names what is missing or malformed.
struct L2NodeResult {
  L2ReplayResult result;
  L2ShareFigures share;
  std::optional<L2PrepareResult> prepare;  // when the node ran --prepare-l2 / --prepare-only
};
Result<L2NodeResult> l2_node_result_from(const nlohmann::json& j,
                                         const stats::StatsCollector& stats);

L2ReplayResult merge_l2_results(const std::vector<const L2ReplayResult*>& parts);
L2ShareFigures merge_l2_share_figures(const std::vector<const L2ShareFigures*>& parts);

}  // namespace fleet::l2replay
