// Every total the native engine keeps (docs/engine.md § Counters), one field per LMCache event
// or metric it mirrors, listed as engine::Counters with the same snake_case names (docs/engine.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fleet/engine/cache_outcome.h"
#include "fleet/engine/counters.h"
#include "fleet/engine/l2_adapter.h"

namespace fleet::storage {

struct L2AdapterCounters {
  std::string type;
  uint64_t store_tasks = 0, store_keys = 0, store_bytes = 0, store_failed_tasks = 0;
  uint64_t lookup_tasks = 0, lookup_keys = 0, lookup_found_keys = 0;
  uint64_t load_tasks = 0, load_keys = 0, load_hit_keys = 0, load_bytes = 0;
  uint64_t used_bytes = 0, peak_used_bytes = 0, capacity_bytes = 0;
  // L2 eviction controller (only when the adapter JSON has an `eviction` block)
  bool eviction_enabled = false;
  uint64_t eviction_ticks = 0, eviction_ticks_triggered = 0, evicted_keys = 0;
  uint64_t eviction_locked_skips = 0;  // victims the adapter kept (lookup-locked)
  engine::Counters to_counters() const;
};

// One finished L2 operation, for per-window op rates and latency percentiles.
struct L2OpSample {
  size_t adapter_index = 0;
  L2OpKind kind = L2OpKind::Store;
  int64_t submit_ns = 0;
  int64_t end_ns = 0;
  int64_t latency_ns = 0;
  uint64_t keys = 0;
  uint64_t bytes = 0;
  bool success = true;
};

struct EngineCounters {
  // reserve_write (SM_WRITE_RESERVED, L1_ALLOCATION_FAILED{l1_store})
  uint64_t reserve_write_calls = 0, reserve_write_keys = 0, reserve_write_ok_keys = 0;
  uint64_t reserve_write_in_place_keys = 0, reserve_write_oom_keys = 0;
  uint64_t reserve_write_not_writable_keys = 0;
  // finish_write (SM_WRITE_FINISHED)
  uint64_t finish_write_calls = 0, finish_write_keys = 0, finish_write_ok_keys = 0;
  uint64_t finish_write_not_exist_keys = 0, finish_write_wrong_state_keys = 0;
  // abort_write (era-4 traces only)
  uint64_t abort_write_calls = 0, abort_write_ok_keys = 0, abort_write_failed_keys = 0;
  // submit_prefetch_task (SM_READ_PREFETCHED, handles)
  uint64_t prefetch_calls = 0, prefetch_failed_calls = 0;
  uint64_t prefetch_lookup_calls = 0, prefetch_warm_calls = 0;
  uint64_t prefetch_prefix_calls = 0, prefetch_sparse_calls = 0;
  uint64_t prefetch_keys_requested = 0, prefetch_l1_hit_keys = 0, prefetch_l1_miss_keys = 0;
  uint64_t prefetch_l1_released_keys = 0, prefetch_l1_hit_chunks = 0;
  uint64_t prefetch_l2_submitted_requests = 0, prefetch_l2_submitted_keys = 0;
  uint64_t sparse_leases_released_at_close = 0;
  // prefetch controller (L2_PREFETCH_*)
  uint64_t l2_prefetch_requests_started = 0, l2_prefetch_requests_finished = 0;
  uint64_t l2_prefetch_abandoned_at_close = 0;
  uint64_t l2_prefetch_l1_locked_keys = 0;
  uint64_t l2_lookup_requests = 0, l2_lookup_keys = 0, l2_lookup_found_keys = 0;
  uint64_t l2_prefetch_hit_chunks = 0;  // final controller hit (request-local chunks)
  uint64_t l2_load_tasks = 0, l2_load_keys = 0, l2_loaded_keys = 0, l2_load_bytes = 0;
  uint64_t l2_prefetch_failed_l1_oom_keys = 0, l2_prefetch_failed_l1_contended_keys = 0;
  uint64_t l2_prefetch_failed_not_found_keys = 0;
  uint64_t l2_prefetch_retained_keys = 0;
  // store controller (L2_STORE_*)
  uint64_t l2_store_tasks = 0, l2_store_keys_submitted = 0, l2_store_succeeded_tasks = 0;
  uint64_t l2_store_failed_tasks = 0, l2_store_bytes = 0;
  uint64_t l2_store_read_failed_not_found = 0, l2_store_read_failed_write_locked = 0;
  uint64_t l2_store_release_wrong_state = 0, l2_store_l1_deleted_keys = 0;
  uint64_t l2_stores_in_flight_at_close = 0, l2_stores_abandoned_at_close = 0;
  // read_prefetched_results (L1_READ_FAILED{l1_retrieve}, SM_READ_PREFETCHED_FINISHED)
  uint64_t read_enter_calls = 0, read_enter_all_good = 0, read_enter_failed = 0;
  uint64_t read_enter_keys = 0, read_good_keys = 0;
  uint64_t read_failed_not_found_keys = 0, read_failed_write_locked_keys = 0;
  uint64_t read_exit_calls = 0, read_exit_released_keys = 0, read_exit_release_failed_keys = 0;
  // finish_read_prefetched (SM_READ_PREFETCHED_FINISHED)
  uint64_t finish_read_calls = 0, finish_read_keys = 0, finish_read_ok_keys = 0;
  uint64_t finish_read_not_exist_keys = 0, finish_read_wrong_state_keys = 0;
  // L1 and eviction (L1_KEYS_EVICTED, L1_EVICTION_LOOP_TICK, gauges)
  uint64_t eviction_ticks = 0, eviction_ticks_triggered = 0, eviction_ticks_skipped = 0;
  uint64_t l1_evicted_keys = 0, l1_evicted_bytes = 0, l1_eviction_locked_skips = 0;
  // Close
  bool closed = false;
  bool drained = false;

  std::vector<L2AdapterCounters> adapters;
  // Every prefetched key's fate and the write totals, in keys and bytes (docs/outputs.md § Cache).
  engine::CacheOutcome cache;

  // Every field above, then "l2_adapters" and "cache"; the engine adds the L1 gauges from the live
  // manager.
  engine::Counters to_counters() const;
};

}  // namespace fleet::storage
