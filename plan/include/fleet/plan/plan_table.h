// The plan as numbers, apart from the router that counted them: the totals and one row per
// worker, and their two renderings (the plan JSON and the --plan-only table). A run whose
// workers route themselves has no router on the coordinator: each worker reports its own row in
// DONE (plan_row_json), and the coordinator prints the plan from those rows exactly as a router
// would have.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/plan/shard_router.h"
#include "fleet/util/status.h"

namespace fleet::plan {

struct PlanTotals {
  ShardMode mode = ShardMode::None;
  Timeline timeline = Timeline::Preserve;
  double window_s = 0.0;
  uint64_t records = 0;
  uint64_t split_calls = 0;
  double t_first = 0.0;
  double t_last = 0.0;
};

// One worker's share: WorkerPlan with its per-second counts reduced to their peak.
struct PlanRow {
  uint64_t records = 0;
  uint64_t bytes = 0;
  std::array<uint64_t, trace::kOpKindCount> per_kind{};
  uint64_t peak_per_second = 0;
  uint64_t moved = 0;
  uint64_t split_parts = 0;
  bool operator==(const PlanRow&) const = default;
};

PlanRow plan_row(const WorkerPlan& p);
// {"records", "bytes", "ops", "peak_records_per_s", "moved", "split_parts"}: the row as the
// plan JSON prints it (without the worker's name and skew) and as DONE carries it.
nlohmann::ordered_json plan_row_json(const PlanRow& row);
Result<PlanRow> plan_row_from_json(const nlohmann::json& j);

nlohmann::ordered_json plan_json(const PlanTotals& totals, const std::vector<std::string>& names,
                                 const std::vector<PlanRow>& rows);
std::string render_plan(const PlanTotals& totals, const std::vector<std::string>& names,
                        const std::vector<PlanRow>& rows);

}  // namespace fleet::plan
