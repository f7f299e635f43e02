// One 1-second window of an L2 replay's timeline (l2_timeline.h), per operation kind.
#pragma once

#include <array>
#include <cstdint>

#include "fleet/trace/l2_record.h"

namespace fleet::l2replay {

struct L2WindowOp {
  uint64_t dispatched = 0;
  uint64_t completed = 0;  // store / lookup / load completions (unlocks and deletes have none)
  uint64_t failed = 0;     // stores the target reported failed
  uint64_t bytes_moved = 0;
  int64_t latency_p50_ns = 0, latency_p99_ns = 0, latency_max_ns = 0;  // of the completions
  int64_t schedule_lag_max_ns = 0;                                     // of the dispatches
};

struct L2Window {
  int64_t index = 0;  // the window starts `index` seconds after the loop's start
  std::array<L2WindowOp, static_cast<size_t>(trace::L2Op::None)> ops;  // by L2Op
};

}  // namespace fleet::l2replay
