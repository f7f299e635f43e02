// Live progress while a replay runs: on a terminal, one line redrawn in place (records,
// trace time vs wall time, current lag, ops/s, ETA, hit rate, nodes alive); otherwise a plain log
// line every few seconds. It needs no pre-scan: the ETA comes from the fraction of input consumed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace fleet::report {

struct ProgressSample {
  uint64_t records = 0;
  uint64_t failed = 0;
  double trace_time_s = 0.0;  // recorded time reached
  int64_t lag_ns = 0;         // lateness of the last dispatched record
  double fraction = -1.0;     // of the input consumed, or < 0 when unknown
  double hit_rate = -1.0;     // L1 + L2 over the latest windows, or < 0 when none yet
  int nodes_alive = -1;       // fleet runs: nodes still running (< 0: embedded)
  int nodes_total = 0;
};

class ProgressReporter {
 public:
  enum class Mode { Auto, Always, Never };
  ProgressReporter(std::function<ProgressSample()> sample, Mode mode);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;
  void stop();

 private:
  void loop(bool tty);
  std::function<ProgressSample()> sample_;
  std::atomic<bool> stop_{false};
  std::mutex wake_mu_;  // stop() wakes the loop's wait at once (a 50 ms sleep delayed every exit)
  std::condition_variable wake_;
  std::thread thread_;
  bool tty_ = false;
};

}  // namespace fleet::report
