// The interface the replay dispatcher drives: one method per typed op (docs/architecture.md). The
// native StorageManager and the `noop` engine implement it. Per-key outcomes that LMCache only
// reports in return values (OUT_OF_MEMORY, KEY_NOT_EXIST, ...) go to the engine's counters; a
// CallResult is `failed` only where LMCache's StorageManager would raise.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/engine/cache_outcome.h"
#include "fleet/engine/counters.h"
#include "fleet/stats/l2_failures.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/trace/types.h"

namespace fleet::storage {
struct EngineConfig;
}

namespace fleet::engine {

struct CallResult {
  bool failed = false;
  std::string error;  // the exception LMCache would raise, for logs and --verbose
  static CallResult ok() { return {}; }
  static CallResult fail(std::string why) { return {true, std::move(why)}; }
};

// State of one open `read_prefetched_results` context between __enter__ and __exit__.
struct ReadContext {
  std::vector<trace::ObjectKey> keys;       // as recorded
  std::vector<trace::ObjectKey> good_keys;  // keys that were readable at enter
  bool all_good = false;
};

// One completed L2 operation, for the contention view (per-window op rates and latency).
struct L2Op {
  int adapter = 0;
  const char* kind = "";  // "store", "lookup", "load"
  int64_t end_ns = 0;     // on the engine's clock
  int64_t latency_ns = 0;
  uint64_t bytes = 0;
  bool ok = true;
};

// Told of each failed L2 operation with its adapter's updated record (l2_failures.h).
using L2FailureListener = std::function<void(const stats::L2FailureRecord&)>;

class Engine {
 public:
  virtual ~Engine() = default;

  virtual std::string_view name() const = 0;

  virtual CallResult reserve_write(const std::vector<trace::ObjectKey>& keys,
                                   const trace::MemoryLayout& layout, trace::WriteMode mode) = 0;
  virtual CallResult finish_write(const std::vector<trace::ObjectKey>& keys) = 0;
  virtual CallResult abort_write(const std::vector<trace::ObjectKey>& keys) = 0;
  virtual CallResult submit_prefetch(const trace::PrefetchSpec& spec,
                                     std::string_view external_request_id, bool skip_l2) = 0;
  virtual CallResult read_enter(const std::vector<trace::ObjectKey>& keys, ReadContext& ctx) = 0;
  virtual CallResult read_exit(ReadContext& ctx) = 0;
  virtual CallResult finish_read(const std::vector<trace::ObjectKey>& keys, int64_t read_locks) = 0;

  // Runs every internal event (eviction ticks, L2 completions, controller steps) due at or
  // before `now_ns` on the engine's Clock. With a virtual clock the replay session calls it
  // before each dispatch; with the real clock the engine's own thread does.
  virtual void run_until(int64_t /*now_ns*/) {}
  // A paced real-clock dispatch thread runs the engine's due work itself while it waits
  // (docs/causal-pacing.md, "Who runs the engine's work"). With `on`, a call that queues work
  // does not wake the engine's own thread (on a VM that futex wake costs the caller 8-20 us,
  // inside the timed call): the work waits for the caller's next run_until() or
  // release_wakeups(), or at most 50 us of later calls. Off by default and when the run ends.
  virtual void hold_wakeups(bool /*on*/) {}
  // Wakes the engine's thread now if work it should run is held back (the caller is about to
  // wait long enough to pay for the wake-up, or to sleep).
  virtual void release_wakeups() {}
  // The replay is about to issue a record recorded `trace_ns` after the run's first record.
  // Engines built to follow the trace's time (EngineConfig::follow_trace_time) run the
  // eviction ticks due by then and move their lock TTLs' clock; others ignore it.
  virtual void follow_trace_time(int64_t /*trace_ns*/) {}
  // Causal pacing's completion edges (docs/causal-pacing.md): a write-behind store of one of
  // `keys` has not landed yet / a prefetch naming one of them has not finished. Only engines that
  // follow the trace's time track them; others answer false.
  virtual bool store_pending(const std::vector<trace::ObjectKey>& /*keys*/) const { return false; }
  virtual bool prefetch_pending(const std::vector<trace::ObjectKey>& /*keys*/) const {
    return false;
  }
  // The trace instant (follow_trace_time's) at which the oldest L2 store still in flight was
  // submitted, INT64_MAX when none is (or the engine does not track it): the session keeps the
  // trace from running more than the causal horizon ahead of the backend.
  virtual int64_t oldest_store_trace_ns() const { return INT64_MAX; }
  // Miss attribution (EngineConfig::classify_misses; docs/causal-pacing.md "Miss attribution"):
  // the record about to be issued (its recorded t_wall), the misses so far by class, and the
  // misses themselves (taken once, at the end). Engines that do not classify ignore and return
  // nothing.
  virtual void set_record(double /*t_wall*/) {}
  virtual std::optional<stats::MissSummary> miss_summary() const { return std::nullopt; }
  virtual std::vector<stats::MissEvent> take_misses() { return {}; }
  // Earliest pending internal event, or INT64_MAX when idle.
  virtual int64_t next_event_ns() const { return INT64_MAX; }

  // Ends the run: drains in-flight L2 stores when `drain`, then stops controllers (era-3 close
  // order). Idempotent.
  virtual void close(bool drain) = 0;

  // The configuration the engine was built from, or nullptr for an engine without one; the edge
  // renders it as LMCache's StorageManagerConfig dict (storage::to_lmcache_json in
  // fleet/engine/engine_config_json.h, docs/engine.md § Configuration). And its SHA-256 digest
  // computed as LMCache computes sm_config_digest.
  virtual const storage::EngineConfig* engine_config() const { return nullptr; }
  virtual std::string config_digest() const = 0;
  // Every counter the engine keeps (docs/engine.md § Counters), in output order; the edge turns
  // them into JSON with engine::to_json (fleet/engine/counters_json.h).
  virtual Counters counters() const = 0;
  // The cache accounting so far (also in counters() as "cache"): cheap enough to sample once
  // per window of the run. Engines without a cache report zeros.
  virtual CacheOutcome cache_outcome() const { return {}; }

  // L2 operations completed since the last call (recording starts with the first call to
  // enable_l2_ops(true)); engines without L2 return nothing.
  virtual void enable_l2_ops(bool /*on*/) {}
  virtual std::vector<L2Op> take_l2_ops() { return {}; }

  // Every adapter's L2 failures so far, one record per adapter that failed, times on the
  // engine's clock; engines without L2 have none.
  virtual std::vector<stats::L2FailureRecord> l2_failures() const { return {}; }
  // Called after each failed L2 operation, under the engine's lock on whichever thread completed
  // it: must be quick and must not call the engine. An empty function removes it.
  virtual void set_l2_failure_listener(L2FailureListener /*fn*/) {}
};

}  // namespace fleet::engine
