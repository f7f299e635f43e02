// A counted lock whose holds all expire together, TTL after the most recent lock(): the native
// TTLLock LMCache's L1 uses for read and write locks (docs/era3-reference.md §2.2). Time is passed
// in as milliseconds on the engine's Clock so virtual time drives expiry.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace fleet::storage {

class TTLLock {
 public:
  TTLLock() = default;
  explicit TTLLock(int64_t ttl_ms) : ttl_ms_(ttl_ms) {}

  void lock(int64_t now_ms) {
    if (now_ms >= expiration_ms_) {
      counter_ = 1;
    } else {
      ++counter_;
    }
    expiration_ms_ = now_ms + ttl_ms_;
  }
  // Never looks at the expiration; the count only stops at zero.
  void unlock() { counter_ = std::max<int64_t>(counter_ - 1, 0); }
  bool is_locked(int64_t now_ms) const { return counter_ > 0 && now_ms < expiration_ms_; }

  int64_t count() const { return counter_; }
  int64_t expiration_ms() const { return expiration_ms_; }

 private:
  int64_t ttl_ms_ = 0;
  int64_t counter_ = 0;
  int64_t expiration_ms_ = std::numeric_limits<int64_t>::min();
};

}  // namespace fleet::storage
