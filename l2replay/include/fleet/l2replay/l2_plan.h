// The fork's replay plan of an L2 trace (docs/l2-traces.md, "The replay plan"): the selected
// submissions (--trace-percent p: the first ceil(N*p/100) in file order) as operations, each
// with the source's outcome and the operations it must wait for, and the objects --prepare-l2
// seeds (found in L2 by the source, never stored by the trace before). File order is the
// recorder's publish order: "before" is always a smaller sequence, never a smaller t_mono.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fleet/trace/header.h"
#include "fleet/trace/l2_record.h"
#include "fleet/util/huge_page_allocator.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

using trace::L2Op;

// A run of one of the plan's pools: its elements [at, at + n).
struct L2PoolRange {
  uint32_t at = 0;
  uint32_t n = 0;
};

// One operation, compact: its variable-length parts (keys, sizes, layouts, source indices,
// dependencies) are ranges of the plan's pools, so a plan of millions of operations is a few
// large arrays instead of five small heap blocks per operation.
struct L2PlanOp {
  double t_mono = 0.0;
  uint64_t sequence = 0;  // of the submission record
  // The source's outcome, from the task's completion record (a later duplicate overwrites).
  uint64_t completion_sequence = 0;
  int64_t adapter_index = 0;
  int64_t task_id = 0;      // store / lookup / load
  int64_t request_id = -1;  // lookup / load / unlock; -1: none
  // The record's keys, in order, as ids into L2Plan::keys (L2Plan::key_id_pool): a key is
  // stored once per plan, so a trace of millions of key mentions does not hold millions of
  // 70-byte keys.
  L2PoolRange keys;
  L2PoolRange sizes;           // store / load: object_sizes (L2Plan::size_pool)
  L2PoolRange group_sizes;     // lookup: object group -> bytes (L2Plan::group_size_pool)
  L2PoolRange source_indices;  // lookup: hit_indices; load: success_indices (index_pool)
  L2PoolRange deps;            // indices into L2Plan::ops, each once (dep_pool)
  L2Op op = L2Op::None;
  bool source_completed = false;
  bool source_succeeded = false;  // store: succeeded_count > 0

  trace::L2TaskKey task_key() const { return {op, adapter_index, task_id}; }
};

struct L2PreparedObject {
  trace::ObjectKey key;
  uint64_t size = 0;
  uint32_t needed_by = 0;  // the lookup that decided it (index into L2Plan::ops): who seeds it
};

// The pools: large, filled once in order and never freed early, so they are mapped as huge
// pages from 1 MiB on (one fault per 2 MiB instead of one per 4 KiB, util/huge_page_allocator.h)
// without being populated ahead (they grow as the file is read).
template <class T>
using L2Pool = std::vector<T, util::HugePageAllocator<T, false>>;

struct L2Plan {
  std::string path;
  trace::Header header;
  L2Pool<L2PlanOp> ops;                // the selected submissions, in file order
  std::vector<trace::ObjectKey> keys;  // every distinct key of the ops, by id (first-seen order)
  L2Pool<uint32_t> key_id_pool;
  L2Pool<uint64_t> size_pool;
  L2Pool<std::pair<int64_t, uint64_t>> group_size_pool;
  L2Pool<int64_t> index_pool;
  L2Pool<uint32_t> dep_pool;
  std::vector<L2PreparedObject> prepare;
  uint64_t source_operations_total = 0;  // submissions in the whole trace
  double trace_percent = 100.0;
  // Dependency edges by "dependent->dependency" kind ("lookup_task->store", ...).
  std::map<std::string, uint64_t> edge_counts;
  uint64_t forward_edges = 0;  // the dependency's submission comes later in the file
  // Hits on a key whose (selected, successful) store completed while the lookup was in flight:
  // the overlap the plan keeps (no edge).
  uint64_t overlapping_store_hits = 0;

  std::span<const uint32_t> key_ids(const L2PlanOp& op) const { return of(key_id_pool, op.keys); }
  std::span<const uint64_t> sizes(const L2PlanOp& op) const { return of(size_pool, op.sizes); }
  std::span<const std::pair<int64_t, uint64_t>> group_sizes(const L2PlanOp& op) const {
    return of(group_size_pool, op.group_sizes);
  }
  std::span<const int64_t> source_indices(const L2PlanOp& op) const {
    return of(index_pool, op.source_indices);
  }
  std::span<const uint32_t> deps(const L2PlanOp& op) const { return of(dep_pool, op.deps); }
  uint64_t bytes(const L2PlanOp& op) const;  // Σ sizes

  // Appends `values` to `pool` and returns their range; throws std::length_error beyond 2^32
  // elements.
  template <class T, class Values>
  static L2PoolRange append(L2Pool<T>& pool, const Values& values) {
    const size_t at = pool.size(), n = std::size(values);
    if (at + n > UINT32_MAX) throw std::length_error("L2 plan: more than 2^32 pool elements");
    pool.insert(pool.end(), std::begin(values), std::end(values));
    return {static_cast<uint32_t>(at), static_cast<uint32_t>(n)};
  }
  // Appends `op` of plan `from` (its pools' parts copied, its key ids moved by `key_offset`)
  // with `deps` as its dependencies: how a fleet share gathers the operations of several plans.
  void adopt(const L2Plan& from, L2PlanOp op, uint32_t key_offset, std::span<const uint32_t> deps);

  // t_mono of the first selected operation: the schedule's origin.
  double origin_t_mono() const { return ops.empty() ? 0.0 : ops.front().t_mono; }
  // t_mono of the last selected operation minus the origin, unscaled.
  double trace_submission_window_seconds() const;
  uint64_t prepare_bytes() const;

 private:
  template <class T>
  static std::span<const T> of(const L2Pool<T>& pool, L2PoolRange r) {
    return {pool.data() + r.at, r.n};
  }
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
