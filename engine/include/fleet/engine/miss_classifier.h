// Labels each miss as the engine decides it (stats/miss_attribution.h; docs/causal-pacing.md
// "Miss attribution"). It keeps a small history per key (written, refused, evicted, the last time
// its L2 store landed) and, when a prefetch leaves a key unserved or a read finds it not
// readable, names the cause. Built only when a run asks for attribution (--classify-misses,
// --baseline, or any speed but 1x): a hash entry per key is not free.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "fleet/engine/key_hash.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/trace/types.h"

namespace fleet::storage {

class MissClassifier {
 public:
  // The record whose call the engine is handling (its recorded t_wall).
  void set_record(double t_wall) { record_ = t_wall; }
  double record() const { return record_; }

  // History.
  void write_reserved(const trace::ObjectKey& k, bool refused_for_full_l1);
  void entered_l1(const trace::ObjectKey& k);  // a finished write, or a load admitted
  void evicted(const trace::ObjectKey& k);
  void store_landed(const trace::ObjectKey& k, int64_t now_ns);

  // Whether a write-behind store of a key is still queued or in flight (the store controller's).
  void set_store_busy(std::function<bool(const trace::ObjectKey&)> fn) {
    store_busy_ = std::move(fn);
  }

  // Decisions. A prefetch miss not found in any tier; `looked_up_ns` is when the prefetch
  // looked (a store that landed after that came too late).
  void not_found(double record, const trace::ObjectKey& k, int64_t looked_up_ns);
  void prefetch_miss(double record, const trace::ObjectKey& k, stats::MissClass cls);
  // A read of a key not readable in L1: `queued` / `loading` when a prefetch naming it is
  // waiting behind max_in_flight / running, `write_locked` when it is in L1 being written.
  void read_miss(const trace::ObjectKey& k, bool queued, bool loading, bool write_locked);

  const stats::MissSummary& summary() const { return summary_; }
  std::vector<stats::MissEvent> take_events();

 private:
  struct History {
    bool written = false;
    bool refused = false;  // the last reserve_write was refused for a full L1
    bool evicted = false;  // evicted since it last entered L1
    int64_t landed_ns = -1;
  };
  void log(double record, const trace::ObjectKey& k, stats::MissWhere where, stats::MissClass cls);

  double record_ = 0.0;
  std::function<bool(const trace::ObjectKey&)> store_busy_;
  std::unordered_map<trace::ObjectKey, History, KeyHash> history_;
  // A deque: the log grows to two million events while the replay runs, and a vector's
  // doubling copied all of them into fresh memory inside a call, 80-170 ms at half a million to
  // a million (docs/causal-pacing.md, "What is left, edge by edge").
  std::deque<stats::MissEvent> events_;
  stats::MissSummary summary_;
};

}  // namespace fleet::storage
