// The native era-3 LMCache StorageManager for one L1 (docs/era3-reference.md §1): the engine the
// replay dispatcher drives. It owns the L1 model, the eviction loop, the store and prefetch
// controllers and the L2 adapters, all driven by one event loop on the engine Clock. With a
// virtual clock nothing runs in the background (the session calls run_until); with the real
// clock a driver thread does. One mutex serialises everything (LMCache's global L1 lock).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fleet/engine/engine.h"
#include "fleet/engine/engine_config.h"
#include "fleet/engine/engine_counters.h"  // EngineCounters, L2OpSample (held by value)
#include "fleet/engine/event_loop.h"       // EventLoop, LoopClock (held by value)
#include "fleet/engine/l1_listener.h"      // KeyList
#include "fleet/engine/l1_status.h"        // L1Status
#include "fleet/engine/miss_classifier.h"
#include "fleet/engine/trace_time_clock.h"  // held by value
#include "fleet/util/status.h"

namespace fleet::storage {

class EvictionBridge;
class EvictionPolicy;
class L1Manager;
class L2EvictionController;
class PrefetchController;
class StoreController;
struct PrefetchResult;

// LMCache's PrefetchHandle (api.py).
struct PrefetchHandle {
  int64_t prefetch_request_id = -1;
  std::string external_request_id;
  std::vector<size_t> l1_found_indices;
  size_t l1_hit_chunks = 0;
  size_t total_requested_keys = 0;
  int64_t submit_time_ns = 0;
  std::vector<size_t> l2_orig_indices;
  int64_t generation = 0;
};

class StorageManager final : public engine::Engine {
 public:
  // The engine `cfg` describes, its L2 adapters built and attached; or why not: a config that
  // validate() refuses, an adapter that cannot be built (make_l2_adapter names it).
  static Result<std::unique_ptr<StorageManager>> open(const EngineConfig& cfg, util::Clock& clock);
  ~StorageManager() override;
  StorageManager(const StorageManager&) = delete;
  StorageManager& operator=(const StorageManager&) = delete;

  // ---- LMCache-shaped calls with their per-key results (tests, tools) ----
  std::vector<L1Status> reserve_write_keys(const KeyList& keys, const trace::MemoryLayout& layout,
                                           trace::WriteMode mode);
  std::vector<L1Status> finish_write_keys(const KeyList& keys);
  // Raises (std::invalid_argument) where LMCache's SM raises.
  PrefetchHandle submit_prefetch_task(const trace::PrefetchSpec& spec,
                                      std::string_view external_request_id = "",
                                      bool skip_l2 = false);
  std::vector<L1Status> finish_read_keys(const KeyList& keys, int64_t read_locks);
  // Untraced in replay; exposed for tests (non-forced delete, like LMCache's delete_l1_keys).
  std::vector<L1Status> delete_l1_keys(const KeyList& keys);

  // ---- engine::Engine ----
  std::string_view name() const override { return "native"; }
  engine::CallResult reserve_write(const KeyList& keys, const trace::MemoryLayout& layout,
                                   trace::WriteMode mode) override;
  engine::CallResult finish_write(const KeyList& keys) override;
  engine::CallResult abort_write(const KeyList& keys) override;
  engine::CallResult submit_prefetch(const trace::PrefetchSpec& spec,
                                     std::string_view external_request_id, bool skip_l2) override;
  engine::CallResult read_enter(const KeyList& keys, engine::ReadContext& ctx) override;
  engine::CallResult read_exit(engine::ReadContext& ctx) override;
  engine::CallResult finish_read(const KeyList& keys, int64_t read_locks) override;
  void run_until(int64_t now_ns) override;
  void hold_wakeups(bool on) override;
  void release_wakeups() override;
  int64_t next_event_ns() const override;
  void follow_trace_time(int64_t trace_ns) override;
  bool store_pending(const KeyList& keys) const override;
  bool prefetch_pending(const KeyList& keys) const override;
  int64_t oldest_store_trace_ns() const override;
  void set_record(double t_wall) override;
  std::optional<stats::MissSummary> miss_summary() const override;
  std::vector<stats::MissEvent> take_misses() override;
  void close(bool drain) override;
  const EngineConfig* engine_config() const override { return &cfg_; }
  std::string config_digest() const override { return digest_; }
  engine::Counters counters() const override;
  engine::CacheOutcome cache_outcome() const override;
  // The contention view's feed: the L2 op samples below, in the engine-neutral form.
  void enable_l2_ops(bool on) override { enable_l2_op_samples(on); }
  std::vector<engine::L2Op> take_l2_ops() override;
  std::vector<stats::L2FailureRecord> l2_failures() const override;
  void set_l2_failure_listener(engine::L2FailureListener fn) override;

  // ---- introspection (callers must not race with a real-clock driver thread) ----
  const EngineConfig& config() const { return cfg_; }
  L1Manager& l1() { return *l1_; }
  EvictionPolicy& eviction_policy() { return *policy_; }
  L2Adapter& adapter(size_t i) { return *adapters_[i]; }
  size_t num_adapters() const { return adapters_.size(); }
  const EngineCounters& counter_struct() const { return counters_; }
  const PrefetchResult* prefetch_result(int64_t id) const;
  bool stores_idle() const;
  // One eviction-loop iteration now (what a tick does), for tests and tools.
  void eviction_tick_now();

  // L2 op samples: every completed store/lookup/load with its latency. Off by default.
  void enable_l2_op_samples(bool on);
  std::vector<L2OpSample> take_l2_op_samples();
  // Called under the engine mutex for every completed L2 op (must not call back in).
  void set_l2_op_observer(std::function<void(const L2OpSample&)> fn);

 private:
  // mu_ for one call. On release, wakes the real-clock driver when the call scheduled work
  // ahead of the instant the driver sleeps until, after unlocking (woken under mu_, the driver
  // would only block on it and cost the caller a second futex wake), unless wake-ups are held.
  class CallLock {
   public:
    explicit CallLock(StorageManager& sm) : sm_(sm) { sm_.mu_.lock(); }
    ~CallLock();
    CallLock(const CallLock&) = delete;
    CallLock& operator=(const CallLock&) = delete;

   private:
    StorageManager& sm_;
  };
  // Under mu_: whether the driver must be woken now (wake-ups held count from the first).
  bool wake_due_locked();
  // How long a held wake-up may wait for the holder's next call (docs/causal-pacing.md, "Who
  // runs the engine's work").
  static constexpr int64_t kHeldWakeMaxNs = 50'000;

  struct BuiltL2;  // an adapter open() built, with its spec's eviction block
  StorageManager(const EngineConfig& cfg, util::Clock& clock, std::vector<BuiltL2> l2);
  void attach_l2(std::vector<BuiltL2> l2);
  // submit_prefetch_task's phases (storage_manager_prefetch.cc), under mu_.
  [[noreturn]] void reject_prefetch(const std::string& why);  // counted, then thrown
  void validate_prefetch(const trace::PrefetchSpec& spec);
  void submit_warm_prefetch(const trace::PrefetchSpec& spec, bool can_l2, PrefetchHandle& h);
  void submit_sparse_prefetch(const trace::PrefetchSpec& spec, const std::vector<uint8_t>& present,
                              bool can_l2, PrefetchHandle& h);
  void submit_prefix_prefetch(const trace::PrefetchSpec& spec, const std::vector<uint8_t>& present,
                              bool can_l2, PrefetchHandle& h);
  // A LOOKUP prefetch's key decided missed on the call itself (no L2 to ask), under mu_.
  void classify_now(const trace::ObjectKey& k, stats::MissClass cls);
  void on_l2_completion(size_t adapter_index, L2Completion c);
  void count_l2_failure(size_t adapter_index, const L2Completion& c);
  void schedule_tick(int64_t at);
  void tick();
  void driver_loop();
  void wake();
  void close_locked_steps();
  void refresh_gauges();

  EngineConfig cfg_;
  util::Clock& clock_;
  std::string digest_;
  mutable std::mutex mu_;
  EventLoop loop_;
  LoopClock loop_clock_{loop_};
  EngineCounters counters_;
  std::unique_ptr<L1Manager> l1_;
  std::unique_ptr<EvictionPolicy> policy_;
  std::unique_ptr<EvictionBridge> bridge_;
  std::vector<std::unique_ptr<L2Adapter>> adapters_;
  std::vector<std::unique_ptr<L2EvictionController>> l2_eviction_;  // null: not wired
  std::unique_ptr<MissClassifier> misses_;                          // cfg_.classify_misses only
  std::unique_ptr<StoreController> store_;
  std::unique_ptr<PrefetchController> prefetch_;
  int64_t tick_period_ns_;
  // cfg_.follow_trace_time: the L1's clock, and the trace instant of the next eviction tick.
  TraceTimeClock trace_clock_;
  int64_t next_trace_tick_ns_ = 0;
  bool evictor_stopped_ = false;
  bool closed_ = false;

  struct Lease {
    KeyList found_keys;
    int64_t readers = 1;
  };
  std::vector<Lease> leases_;

  bool samples_on_ = false;
  std::vector<L2OpSample> samples_;
  std::function<void(const L2OpSample&)> observer_;
  std::vector<stats::L2FailureRecord> l2_failures_;  // one per adapter, even without failures
  engine::L2FailureListener failure_listener_;

  // Real-clock driver. Under mu_: the instant it sleeps until (recomputed each time it wakes),
  // whether a caller holds wake-ups back (hold_wakeups) and since when one is held (0: none).
  int64_t driver_deadline_ns_ = 0;
  bool hold_wakeups_ = false;
  int64_t wake_held_since_ns_ = 0;
  std::thread driver_;
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool wake_flag_ = false;
  bool driver_stop_ = false;
};

}  // namespace fleet::storage
