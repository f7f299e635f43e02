// --prepare-l2 across the fleet (docs/l2-traces.md, "Preparing across the fleet"): on a shared
// L2 each prepared object is seeded exactly once, by the node that replays the first lookup
// needing it. Every node applies the same rule to the same claims, so the nodes' seeding lists
// partition the objects without the coordinator assigning anything.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_prepare.h"

namespace fleet::l2replay {

// One file's wish to seed an object: the lookup that needs it, on the aligned timeline, and
// the node that replays that lookup.
struct L2PrepareClaim {
  L2PreparedObject object;
  double t = 0.0;   // the needing lookup's t_mono + the file's shift
  size_t file = 0;  // among the run's files
  int node = 0;
};

// The claims of file `file`'s plan; `node_of_op[i]` is the node that replays operation i.
std::vector<L2PrepareClaim> l2_prepare_claims(const L2Plan& plan, size_t file, double shift,
                                              const std::vector<int>& node_of_op);

// One claim per key wins, the earliest (t, then file): several recorded servers that found the
// same object seed it once. The objects node `node` seeds, in that order.
std::vector<L2PreparedObject> l2_seeded_by(std::vector<L2PrepareClaim> claims, int node);

// A node's prepare in its DONE, and the run's l2_prepare_manifest.json: the embedded manifest's
// fields summed over the nodes (elapsed: the slowest node's) and a "nodes" list with each node's.
nlohmann::json l2_prepare_json(const L2PrepareResult& r);
L2PrepareResult l2_prepare_from(const nlohmann::json& j);
L2PrepareResult merge_l2_prepares(const std::vector<const L2PrepareResult*>& parts);

}  // namespace fleet::l2replay
