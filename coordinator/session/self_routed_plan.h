// A run whose workers routed themselves (docs/sharding.md, "Workers that route themselves"):
// the coordinator never routed, so the plan and the record accounting come from what each
// worker's scan of the trace reported in DONE (its own plan row; the trace-wide numbers, which
// every scan must agree on). When some scan is missing (a lost or stopped worker), the
// coordinator routes the trace once itself, after the replay, for the plan of every row.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/plan/plan_table.h"
#include "fleet/plan/route_cache.h"
#include "fleet/plan/shard_router.h"
#include "fleet/util/status.h"

namespace fleet::session {

// One worker's DONE "self_route" (worker/service/self_routed_source.h).
struct SelfRouteScan {
  bool complete = false;  // it read the trace to its end
  uint64_t records_read = 0, malformed_skipped = 0;
  bool truncated_tail = false;
  uint64_t records_routed = 0, split_calls = 0;
  double t_first = 0.0, t_last = 0.0;
  uint64_t kept = 0;  // records (or parts) it replayed or was replaying: its "sent"
  plan::PlanRow row;
};
Result<SelfRouteScan> self_route_scan(const nlohmann::json& j);

struct SelfRoutedPlan {
  plan::PlanTotals totals;
  std::vector<plan::PlanRow> rows;  // one per worker, in plan order
  uint64_t trace_records = 0;       // well-formed records of the file
  uint64_t malformed_skipped = 0;
  bool truncated_tail = false;
  std::string remainder_error;  // the coordinator's own pass failed mid-file: why
  bool routed_here = false;     // the coordinator's own pass (some scan was missing)
};

// From every worker's complete scan; an error naming the two workers whose trace-wide numbers
// differ (they read different files, or ran different rules), or the one with no scan.
Result<SelfRoutedPlan> plan_from_scans(const std::vector<std::optional<SelfRouteScan>>& scans,
                                       const std::vector<std::string>& names,
                                       const plan::RouterOptions& options);

// The coordinator routes the whole trace itself (for a run cut short, or to save a plan: then
// every route also goes to `save_to`).
SelfRoutedPlan plan_by_routing(const std::string& trace_path, uint32_t max_frame_bytes,
                               const plan::RouterOptions& options,
                               plan::RoutePlanWriter* save_to = nullptr);

// One worker's DONE "self_route" when it read its share from a saved plan
// (worker/service/plan_share_source.h).
struct PlanReadReport {
  bool complete = false;  // it walked every entry and read every frame of its share
  uint64_t kept = 0;      // records (or parts) it replayed or was replaying
  std::string problem;
};
Result<PlanReadReport> plan_read_report(const nlohmann::json& j);

// The plan a saved plan's metadata describes (its "plan" JSON and "records_read"): the rows
// and totals the accounting needs. An error when the metadata lacks them.
Result<SelfRoutedPlan> plan_from_saved(const nlohmann::json& meta);

}  // namespace fleet::session
