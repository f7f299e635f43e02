// The fork's replay plan of an L2 trace (docs/l2-traces.md, "The replay plan"): the selected
// submissions (--trace-percent p: the first ceil(N*p/100) in file order) as operations, each
// with the source's outcome and the operations it must wait for, and the objects --prepare-l2
// seeds (found in L2 by the source, never stored by the trace before). File order is the
// recorder's publish order: "before" is always a smaller sequence, never a smaller t_mono.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fleet/trace/header.h"
#include "fleet/trace/l2_record.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

using trace::L2Op;

struct L2PlanOp {
  L2Op op = L2Op::None;
  uint64_t sequence = 0;  // of the submission record
  double t_mono = 0.0;
  int64_t adapter_index = 0;
  int64_t task_id = 0;      // store / lookup / load
  int64_t request_id = -1;  // lookup / load / unlock; -1: none
  // The record's keys, in order, as ids into L2Plan::keys: a key is stored once per plan, so a
  // trace of millions of key mentions does not hold millions of 70-byte keys.
  std::vector<uint32_t> key_ids;
  std::vector<uint64_t> sizes;                            // store / load: object_sizes
  std::vector<std::pair<int64_t, uint64_t>> group_sizes;  // lookup: object group -> bytes
  // The source's outcome, from the task's completion record (a later duplicate overwrites).
  bool source_completed = false;
  uint64_t completion_sequence = 0;
  bool source_succeeded = false;        // store: succeeded_count > 0
  std::vector<int64_t> source_indices;  // lookup: hit_indices; load: success_indices
  std::vector<uint32_t> deps;           // indices into L2Plan::ops, each once

  uint64_t bytes() const;  // Σ sizes
  trace::L2TaskKey task_key() const { return {op, adapter_index, task_id}; }
};

struct L2PreparedObject {
  trace::ObjectKey key;
  uint64_t size = 0;
  uint32_t needed_by = 0;  // the lookup that decided it (index into L2Plan::ops): who seeds it
};

struct L2Plan {
  std::string path;
  trace::Header header;
  std::vector<L2PlanOp> ops;           // the selected submissions, in file order
  std::vector<trace::ObjectKey> keys;  // every distinct key of the ops, by id (first-seen order)
  std::vector<L2PreparedObject> prepare;
  uint64_t source_operations_total = 0;  // submissions in the whole trace
  double trace_percent = 100.0;
  // Dependency edges by "dependent->dependency" kind ("lookup_task->store", ...).
  std::map<std::string, uint64_t> edge_counts;
  uint64_t forward_edges = 0;  // the dependency's submission comes later in the file
  // Hits on a key whose (selected, successful) store completed while the lookup was in flight:
  // the overlap the plan keeps (no edge).
  uint64_t overlapping_store_hits = 0;

  // t_mono of the first selected operation: the schedule's origin.
  double origin_t_mono() const { return ops.empty() ? 0.0 : ops.front().t_mono; }
  // t_mono of the last selected operation minus the origin, unscaled.
  double trace_submission_window_seconds() const;
  uint64_t prepare_bytes() const;
  // The op's keys, as the adapter takes them.
  std::vector<trace::ObjectKey> keys_of(const L2PlanOp& op) const;
};

struct L2PlanOptions {
  double trace_percent = 100.0;  // in (0, 100]
  uint32_t max_frame_bytes = 64u << 20;
};

// Reads `path` and builds its plan, or an error whose message starts with the path: the trace
// is unreadable, damaged or not level "l2", the fork's refusals (end marker missing or
// duplicated, drops, more than one source adapter, frames skipped as malformed), a percent
// outside (0, 100], or a selected lookup or prepared key with no size ("L2 lookup submission is
// missing layout metadata").
Result<L2Plan> build_l2_plan(const std::string& path, const L2PlanOptions& options = {});

// How many of `total` submissions --trace-percent p selects: ceil(total*p/100) as Python's
// math.ceil over doubles.
uint64_t selected_count(uint64_t total, double percent);

}  // namespace fleet::l2replay
