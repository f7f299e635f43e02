// The contention view of one node: its completed L2 operations bucketed into 1-second windows
// of the run (from T0), each with op counts, bytes and latency percentiles per op kind, plus
// whole-run latency histograms per op kind that the coordinator merges exactly (by buckets).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "fleet/engine/engine.h"

namespace fleet::replay {

inline constexpr int64_t kL2WindowNs = 1'000'000'000;

// {"window_s": 1, "windows": [{"t": k, "ops": {kind: {"n", "bytes", "p50_us", "p99_us"}}}],
//  "totals": {kind: {"n", "bytes", "latency_ns": <LogLinearHistogram json>}}}
nlohmann::json summarize_l2_ops(const std::vector<engine::L2Op>& ops, int64_t t0_ns,
                                int64_t window_ns = kL2WindowNs);

}  // namespace fleet::replay
