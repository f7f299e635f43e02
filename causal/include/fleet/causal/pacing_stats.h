// What a paced replay did about its dependency edges, per node and merged: the edges found by
// kind, how often an edge held a record past its scaled instant (and for how long in total),
// each binding gap edge's lateness (issue - (parent issue + recorded gap): never < 0 under
// causal pacing; under uniform pacing a negative value is an edge the speed-up raced), and per
// kind the raced edges. In DONE and fleet_summary.json as "pacing" (docs/causal-pacing.md).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "fleet/causal/edge.h"
#include "fleet/causal/edge_finder.h"
#include "fleet/causal/late_cause.h"
#include "fleet/causal/pacing.h"
#include "fleet/stats/lateness_stats.h"

namespace fleet::causal {

struct PacingStats {
  static constexpr int64_t kEdgeSlackNs = 50'000;  // a gap edge kept within 50 us counts as on time
  // Completion edges: how often the session re-checks a store or prefetch it waits for, and how
  // long it waits at most (a backend that never answers must not stall the run).
  static constexpr int64_t kL2PollNs = 20'000;
  static constexpr int64_t kL2AwaitCapNs = 1'000'000'000;

  Pacing pacing = Pacing::Uniform;
  double speed = 1.0;
  // The engine's tick and TTLs follow the trace's time (EngineConfig::follow_trace_time);
  // engine_time_scale then scales only the mock adapter's transfer times.
  double engine_time_scale = 1.0;
  bool engine_follows_trace = false;
  EdgeCounts edges;
  // A time-sharded fleet run counted the edges its window boundaries cut (edges.cut, per node
  // the ones whose child it replays; cut_edge_counter.h). Key and none shards cut none.
  bool cut_counted = false;
  uint64_t held_records = 0;  // causal: an edge moved the record past its scaled instant
  int64_t hold_ns = 0;        // by how much, summed
  stats::LatenessStats edge_lateness;
  // Binding gap edges issued > 50 us after their gap, by the replay's own doing: their record's
  // causal instant was the edge's (within 50 us), and the call started later than that.
  uint64_t edges_late_over_slack = 0;
  // Those late edges, each charged to the first step of the replay loop already past its due
  // instant (late_cause.h); they sum to edges_late_over_slack.
  LateCauseCounts late_by_cause{};
  // Causal: binding gap edges whose record's causal instant another constraint set more than
  // 50 us past the edge's (the recorded order behind a held record, a wait for L2 to land):
  // the gap was stretched on purpose, and the edge is not late (docs/causal-pacing.md).
  uint64_t edges_stretched = 0;
  // Of those, the records whose call still started > 50 us after their causal instant: the
  // in-order dispatcher's own lag behind the held record (each call waits for the one before
  // it), which is the record's lateness, not its edge's. Disjoint from edges_late_over_slack.
  uint64_t stretched_late_over_slack = 0;
  std::array<uint64_t, kEdgeKindCount> raced{};  // issued before the recorded gap had passed
  bool partial = false;                          // the partial schedule
  uint64_t overtakes = 0;  // partial: records issued while an earlier-recorded one was parked
  // Completion edges: records that waited for their keys' L2 store or prefetch to land, how
  // long in total, and how many gave up at kL2AwaitCapNs (the backend is the limit).
  uint64_t l2_awaits = 0;
  int64_t l2_await_ns = 0;
  uint64_t l2_await_timeouts = 0;

  // One record's binding edge (its Hold) against the instant its call started; causal_ns is the
  // instant the schedule gave the record (uniform: its scaled instant); `times`, the loop's way
  // to the call, names a late edge's cause.
  void count_issue(const Hold& hold, int64_t scaled_target_ns, int64_t causal_ns, int64_t issue_ns,
                   const IssueTimes& times = {});
  void count_l2_await(int64_t waited_ns, bool gave_up);
  uint64_t raced_total() const;
  void merge(const PacingStats& other);

  nlohmann::json to_json() const;
  // Throws std::invalid_argument naming the field (the DONE decoder turns it into a
  // ProtocolError naming the peer).
  static PacingStats from_json(const nlohmann::json& j);
};

}  // namespace fleet::causal
