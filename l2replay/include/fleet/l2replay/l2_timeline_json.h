// The additions to l2_replay_stats.json's "fleet" object that the report and `compare` draw
// from (docs/l2-traces.md, "Outputs"): the per-second timeline, each kind's latency CDF from
// its exact samples, and the plan's digests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_replay_result.h"

namespace fleet::l2replay {

// {"window_seconds": 1, "index": [i...], "by_operation": {kind: {"dispatched": [...],
// "completed", "failed", "bytes_moved", "latency_p50_us", "latency_p99_us", "latency_max_us",
// "schedule_lag_max_s"}}}: one column entry per kept window, for the kinds the run issued.
nlohmann::json l2_timeline_json(const L2ReplayResult& result);

// [[latency_ms, fraction], ...] of one kind's exact samples (stats/latency_cdf_points.h).
nlohmann::json l2_latency_cdf_json(const L2OpResult& op);

// SHA-256 over the plan's shape: per operation in file order its kind, sequence and dependency
// indices, then each prepared object's chunk hash, model, rank, group, salt and size. Two runs
// with the same value replayed the same plan. Linear in the plan (the fixture's edge-set digest,
// l2_plan_digest.h, sorts string items: ~1.5 s of a 400k-operation run, so it is not written).
std::string plan_sha256(const L2Plan& plan);

// Adds "trace", "timeline", by_operation.<kind>.latency_cdf_ms and plan.plan_sha256 to the
// fleet object.
void add_report_fields(nlohmann::json& fleet, const L2Plan& plan, const L2ReplayResult& result);

}  // namespace fleet::l2replay
