// The result of one run as every report renders it: the LMCache view (totals, per-qualname
// stats, digests) plus Fleet's own (lateness, engine counters, per-node rows). An embedded run
// has one node; a fleet run merges many (exact stats over the union of samples).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/stats/lateness_stats.h"
#include "fleet/stats/stats_collector.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/wire/node_result.h"

namespace fleet::report {

struct TraceInfo {
  std::string path;
  std::string level;
  int64_t schema = 0;
  std::string header_digest;
  uint64_t malformed_skipped = 0;  // frames the reader dropped (not counted by LMCache)
  bool truncated_tail = false;
};

using NodeReport = wire::NodeResult;

struct RunReport {
  TraceInfo trace;
  std::string mode = "embedded";  // embedded | fleet
  double speed = 1.0;
  std::string clock = "real";
  bool stopped_early = false;
  double duration_s = 0.0;
  uint64_t total = 0, replayed = 0, skipped = 0, failed = 0;
  stats::StatsCollector stats;  // merged
  stats::LatenessStats lateness;
  uint64_t feed_late = 0, engine_late = 0;
  std::vector<NodeReport> nodes;
  nlohmann::json plan = nlohmann::json::object();
  nlohmann::json extra = nlohmann::json::object();  // contention windows, etc.
  // Where every record went (report/accounting.h); null when the run did not count it.
  nlohmann::ordered_json accounting;

  // The replay-side digest LMCache's terminal shows: the (single) node's, or "" when nodes
  // disagree (the digest comparison then explains it).
  std::string replay_digest() const;
  std::string digest_comparison() const;
  // Every node's L2 failures merged by adapter (empty when none failed).
  std::vector<stats::L2FailureRecord> l2_failures() const;
  // The nodes' pacing statistics merged; none when no node tracked edges.
  std::optional<causal::PacingStats> pacing() const;
  // Miss attribution: --baseline's pairing (set by the run), the nodes' misses by class merged
  // with it (none when no node classified misses), and every node's misses in node order.
  std::optional<stats::MissPairing> miss_pairing;
  std::optional<stats::MissSummary> misses() const;
  std::vector<stats::MissEvent> miss_events() const;
};

// The report's trace section from a reader that has read the whole file.
TraceInfo trace_info(const trace::FrameReader& reader);
// Adds nodes and folds them into the merged totals, stats and lateness. Give every node at
// once where possible: each qualname's union is then built in one k-way merge of the nodes'
// sorted samples (OpStats::merge_all), not node by node.
void add_nodes(RunReport& report, std::vector<NodeReport> nodes);
void add_node(RunReport& report, NodeReport node);  // add_nodes of one

}  // namespace fleet::report
