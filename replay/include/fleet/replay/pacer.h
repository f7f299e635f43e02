// Absolute-deadline pacing (docs/protocol.md § 3): record target = T0 + (t_mono - t_origin) / speed
// on the monotonic clock, so no drift accumulates; speed 0 = as fast as possible, order kept. The
// wait itself is the clock's (hybrid sleep-then-spin for the real clock, a jump for the virtual
// one), so lateness stays in microseconds.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>

#include "fleet/util/clock.h"

namespace fleet::replay {

class Pacer {
 public:
  // t0_ns: the run's start instant on `clock`; t_origin: the trace time that maps to T0.
  Pacer(util::Clock& clock, int64_t t0_ns, double t_origin, double speed)
      : clock_(clock), t0_ns_(t0_ns), t_origin_(t_origin), speed_(speed) {}

  bool paced() const { return speed_ > 0.0; }
  // Sets the trace time that maps to T0 (the first record's, unless fixed up front).
  void set_origin(double t_origin) { t_origin_ = t_origin; }
  double origin() const { return t_origin_; }
  int64_t t0_ns() const { return t0_ns_; }

  // Scheduled dispatch instant of a record; with speed 0 the record is due at once (T0).
  int64_t target_ns(double t_mono) const {
    if (!paced()) return t0_ns_;
    double offset_s = (t_mono - t_origin_) / speed_;
    if (offset_s <= 0.0) return t0_ns_;  // t_mono is not guaranteed monotone: never wait back
    return t0_ns_ + static_cast<int64_t>(std::llround(offset_s * 1e9));
  }

  // Waits until `target_ns` if it is still ahead; never runs ahead, never skips.
  void wait_until(int64_t target_ns, const std::atomic<bool>* stop = nullptr) {
    if (paced()) wait_for_instant(clock_, target_ns, stop);
  }

  // Waits for an absolute instant whatever the speed. A real-clock wait is cut into slices so
  // that a stop request (ABORT, lost coordinator) ends it within ~50 ms: a trace with a long
  // idle gap must not keep a worker busy, or its network thread blocked joining the session.
  static void wait_for_instant(util::Clock& clock, int64_t target_ns,
                               const std::atomic<bool>* stop = nullptr) {
    constexpr int64_t kSliceNs = 50'000'000;
    for (int64_t now = clock.now_ns(); now < target_ns; now = clock.now_ns()) {
      if (stop && stop->load(std::memory_order_relaxed)) return;
      const bool last = clock.is_virtual() || target_ns - now <= kSliceNs;
      clock.sleep_until(last ? target_ns : now + kSliceNs);
    }
  }

 private:
  util::Clock& clock_;
  int64_t t0_ns_;
  double t_origin_;
  double speed_;
};

}  // namespace fleet::replay
