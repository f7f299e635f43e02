#include "fleet/util/clock.h"

#include <time.h>

namespace fleet::util {

int64_t RealClock::now_ns() const {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void RealClock::sleep_until(int64_t deadline_ns) {
  int64_t now = now_ns();
  if (deadline_ns - now > spin_ns_) {
    // Absolute sleep: no drift accumulates whatever the wake-up latency.
    int64_t wake = deadline_ns - spin_ns_;
    timespec ts{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
  }
  while (now_ns() < deadline_ns) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}

RealClock& RealClock::instance() {
  static RealClock clock;
  return clock;
}

}  // namespace fleet::util
