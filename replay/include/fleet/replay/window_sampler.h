// Cuts one node's replay into 1-second windows of the run (from T0) and hands each finished
// window to a sink: records, lateness, the cache outcomes decided in it (deltas of the engine's
// CacheOutcome) and the L2 operations that completed in it. The L2 operations it drains are
// kept for the run's contention summary (l2_windows.h), which sees exactly what it saw before.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "fleet/engine/engine.h"
#include "fleet/stats/log_linear_histogram.h"
#include "fleet/stats/run_window.h"

namespace fleet::replay {

using WindowSink = std::function<void(const stats::RunWindow&)>;

class WindowSampler {
 public:
  // No sink: nothing is cut; finish() still collects the L2 operations.
  WindowSampler(engine::Engine& engine, int64_t t0_ns, WindowSink sink);

  // Call with the time of the record about to be counted: closes the window that ended (windows
  // with nothing in them are skipped, not written).
  void advance(int64_t now_ns) {
    if (sink_ && now_ns >= window_end_ns_) close_until(now_ns);
  }
  void count_record(bool failed, bool skipped) {
    ++cur_.records;
    cur_.failed += failed;
    cur_.skipped += skipped;
  }
  void count_lateness(int64_t lateness_ns) {
    if (!sink_) return;
    if (lateness_.count() == 0 || lateness_ns > max_lateness_) max_lateness_ = lateness_ns;
    lateness_.record(lateness_ns);
  }
  // After the engine closed: the current window takes everything left (so the windows add up to
  // the run's final totals) and is handed over. Returns every L2 operation of the run.
  std::vector<engine::L2Op> finish();

 private:
  void close_until(int64_t now_ns);
  void close_current();

  engine::Engine& engine_;
  WindowSink sink_;
  int64_t t0_ns_;
  int64_t window_end_ns_;
  stats::RunWindow cur_;
  stats::LogLinearHistogram lateness_;
  int64_t max_lateness_ = 0;
  engine::CacheOutcome last_;  // the engine's outcome at the previous close
  // A deque: a window closes between two records, and a vector of a long run's L2 operations
  // (millions, 48 bytes each) copied itself into fresh memory there when it doubled: 80-170
  // ms at half a million to a million 24-byte elements on this VM (docs/causal-pacing.md,
  // "What is left, edge by edge").
  std::deque<engine::L2Op> l2_ops_;
};

}  // namespace fleet::replay
