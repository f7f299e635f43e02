// The plan preview of a paced run (--plan-only --speed S): the schedule a replay would follow,
// simulated over the records without an engine, so a user sees before any run which edges the
// trace has, how long their gaps are, what holds the schedule back and what speed-up is
// achievable ("10x asked, 8.7x possible"). Calls are assumed to take `call_cost_ns` each.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "fleet/causal/edge_finder.h"
#include "fleet/causal/pacing.h"
#include "fleet/causal/partial_schedule.h"
#include "fleet/stats/log_linear_histogram.h"

namespace fleet::causal {

// What the predicted wall leaves out, printed under it: the preview knows no backend, and on
// a real one that cannot land 10x the recorded stores and loads in time the run waits for them
// (measured: 42 % past the prediction with 512 KiB chunks on this VM's Redis, 3.2 % with 64 KiB;
// docs/benchmarks.md, "Causal speed-up").
inline constexpr const char* kPreviewAssumes =
    "  assumes: calls return and L2 work lands at once (a slower backend adds waits: "
    "pacing.l2_await_s)\n";

struct PreviewOptions {
  double speed = 1.0;  // > 0
  Pacing pacing = Pacing::Causal;
  Schedule schedule = Schedule::Ordered;
  EdgeFinderOptions ttl;
  int64_t call_cost_ns = 0;
};

struct SchedulePreview {
  uint64_t records = 0;
  double trace_s = 0.0;             // last - first recorded t_mono
  double predicted_wall_s = 0.0;    // T0 to the last record's simulated return
  double achievable_speedup = 0.0;  // trace_s / predicted_wall_s (0 for an empty trace)
  EdgeCounts edges;
  std::array<stats::LogLinearHistogram, kEdgeKindCount> gap_ns;  // recorded gap per edge found
  uint64_t held_records = 0;
  double hold_s = 0.0;
  uint64_t overtakes = 0;  // partial: records issued while an earlier one was parked
  // The critical path: the holds since the last record that issued on its scaled instant,
  // which together make the end of the run late.
  std::array<uint64_t, kEdgeKindCount> critical_holds{};
  double critical_delay_s = 0.0;  // the last record's issue - its scaled instant

  std::string text(double asked_speed) const;  // the terminal's preview block
};

class SchedulePreviewer {
 public:
  explicit SchedulePreviewer(PreviewOptions options);
  void add(const trace::Op& op);
  SchedulePreview finish();

 private:
  void add_partial(const trace::Op& op, int64_t scaled);
  void drain(int64_t limit);
  // Simulates one call issued no earlier than `target` (and not before the dispatcher is free).
  void issue(const trace::Op& op, int64_t target, int64_t scaled, const Hold& hold);

  PreviewOptions options_;
  EdgeFinder finder_;
  PartialSchedule partial_{finder_};
  uint64_t seq_ = 0;
  SchedulePreview out_;
  bool started_ = false;
  double t_first_ = 0.0, t_last_ = 0.0;
  int64_t free_at_ns_ = 0;  // the dispatcher is busy until then
  int64_t last_issue_ns_ = 0, last_scaled_ns_ = 0;
  int64_t hold_ns_ = 0;
};

}  // namespace fleet::causal
