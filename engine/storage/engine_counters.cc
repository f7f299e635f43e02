#include "fleet/engine/engine_counters.h"

#include <utility>

namespace fleet::storage {

engine::Counters L2AdapterCounters::to_counters() const {
  engine::Counters c;
  c.add("type", type);
  c.add("store_tasks", store_tasks);
  c.add("store_keys", store_keys);
  c.add("store_bytes", store_bytes);
  c.add("store_failed_tasks", store_failed_tasks);
  c.add("lookup_tasks", lookup_tasks);
  c.add("lookup_keys", lookup_keys);
  c.add("lookup_found_keys", lookup_found_keys);
  c.add("load_tasks", load_tasks);
  c.add("load_keys", load_keys);
  c.add("load_hit_keys", load_hit_keys);
  c.add("load_bytes", load_bytes);
  c.add("used_bytes", used_bytes);
  c.add("peak_used_bytes", peak_used_bytes);
  c.add("capacity_bytes", capacity_bytes);
  c.add("eviction_enabled", eviction_enabled);
  c.add("eviction_ticks", eviction_ticks);
  c.add("eviction_ticks_triggered", eviction_ticks_triggered);
  c.add("evicted_keys", evicted_keys);
  c.add("eviction_locked_skips", eviction_locked_skips);
  return c;
}

namespace {

// Each adds one stage's fields; called in to_counters' order they keep the order the run
// summary lists them in.
#define C(name) j.add(#name, e.name)

// reserve_write, finish_write, abort_write
void add_write_counters(const EngineCounters& e, engine::Counters& j) {
  C(reserve_write_calls);
  C(reserve_write_keys);
  C(reserve_write_ok_keys);
  C(reserve_write_in_place_keys);
  C(reserve_write_oom_keys);
  C(reserve_write_not_writable_keys);
  C(finish_write_calls);
  C(finish_write_keys);
  C(finish_write_ok_keys);
  C(finish_write_not_exist_keys);
  C(finish_write_wrong_state_keys);
  C(abort_write_calls);
  C(abort_write_ok_keys);
  C(abort_write_failed_keys);
}

// submit_prefetch_task and its L2 lookups and loads
void add_prefetch_counters(const EngineCounters& e, engine::Counters& j) {
  C(prefetch_calls);
  C(prefetch_failed_calls);
  C(prefetch_lookup_calls);
  C(prefetch_warm_calls);
  C(prefetch_prefix_calls);
  C(prefetch_sparse_calls);
  C(prefetch_keys_requested);
  C(prefetch_l1_hit_keys);
  C(prefetch_l1_miss_keys);
  C(prefetch_l1_released_keys);
  C(prefetch_l1_hit_chunks);
  C(prefetch_l2_submitted_requests);
  C(prefetch_l2_submitted_keys);
  C(sparse_leases_released_at_close);
  C(l2_prefetch_requests_started);
  C(l2_prefetch_requests_finished);
  C(l2_prefetch_abandoned_at_close);
  C(l2_prefetch_l1_locked_keys);
  C(l2_lookup_requests);
  C(l2_lookup_keys);
  C(l2_lookup_found_keys);
  C(l2_prefetch_hit_chunks);
  C(l2_load_tasks);
  C(l2_load_keys);
  C(l2_loaded_keys);
  C(l2_load_bytes);
  C(l2_prefetch_failed_l1_oom_keys);
  C(l2_prefetch_failed_l1_contended_keys);
  C(l2_prefetch_failed_not_found_keys);
  C(l2_prefetch_retained_keys);
}

// The store controller's L2 stores
void add_l2_store_counters(const EngineCounters& e, engine::Counters& j) {
  C(l2_store_tasks);
  C(l2_store_keys_submitted);
  C(l2_store_succeeded_tasks);
  C(l2_store_failed_tasks);
  C(l2_store_bytes);
  C(l2_store_read_failed_not_found);
  C(l2_store_read_failed_write_locked);
  C(l2_store_release_wrong_state);
  C(l2_store_l1_deleted_keys);
  C(l2_stores_in_flight_at_close);
  C(l2_stores_abandoned_at_close);
}

// read_prefetched_results and finish_read_prefetched
void add_read_counters(const EngineCounters& e, engine::Counters& j) {
  C(read_enter_calls);
  C(read_enter_all_good);
  C(read_enter_failed);
  C(read_enter_keys);
  C(read_good_keys);
  C(read_failed_not_found_keys);
  C(read_failed_write_locked_keys);
  C(read_exit_calls);
  C(read_exit_released_keys);
  C(read_exit_release_failed_keys);
  C(finish_read_calls);
  C(finish_read_keys);
  C(finish_read_ok_keys);
  C(finish_read_not_exist_keys);
  C(finish_read_wrong_state_keys);
}

// The L1 eviction loop, and the close
void add_eviction_counters(const EngineCounters& e, engine::Counters& j) {
  C(eviction_ticks);
  C(eviction_ticks_triggered);
  C(eviction_ticks_skipped);
  C(l1_evicted_keys);
  C(l1_evicted_bytes);
  C(l1_eviction_locked_skips);
  C(closed);
  C(drained);
}
#undef C

}  // namespace

engine::Counters EngineCounters::to_counters() const {
  engine::Counters j;
  add_write_counters(*this, j);
  add_prefetch_counters(*this, j);
  add_l2_store_counters(*this, j);
  add_read_counters(*this, j);
  add_eviction_counters(*this, j);
  engine::Counters::List a;
  for (const auto& ad : adapters) a.push_back(ad.to_counters());
  j.add("l2_adapters", std::move(a));
  j.add("cache", engine::to_counters(cache));
  return j;
}

}  // namespace fleet::storage
