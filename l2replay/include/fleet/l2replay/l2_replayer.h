// Drives one L2 adapter through a plan (docs/l2-traces.md, "Pacing"): an operation is issued at
// max(T0 + (t_mono - origin) / speed, the completion of its last dependency), with speed 0 as
// fast as possible (dependencies still kept). No head-of-line blocking: an operation whose
// dependencies are done goes out even when one earlier in the file still waits. Stores, lookups
// and loads complete when the adapter says so; unlocks and deletes are fire-and-forget.
#pragma once

#include <atomic>
#include <limits>

#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_replay_result.h"
#include "fleet/l2replay/l2_target.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

// What a running replay has done, for another thread (a worker's PROGRESS): published once per
// loop pass, so reading it costs the loop nothing per operation.
struct L2LiveProgress {
  std::atomic<bool> started{false};       // the loop runs: the figures below are its
  std::atomic<uint64_t> total{0};         // the plan's operations
  std::atomic<uint64_t> dispatched{0};    // issued
  std::atomic<uint64_t> finished{0};      // completed, or issued when fire-and-forget
  std::atomic<uint64_t> failed{0};        // store tasks the target reported failed
  std::atomic<int64_t> last_lag_ns{0};    // schedule lag of the latest dispatch
  std::atomic<double> trace_time_s{0.0};  // t_mono of the latest dispatch minus the origin
};

struct L2ReplayOptions {
  double speed = 1.0;                       // 0: as fast as possible
  double drain_timeout_s = 60.0;            // no progress this long: an error
  double progress_every_s = 5.0;            // the fork's progress line (spdlog info); 0: none
  const std::atomic<bool>* stop = nullptr;  // set: stop issuing, report what was done
  // The t_mono the loop's start stands for; NaN: the plan's first operation. A fleet gives
  // every node the same one, so that their shares keep one timeline.
  double origin_t_mono = std::numeric_limits<double>::quiet_NaN();
  L2LiveProgress* live = nullptr;  // set: kept current while the loop runs
  // Compute plan_sha256 (l2_timeline_json.h) into the result on a helper thread while the loop
  // runs: the replay leaves a core idle, and the stats need the digest right after it.
  bool digest_plan = false;
};

// Replays `plan` against `target` (the plan is only read). An error "L2 replay made no progress for
// S s (...)" when nothing progresses for drain_timeout_s.
Result<L2ReplayResult> replay_l2_plan(L2Plan& plan, L2Target& target,
                                      const L2ReplayOptions& options);

}  // namespace fleet::l2replay
