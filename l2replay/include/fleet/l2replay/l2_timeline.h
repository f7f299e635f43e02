// The L2 replay's per-second timeline (docs/l2-traces.md, "Outputs"): for each 1-second window
// of the run (stats::kRunWindowNs, the storage replay's windows) and each operation kind, what
// was dispatched and completed in it, the bytes moved, and the window's latency p50/p99/max
// (exact nearest rank over the window's completions). Windows in which nothing happened are
// not kept (a reader treats a missing index as empty), so a virtual clock crossing a long gap
// costs nothing. The windows' counts add up to the run's totals.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fleet/l2replay/l2_replay_result.h"
#include "fleet/stats/run_window.h"
#include "fleet/trace/l2_record.h"

namespace fleet::l2replay {

// Cuts the replay into windows. Calls come in time order (the loop's clock).
class L2TimelineSampler {
 public:
  explicit L2TimelineSampler(int64_t start_ns);

  void dispatched(trace::L2Op op, int64_t now_ns, int64_t lag_ns) {
    advance(now_ns);
    L2WindowOp& w = cur_.ops[static_cast<size_t>(op)];
    ++w.dispatched;
    if (lag_ns > w.schedule_lag_max_ns) w.schedule_lag_max_ns = lag_ns;
    touched_ = true;
  }
  void completed(trace::L2Op op, int64_t now_ns, int64_t latency_ns, uint64_t bytes, bool failed) {
    advance(now_ns);
    L2WindowOp& w = cur_.ops[static_cast<size_t>(op)];
    ++w.completed;
    w.failed += failed;
    w.bytes_moved += bytes;
    latencies_[static_cast<size_t>(op)].push_back(latency_ns);
    touched_ = true;
  }
  // Closes the last window and hands over every window kept.
  std::vector<L2Window> finish();

 private:
  void advance(int64_t now_ns) {
    if (now_ns >= window_end_ns_) [[unlikely]]
      close_until(now_ns);
  }
  void close_until(int64_t now_ns);
  void close_current();

  int64_t start_ns_;
  int64_t window_end_ns_;
  L2Window cur_;
  bool touched_ = false;
  std::array<std::vector<int64_t>, kL2OpCount> latencies_;  // reused from window to window
  std::vector<L2Window> windows_;
};

}  // namespace fleet::l2replay
