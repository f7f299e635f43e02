// Engine time that follows the replay through the trace (issue 40, causal pacing): now_ns() is
// the trace instant (since the run's first record) of the last record the session issued. A
// causal schedule holds records, so it achieves less than the asked speed, and by how much
// varies through the run; an engine clock at the asked pace would give each trace second more
// eviction ticks than the recorded server had. Following the trace keeps the L1 lock TTLs and
// the eviction tick in trace time, whatever the pace (docs/causal-pacing.md § Engine time).
#pragma once

#include <atomic>
#include <cstdint>

#include "fleet/util/clock.h"

namespace fleet::storage {

class TraceTimeClock final : public util::Clock {
 public:
  int64_t now_ns() const override { return now_.load(std::memory_order_acquire); }
  // Nothing that holds this clock sleeps on it (the L1 model only reads it).
  void sleep_until(int64_t) override {}
  // Moves forward only: the partial schedule issues some records after later-recorded ones.
  void advance_to(int64_t trace_ns) {
    int64_t cur = now_.load(std::memory_order_relaxed);
    while (trace_ns > cur && !now_.compare_exchange_weak(cur, trace_ns)) {
    }
  }

 private:
  std::atomic<int64_t> now_{0};
};

}  // namespace fleet::storage
