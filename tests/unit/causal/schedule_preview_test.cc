// The plan preview's schedule, derived by hand: scaled instants, holds by gap edges, the busy
// dispatcher, the critical path and the achievable speed-up.
#include "fleet/causal/schedule_preview.h"

#include <gtest/gtest.h>

namespace fleet::causal {
namespace {

trace::Op op(trace::OpKind kind, double t, char k) {
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  trace::ObjectKey key;
  key.chunk_hash = std::string(1, k);
  key.model_name = "m";
  o.keys = {key};
  return o;
}

std::vector<trace::Op> two_writes() {
  return {
      op(trace::OpKind::ReserveWrite, 100.000, 'a'), op(trace::OpKind::FinishWrite, 100.010, 'a'),
      op(trace::OpKind::ReserveWrite, 100.011, 'b'), op(trace::OpKind::FinishWrite, 100.012, 'b')};
}

SchedulePreview preview(Pacing pacing, int64_t cost_ns = 0) {
  PreviewOptions o;
  o.speed = 10;
  o.pacing = pacing;
  o.call_cost_ns = cost_ns;
  SchedulePreviewer p(o);
  for (const auto& x : two_writes()) p.add(x);
  return p.finish();
}

TEST(SchedulePreview, CausalHoldsEachFinishItsRecordedGapAfterItsReserve) {
  const SchedulePreview s = preview(Pacing::Causal);
  // reserve a at 0; finish a held to 0 + 10 ms; reserve b due at 1.1 ms but the dispatcher is
  // ordered: 10 ms; finish b at 10 + 1 ms. Wall 11 ms for 12 ms of trace.
  EXPECT_EQ(s.records, 4u);
  EXPECT_NEAR(s.trace_s, 0.012, 1e-9);
  EXPECT_NEAR(s.predicted_wall_s, 0.011, 1e-9);
  EXPECT_NEAR(s.achievable_speedup, 12.0 / 11.0, 1e-6);
  EXPECT_EQ(s.held_records, 2u);
  EXPECT_NEAR(s.hold_s, 0.009 + 0.0098, 1e-9);
  EXPECT_NEAR(s.critical_delay_s, 0.0098, 1e-9);
  EXPECT_EQ(s.critical_holds[static_cast<size_t>(EdgeKind::WriteLifecycle)], 2u);
  EXPECT_EQ(s.edges[EdgeKind::WriteLifecycle], 2u);
  EXPECT_EQ(s.gap_ns[static_cast<size_t>(EdgeKind::WriteLifecycle)].count(), 2u);
}

TEST(SchedulePreview, UniformScalesEveryGap) {
  const SchedulePreview s = preview(Pacing::Uniform);
  EXPECT_NEAR(s.predicted_wall_s, 0.0012, 1e-9);
  EXPECT_NEAR(s.achievable_speedup, 10.0, 1e-6);
  EXPECT_EQ(s.held_records, 0u);
  EXPECT_EQ(s.edges[EdgeKind::WriteLifecycle], 2u);  // found all the same
}

TEST(SchedulePreview, CallCostsQueueBehindEachOther) {
  const SchedulePreview s = preview(Pacing::Uniform, 1'000'000);  // 1 ms per call
  EXPECT_NEAR(s.predicted_wall_s, 0.004, 1e-9);                   // four calls back to back
}

TEST(SchedulePreview, TextNamesTheAskedAndPossibleSpeedUp) {
  const std::string t = preview(Pacing::Causal).text(10);
  EXPECT_NE(t.find("10x asked, 1.1x possible"), std::string::npos) << t;
  EXPECT_NE(t.find("write_lifecycle"), std::string::npos) << t;
  EXPECT_NE(t.find("holds: 2 write_lifecycle"), std::string::npos) << t;
}

}  // namespace
}  // namespace fleet::causal
