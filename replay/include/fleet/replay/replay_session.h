// One replay of a record stream against one engine: decode (LMCache's skip rules), pace,
// dispatch, time the call, record exact stats and lateness. The embedded coordinator runs it on
// the whole trace; each fleet worker runs the same class on its shard.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/causal/edge_finder.h"
#include "fleet/causal/pacing.h"
#include "fleet/causal/pacing_stats.h"
#include "fleet/engine/engine.h"
#include "fleet/engine/engine_config.h"
#include "fleet/replay/dispatcher.h"
#include "fleet/replay/record_source.h"
#include "fleet/replay/window_sampler.h"
#include "fleet/stats/lateness_stats.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/stats/stats_collector.h"
#include "fleet/util/clock.h"

namespace fleet::wire {
struct NodeResult;  // fleet/wire/node_result.h
}

namespace fleet::replay {

struct SessionOptions {
  double speed = 1.0;  // 1 = recorded pace, 2 = twice as fast, 0 = as fast as possible
  // Causal: gap edges keep their recorded length (docs/causal-pacing.md). Edges are tracked
  // (and reported in SessionResult::pacing) for causal runs and for uniform runs faster than 1x,
  // where they show what the speed-up raced.
  causal::Pacing pacing = causal::Pacing::Uniform;
  causal::Schedule schedule = causal::Schedule::Ordered;
  causal::EdgeFinderOptions edge_ttl;  // the engine's lock TTLs
  double engine_time_scale = 1.0;      // reported only: the engine was built with it
  // The engine was built to follow the trace's time: tell it each record's trace instant
  // before issuing it (Engine::follow_trace_time).
  bool engine_follows_trace = false;
  // Absolute start on the clock; 0 = "now" when run() starts.
  int64_t t0_ns = 0;
  // Trace time that maps to T0. NaN = the first record's t_mono (docs/architecture.md); 0
  // reproduces LMCache's replay, which also waits out the idle time before the first call.
  double t_origin = std::numeric_limits<double>::quiet_NaN();
  // Virtual clock only: how far past the last record to keep running engine events so that
  // in-flight L2 work completes deterministically before close.
  int64_t virtual_drain_ns = 10'000'000'000;
  bool drain_on_close = true;
  // Receives each finished 1-second window of the run (fleet_timeseries.csv), on the replay
  // thread; none: no windows are cut.
  WindowSink on_window;
  // Read and decode records on a second thread, a bounded ring ahead of the dispatch
  // (decoded_stream.h). Same records, order and outcomes; worth it when a core is free.
  bool decode_ahead = false;
  // Starts each log line about L2 failures (a worker's "worker NAME: "); none when embedded.
  std::string log_prefix;
};

// Per-record notification (verbose, jsonl, live progress). Skipped records are reported as
// failed with latency 0, exactly as LMCache's callback does.
struct RecordEvent {
  uint64_t n = 0;  // 1-based count of records seen
  std::string_view qualname;
  double latency_ms = 0.0;
  bool failed = false;
  bool skipped = false;
  const std::string* error = nullptr;
};
using RecordCallback = std::function<void(const RecordEvent&)>;

struct SessionResult {
  uint64_t total = 0;
  uint64_t replayed = 0;
  uint64_t skipped = 0;
  uint64_t failed = 0;
  double duration_s = 0.0;
  bool stopped_early = false;
  stats::StatsCollector stats;
  stats::LatenessStats lateness;  // all paced records
  uint64_t feed_late = 0;         // record became available after its scheduled time
  uint64_t engine_late = 0;       // available in time, dispatched late (>1 ms)
  int64_t t0_ns = 0;
  int64_t first_dispatch_ns = 0;  // on the session's clock; 0 if nothing dispatched
  DispatchCounters dispatch;
  std::string engine_name;
  std::string engine_digest;
  nlohmann::json engine_config;
  nlohmann::json engine_counters;
  nlohmann::json l2;     // contention view: see l2_windows.h
  uint64_t windows = 0;  // handed to on_window
  // The adapters whose L2 operations failed, times since T0.
  std::vector<stats::L2FailureRecord> l2_failures;
  std::optional<causal::PacingStats> pacing;  // when edges were tracked
  // Miss attribution, when the engine classified misses (EngineConfig::classify_misses).
  std::optional<stats::MissSummary> misses;
  std::vector<stats::MissEvent> miss_events;
};

// Live numbers another thread may read while run() is going (progress line, heartbeats).
struct SessionProgress {
  std::atomic<uint64_t> records{0};
  std::atomic<uint64_t> failed{0};
  std::atomic<int64_t> last_lateness_ns{0};
  std::atomic<double> trace_time_s{0.0};  // t_mono - origin of the last dispatched record
  std::atomic<double> fraction{-1.0};
};

class ReplaySession {
 public:
  ReplaySession(engine::Engine& engine, util::Clock& clock, SessionOptions options);
  ReplaySession(const ReplaySession&) = delete;
  ReplaySession& operator=(const ReplaySession&) = delete;

  SessionResult run(RecordSource& source, const RecordCallback& on_record = {});
  // Asks run() to stop after the current record (Ctrl-C, ABORT); results stay consistent.
  void request_stop() { stop_.store(true, std::memory_order_relaxed); }
  const SessionProgress& progress() const { return progress_; }

 private:
  class Run;  // one run() call: its state and phases (replay_session.cc)
  void run_engine_events_until(int64_t t_ns);

  engine::Engine& engine_;
  util::Clock& clock_;
  SessionOptions options_;
  std::atomic<bool> stop_{false};
  SessionProgress progress_;
};

// The node's report of a finished session (embedded run or DONE message); callers include
// fleet/wire/node_result.h.
// By value: pass an rvalue to move the samples instead of copying them.
wire::NodeResult to_node_result(SessionResult r, std::string name);

// The edge finder's TTLs: the engine's L1 lock TTLs (an edge older than them is forgotten, an
// order edge as long as them is kept whole).
causal::EdgeFinderOptions edge_ttl_of(const storage::EngineConfig& cfg);

}  // namespace fleet::replay
