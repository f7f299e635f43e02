// A fleet's L2 replay as files (docs/l2-traces.md, "Across the fleet"): l2_replay_stats.json
// with the embedded run's fields over the merged result (so its readers work unchanged), the
// fleet's own figures under "fleet" (shard mode, files, cut edges, lost nodes), and a "nodes"
// array with each node's own stats in the same fields; and the terminal summary with a line per
// node.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/l2replay/l2_fleet_result.h"

namespace fleet::l2replay {

struct L2FleetNode {
  std::string name;
  std::string status;  // ok | lost | aborted (wire::NodeStatus's words)
  std::string why;     // lost or aborted: the reason
  std::optional<L2NodeResult> result;
};

struct L2FleetRunInfo {
  L2Shard shard = L2Shard::None;
  double trace_percent = 100.0;
  std::vector<std::string> files;  // as given, in order
  // The --speed every node was started with: the merged stats' speed (and what the merged
  // ideal window is divided by), whatever a node's DONE says.
  double speed = 1.0;
};

nlohmann::json l2_fleet_stats(const L2FleetRunInfo& run, const std::vector<L2FleetNode>& nodes);
std::string l2_fleet_stats_text(const L2FleetRunInfo& run, const std::vector<L2FleetNode>& nodes);
std::string l2_fleet_terminal_summary(const L2FleetRunInfo& run,
                                      const std::vector<L2FleetNode>& nodes);

// l2_prepare_manifest.json of a fleet run whose nodes seeded (--prepare-l2, --prepare-only): the
// embedded manifest's fields summed over the nodes (elapsed: the slowest node's) and "nodes"
// [{node, the same fields}]; nullopt when no node seeded. And its terminal lines: the total,
// then a line per node.
std::optional<std::string> l2_fleet_prepare_manifest_text(const std::vector<L2FleetNode>& nodes);
std::string l2_fleet_prepare_summary(const std::vector<L2FleetNode>& nodes);

}  // namespace fleet::l2replay
