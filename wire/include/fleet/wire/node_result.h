// What one node (an embedded replay or a fleet worker) reports at the end of its run: totals,
// every latency sample per qualname (so the coordinator's percentiles are exact over the union),
// lateness histograms, engine identity and counters. Travels in the DONE message.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/causal/pacing_stats.h"
#include "fleet/stats/l2_failures.h"
#include "fleet/stats/lateness_stats.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/stats/stats_collector.h"
#include "fleet/util/huge_page_allocator.h"

namespace fleet::wire {

// How a node's run ended. A worker reports Ok or Aborted; Lost is the coordinator's word for a
// node whose result never came.
enum class NodeStatus { Ok, Lost, Aborted };

// The status as the DONE message, fleet_summary.json and the CSVs spell it: the one table.
inline constexpr std::array<std::pair<std::string_view, NodeStatus>, 3> kNodeStatusNames{
    {{"ok", NodeStatus::Ok}, {"lost", NodeStatus::Lost}, {"aborted", NodeStatus::Aborted}}};

inline std::string node_status_name(NodeStatus status) {
  for (const auto& [name, value] : kNodeStatusNames) {
    if (value == status) return std::string(name);
  }
  return "?";  // unreachable: the table names every enumerator
}

// The status `name` spells, or none when it spells none.
inline std::optional<NodeStatus> node_status_from_name(std::string_view name) {
  for (const auto& [spelling, value] : kNodeStatusNames) {
    if (spelling == name) return value;
  }
  return std::nullopt;
}

struct NodeResult {
  std::string name;     // host name or "local"
  std::string address;  // endpoint, "" when embedded
  NodeStatus status = NodeStatus::Ok;
  uint64_t total = 0, replayed = 0, skipped = 0, failed = 0;
  double duration_s = 0.0;
  stats::StatsCollector stats;
  stats::LatenessStats lateness;
  uint64_t feed_late = 0, engine_late = 0;
  std::string engine_name;
  std::string config_digest;
  nlohmann::json engine_config;
  nlohmann::json engine_counters = nlohmann::json::object();
  nlohmann::json l2_windows = nlohmann::json::object();  // contention view (l2_windows.h)
  // Adapters whose L2 operations failed, times since T0; in DONE only when there are any.
  std::vector<stats::L2FailureRecord> l2_failures;
  int64_t clock_offset_ns = 0;
  int64_t clock_uncertainty_ns = 0;
  int64_t start_skew_ns = 0;  // first dispatch - T0 on the node's clock
  uint64_t dispatch_exits_without_enter = 0;
  uint64_t dangling_contexts_closed = 0;
  uint64_t records_received = 0;  // fleet: records the coordinator had sent (lost nodes)
  // Paced runs that tracked dependency edges (causal, or uniform faster than 1x); in DONE only
  // then.
  std::optional<causal::PacingStats> pacing;
  // Miss attribution (docs/causal-pacing.md): the node's misses by class, and each miss for the
  // coordinator's misses.csv and --baseline pairing (at most MissSummary::kMaxLoggedEvents).
  std::optional<stats::MissSummary> misses;
  std::vector<stats::MissEvent> miss_events;
  // A worker that routed itself: what its scan of the trace found (the reader's counts, the
  // plan's totals and its own plan row; worker/service/self_routed_source.h). Null otherwise,
  // and then not in DONE at all.
  nlohmann::json self_route;
  // An L2 replay (START's l2 block): the node's L2ReplayResult but its latencies, which travel
  // in `stats` as "l2.<operation>", and its share of the plan (l2replay/l2_fleet_result.h).
  // Null otherwise, and then not in DONE.
  nlohmann::json l2_replay;
};

// Binary form for the DONE message: a u32 BE length, a msgpack map of everything but the
// latency samples, then each qualname's samples as raw little-endian doubles, ascending.
std::string encode_node_result(const NodeResult& r);
// A whole DONE message carrying encode_node_result(r), written in one pass (the result is
// megabytes of samples: encoding it and then a Done around it would copy it twice), on huge
// pages when large.
util::HugeString encode_done_message(const NodeResult& r);
// Throws ProtocolError on malformed input.
// With an `owner` keeping `bytes` alive, samples that arrive sorted and 8-byte aligned stay in
// `bytes` (the node's stats keep `owner`) instead of being copied.
NodeResult decode_node_result(std::string_view bytes, std::shared_ptr<const void> owner = nullptr);

}  // namespace fleet::wire
