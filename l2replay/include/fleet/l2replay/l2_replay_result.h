// What an L2 replay measured, per operation kind (store, lookup_task, load_task, unlock,
// delete): how many were issued and completed, bytes, exact latencies (dispatch to the loop pass
// that saw the completion), schedule lag, dependency and loop waits, and the outcome
// comparison with the source. l2_stats_json.h turns it into l2_replay_stats.json.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fleet/l2replay/l2_window.h"
#include "fleet/stats/op_stats.h"
#include "fleet/trace/l2_record.h"

namespace fleet::l2replay {

inline constexpr size_t kL2OpCount = 5;  // L2Op::Store .. L2Op::Delete

// max and sum of one wait over the operations of a kind, in seconds.
struct WaitTotals {
  double max_s = 0.0;
  double total_s = 0.0;
  void add(double s) {
    if (s > max_s) max_s = s;
    total_s += s;
  }
};

struct L2OpResult {
  uint64_t submitted = 0;
  uint64_t completed = 0;        // store / lookup / load completions seen
  uint64_t failed = 0;           // store tasks the target reported failed
  uint64_t bytes_submitted = 0;  // Σ object_sizes of dispatched stores / loads
  uint64_t bytes_moved = 0;      // what the adapter reported written / read
  stats::OpStats latency;        // ms, every completion (success or not)
  WaitTotals schedule_lag;       // dispatched - scaled target
  WaitTotals dependency_wait;    // max(target, last dependency completion) - target
  WaitTotals loop_wait;          // dispatched - max(target, dependencies): the fork's buffer wait
  uint64_t outcome_comparisons = 0;
  uint64_t outcome_mismatches = 0;
};

struct L2ReplayResult {
  std::string adapter_name;
  double speed = 1.0;
  std::array<L2OpResult, kL2OpCount> ops;
  uint64_t operations_total = 0;  // the plan's
  // Seconds from the loop's start: first and last dispatch, and the end (every store, lookup
  // and load completed).
  double first_dispatch_s = 0.0;
  double last_dispatch_s = 0.0;
  double total_replay_seconds = 0.0;
  // Operations issued before one of their dependencies had completed on the target: 0 by
  // construction, counted so that a test (and a reader of the stats) can see it.
  uint64_t dependency_violations = 0;
  uint64_t unmatched_completions = 0;  // completions of tasks the replay did not issue
  uint64_t in_flight_at_end = 0;       // only after an interruption
  bool interrupted = false;
  std::vector<std::string> mismatch_samples;  // at most 10, "{op}:('{op}', adapter, task)"
  std::vector<L2Window> timeline;             // per second of the run (l2_timeline.h)
  std::string plan_sha256;  // of the plan replayed, when L2ReplayOptions::digest_plan; else ""

  L2OpResult& of(trace::L2Op op) { return ops[static_cast<size_t>(op)]; }
  const L2OpResult& of(trace::L2Op op) const { return ops[static_cast<size_t>(op)]; }
  uint64_t dispatched() const;
  uint64_t mismatches() const;
  uint64_t comparisons() const;
};

}  // namespace fleet::l2replay
