// The JSON of L2 failure records (l2_failures.h): in DONE, and in fleet_summary.json per node
// and merged (docs/outputs.md § L2 failures).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "fleet/stats/l2_failures.h"

namespace fleet::stats {

// [{"adapter", "type", "failed", "ops": {kind: n}, "first_s", "first_error", "last_s",
//   "last_error"[, "nodes"]}]: times in seconds since T0; "nodes" when `merged`.
nlohmann::ordered_json l2_failures_json(const std::vector<L2FailureRecord>& records,
                                        bool merged = false);
// The inverse, for a peer's DONE (and a summary read back). Throws std::invalid_argument on any
// other shape (more than kMaxL2FailureRecords, ops that do not add up to `failed`, a wrong type);
// texts are re-bounded.
std::vector<L2FailureRecord> l2_failures_from_json(const nlohmann::json& j);

}  // namespace fleet::stats
