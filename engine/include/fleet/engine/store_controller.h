// Write-behind from L1 to every L2 adapter (docs/era3-reference.md §4): non-temporary keys finished
// in L1 are queued, grouped by (model_name, kv_rank), read-locked once per target adapter while
// the store is in flight (so they cannot be evicted or rewritten), and released on completion;
// `skip_l1` then deletes them from L1. No retries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "fleet/engine/busy_keys.h"
#include "fleet/engine/l1_listener.h"  // L1Listener, KeyList
#include "fleet/util/clock.h"

namespace fleet::storage {

class EventLoop;
class MissClassifier;
class L1Manager;
class L2Adapter;
struct EngineCounters;
struct L2Completion;

class StoreController final : public L1Listener {
 public:
  StoreController(L1Manager& l1, std::vector<L2Adapter*> adapters, EventLoop& loop,
                  EngineCounters& counters, bool skip_l1, const util::Clock* trace_clock = nullptr,
                  MissClassifier* misses = nullptr);

  unsigned interests() const override { return kWriteFinished; }
  void on_l1_keys_write_finished(const KeyList& keys) override;
  void on_store_completed(size_t adapter_index, const L2Completion& c);

  // No queued keys, no scheduled step and nothing in flight.
  bool idle() const { return pending_.empty() && !step_scheduled_ && in_flight_.empty(); }
  size_t in_flight() const { return in_flight_.size(); }
  // Tracked only with a trace clock (an engine following the trace, for causal pacing's
  // completion edges) or a miss classifier: a store of one of `keys` is queued or in flight; the
  // trace instant the oldest store in flight was submitted at (INT64_MAX: none).
  bool storing(const KeyList& keys) const { return busy_.any(keys); }
  int64_t oldest_in_flight_trace_ns() const {
    return since_order_.empty() ? INT64_MAX : *since_order_.begin();
  }
  // Releases the read locks of in-flight stores and forgets them (close order step 3).
  void stop();

 private:
  void step();

  L1Manager& l1_;
  std::vector<L2Adapter*> adapters_;
  EventLoop& loop_;
  EngineCounters& counters_;
  bool skip_l1_;
  bool stopped_ = false;
  bool step_scheduled_ = false;
  KeyList pending_;
  std::map<std::pair<size_t, uint64_t>, KeyList> in_flight_;
  const util::Clock* trace_clock_;
  MissClassifier* misses_;  // null unless the run classifies misses
  BusyKeys busy_;
  std::map<std::pair<size_t, uint64_t>, int64_t> since_;  // task -> trace instant submitted
  std::multiset<int64_t> since_order_;                    // (adapter, task) -> locked keys
};

}  // namespace fleet::storage
