// Bounded logging for what peers cause: a flood of bad messages or refused handshakes must not
// become a flood of log lines (500 misbehaving peers once gave 460 warnings). allow() admits
// `burst` lines per `window_ns`; what it refuses is counted and reported by take_suppressed()
// once the window has passed, as one summary line.
#pragma once

#include <cstdint>

namespace fleet::util {

class LogLimiter {
 public:
  explicit LogLimiter(int burst = 10, int64_t window_ns = 10'000'000'000)
      : burst_(burst), window_ns_(window_ns) {}

  // True: log this one. `now_ns` on any monotonic clock.
  bool allow(int64_t now_ns) {
    roll(now_ns);
    if (in_window_ < burst_) {
      ++in_window_;
      return true;
    }
    ++suppressed_;
    return false;
  }
  // Lines refused in windows that have ended (0 until then); the count restarts.
  uint64_t take_suppressed(int64_t now_ns) {
    roll(now_ns);
    const uint64_t n = reported_;
    reported_ = 0;
    return n;
  }

 private:
  void roll(int64_t now_ns) {
    if (now_ns - window_start_ns_ < window_ns_ && window_start_ns_ != 0) return;
    window_start_ns_ = now_ns == 0 ? 1 : now_ns;
    in_window_ = 0;
    reported_ += suppressed_;
    suppressed_ = 0;
  }

  const int burst_;
  const int64_t window_ns_;
  int64_t window_start_ns_ = 0;
  int in_window_ = 0;
  uint64_t suppressed_ = 0;  // in the current window
  uint64_t reported_ = 0;    // from ended windows, not yet taken
};

}  // namespace fleet::util
