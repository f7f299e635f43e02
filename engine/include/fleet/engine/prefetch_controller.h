// The era-3 prefetch controller (docs/era3-reference.md §5): requests the StorageManager hands over
// (the PREFIX remainder, SPARSE misses or a whole WARM spec) are admitted FIFO up to
// max_in_flight; each re-locks its L1 keys, looks up and locks on every adapter, plans each key
// on the lowest adapter that has it, folds, reserves L1 all-or-nothing, loads, admits and
// touches the retained keys.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleet/engine/busy_keys.h"
#include "fleet/engine/l1_listener.h"  // KeyList
#include "fleet/stats/miss_attribution.h"
#include "fleet/trace/types.h"

namespace fleet::storage {

class EventLoop;
class L1Manager;
class L2Adapter;
class MissClassifier;
struct EngineCounters;
struct L2Completion;

// Object bytes of a prefetched key, from the layout of its object group (a spec with a single
// layout applies it to every key): the byte side of the cache accounting.
// Built on every prefetch call, so it keeps the first few groups inline (no allocation) and
// looks the others up in the spec.
class PrefetchKeyBytes {
 public:
  explicit PrefetchKeyBytes(const trace::PrefetchSpec& spec);
  uint64_t operator()(const trace::ObjectKey& key) const;

 private:
  static constexpr size_t kInline = 8;
  const trace::PrefetchSpec& spec_;
  std::array<std::pair<int64_t, uint64_t>, kInline> by_group_{};  // object_group_id, bytes
  size_t groups_ = 0;
};

struct PrefetchResult {
  int64_t id = -1;
  bool finished = false;
  size_t hit_chunks = 0;         // final fold over the request's own chunks
  std::vector<size_t> retained;  // request positions
  std::vector<size_t> loaded;    // request positions admitted from L2
  std::string failure;           // "", "l1_oom", "l1_contended"
};

class PrefetchController {
 public:
  PrefetchController(L1Manager& l1, std::vector<L2Adapter*> adapters, EventLoop& loop,
                     EngineCounters& counters, int64_t max_in_flight, bool retain_policy,
                     bool track_busy_keys = false, MissClassifier* misses = nullptr);
  ~PrefetchController();

  // Queues the request; nothing is locked before it starts. Returns its id.
  int64_t submit(trace::PrefetchSpec spec);
  void on_lookup_completed(size_t adapter_index, const L2Completion& c);
  void on_load_completed(size_t adapter_index, const L2Completion& c);
  // Frees in-flight write reservations, returns L2 locks, drops queued requests.
  void stop();

  size_t in_flight() const { return in_flight_; }
  size_t queued() const { return pending_.size(); }
  bool idle() const { return in_flight_ == 0 && pending_.empty() && active_.empty(); }
  // A prefetch naming one of `keys` has not finished (tracked only when asked: BusyKeys).
  bool prefetching(const KeyList& keys) const { return busy_.any(keys); }
  // A prefetch naming one of `keys` waits behind max_in_flight (tracked with a miss classifier).
  bool queued_for(const KeyList& keys) const { return queued_.any(keys); }
  // The last few thousand results, by id (tests and diagnostics).
  const PrefetchResult* result(int64_t id) const;

 private:
  struct Request;
  void schedule_step();
  void step();
  void start(Request& r);
  void plan_and_load(Request& r);  // plan_loads, reserve_for_loads, submit_loads
  std::vector<uint8_t> plan_loads(Request& r);
  bool reserve_for_loads(Request& r, const std::vector<uint8_t>& trimmed);
  void submit_loads(Request& r, const std::vector<uint8_t>& trimmed);
  void finish(Request& r);
  void release_l1(Request& r, const std::vector<size_t>& positions);
  void account(const Request& r, const std::vector<uint8_t>& admitted,
               const std::vector<uint8_t>& kept);
  void classify(const Request& r, size_t p, stats::MissClass cls) const;
  void unlock_l2(Request& r, const std::vector<uint8_t>* keep_plan);
  KeyList keys_at(const Request& r, const std::vector<size_t>& positions) const;

  L1Manager& l1_;
  std::vector<L2Adapter*> adapters_;
  EventLoop& loop_;
  EngineCounters& counters_;
  int64_t max_in_flight_;
  bool retain_policy_;
  bool stopped_ = false;
  bool step_scheduled_ = false;
  int64_t next_id_ = 0;
  size_t in_flight_ = 0;
  std::deque<std::unique_ptr<Request>> pending_;
  std::unordered_map<int64_t, std::unique_ptr<Request>> active_;
  BusyKeys busy_;
  BusyKeys queued_;         // keys of requests not started yet
  MissClassifier* misses_;  // null unless the run classifies misses
  std::unordered_map<uint64_t, std::pair<int64_t, std::vector<size_t>>> tasks_;  // lookups/loads
  std::map<int64_t, PrefetchResult> results_;
};

}  // namespace fleet::storage
