// An L2 replay's run directory as plain structs (docs/l2-traces.md, "Outputs"):
// l2_replay_stats.json (the fork's fields and Fleet's "fleet" object) and, when present,
// l2_prepare_manifest.json. What report.html's L2 page and `coordinator compare` of two L2 runs
// read. The reader is tolerant as read_run_summary is: a missing or wrongly typed field reads as
// its default, so an older run (before the timeline) still reads, with an empty timeline.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/util/status.h"

namespace fleet::summary {

inline constexpr const char* kL2StatsFile = "l2_replay_stats.json";
inline constexpr const char* kL2PrepareManifestFile = "l2_prepare_manifest.json";

// One operation kind ("store", "lookup_task", "load_task", "unlock", "delete"), from
// fleet.by_operation.<kind>.
struct L2KindStats {
  std::string kind;
  uint64_t submitted = 0, completed = 0, failed = 0;
  uint64_t bytes_submitted = 0, bytes_moved = 0;
  double operations_per_second = 0.0;
  // Exact, LMCache's nearest rank, in ms (fleet.by_operation.<kind>.latency_ms).
  uint64_t latency_count = 0;
  double latency_mean_ms = 0, latency_p50_ms = 0, latency_p90_ms = 0, latency_p99_ms = 0;
  double latency_min_ms = 0, latency_max_ms = 0;
  double schedule_lag_max_s = 0, schedule_lag_mean_s = 0;
  double dependency_wait_max_s = 0, dependency_wait_total_s = 0;
  uint64_t outcome_comparisons = 0, outcome_mismatches = 0;
  std::vector<std::pair<double, double>> latency_cdf_ms;  // [latency_ms, fraction]
};

// One kind's columns of the per-second timeline, one entry per kept window.
struct L2TimelineKind {
  std::vector<uint64_t> dispatched, completed, failed, bytes_moved;
  std::vector<double> latency_p50_us, latency_p99_us, latency_max_us, schedule_lag_max_s;
};

struct L2Timeline {
  double window_seconds = 1.0;
  std::vector<int64_t> index;  // window start in seconds since the loop's start
  std::map<std::string, L2TimelineKind> by_operation;
  // Set when the columns' lengths do not match `index` (a damaged file): the reason, shown
  // instead of the charts.
  std::string problem;
};

struct L2PlanFacts {
  std::map<std::string, uint64_t> dependency_edges;  // "lookup_task->store" -> n
  uint64_t forward_edges = 0, overlapping_store_hits = 0;
  uint64_t prepare_objects = 0, prepare_bytes = 0;
  std::string plan_sha256;  // the plan's shape (l2_timeline_json.h); "" in older runs
};

// l2_prepare_manifest.json (--prepare-l2 / --prepare-only).
struct L2PrepareManifest {
  uint64_t prepared_objects = 0, prepared_bytes = 0;
  uint64_t store_tasks_succeeded = 0, store_tasks_failed = 0;
  double elapsed_seconds = 0.0;
};

// One node of a fleet run (the top-level "nodes" array of l2replay/l2_fleet_stats.h: each a whole
// stats object named by "node"): empty for an embedded run.
struct L2NodeStats {
  std::string name;
  std::vector<L2KindStats> kinds;
  uint64_t dependency_violations = 0;
  double total_replay_seconds = 0.0;
};

struct L2RunStats {
  std::string dir;   // the run directory read
  std::string file;  // DIR/l2_replay_stats.json
  // The fork's top-level fields.
  double speedup = 0.0, trace_percent = 0.0;
  uint64_t source_operations_total = 0, operations_selected = 0;
  double scaled_target_submission_window_seconds = 0, trace_submission_window_seconds = 0;
  double actual_submission_window_seconds = 0, total_replay_seconds = 0, drain_seconds = 0;
  double max_schedule_lag_seconds = 0, mean_schedule_lag_seconds = 0;
  double max_dependency_wait_seconds = 0, total_dependency_wait_seconds = 0;
  double max_buffer_wait_seconds = 0, total_buffer_wait_seconds = 0;
  uint64_t total_bytes_submitted = 0;
  double throughput_bytes_per_second = 0.0;
  uint64_t outcome_mismatch_count = 0;
  double outcome_mismatch_rate = 0.0;
  std::vector<std::string> outcome_mismatch_samples;
  // Fleet's ("fleet").
  std::string adapter, trace;
  uint64_t dependency_violations = 0, unmatched_completions = 0;
  bool interrupted = false;
  double operations_per_second = 0.0;
  std::vector<L2KindStats> kinds;  // store, lookup_task, load_task, unlock, delete: those present
  L2PlanFacts plan;
  L2Timeline timeline;
  std::optional<L2PrepareManifest> prepare;  // when DIR holds l2_prepare_manifest.json
  std::vector<L2NodeStats> nodes;            // empty for an embedded run

  const L2KindStats* kind(const std::string& name) const;
  uint64_t operations() const;   // Σ submitted
  uint64_t comparisons() const;  // Σ outcome_comparisons
};

// Whether DIR holds an L2 replay's stats (and no storage run's fleet_summary.json).
bool is_l2_run_dir(const std::string& dir);
// DIR/l2_replay_stats.json (and DIR/l2_prepare_manifest.json when there is one): an error naming
// the file when it is missing, unreadable or not a JSON object (or the manifest not an object).
Result<L2RunStats> read_l2_run_stats(const std::string& dir);

}  // namespace fleet::summary
