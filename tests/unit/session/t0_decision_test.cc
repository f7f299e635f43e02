// T0 from readiness: decided only once every live worker is READY and the first batches are
// queued, then the latest of those instants plus a margin that grows with the clock
// estimates' error; --start-delay and --start-at are floors, and the decision names which one
// held T0 back.
#include "fleet/coordinator/session/t0_decision.h"

#include <gtest/gtest.h>

namespace fleet::session {
namespace {

constexpr int64_t kMs = 1'000'000;

NodeReadiness ready(const char* name, int64_t at_ms, int64_t build_ms, int64_t unc_us = 0) {
  return {name, false, true, at_ms * kMs, build_ms * kMs, unc_us * 1000};
}

T0Inputs inputs(int64_t queued_ms = 1) {
  T0Inputs in;
  in.handshake_end_ns = 0;
  in.now_ns = 0;
  in.queued_ns = queued_ms * kMs;
  return in;
}

TEST(T0Decision, WaitsForEveryLiveWorkerAndForTheFirstBatches) {
  NodeReadiness pending = ready("b", 0, 0);
  pending.ready = false;
  EXPECT_FALSE(decide_t0({ready("a", 5, 4), pending}, inputs()));
  EXPECT_FALSE(decide_t0({ready("a", 5, 4)}, inputs(/*queued_ms=*/0))) << "nothing queued yet";
  pending.lost = true;  // a lost worker is not waited for
  ASSERT_TRUE(decide_t0({ready("a", 5, 4), pending}, inputs()));
  EXPECT_FALSE(decide_t0({pending}, inputs())) << "no live worker: no start";
}

TEST(T0Decision, IsTheLastReadinessPlusAMarginForTheClocks) {
  const auto d = decide_t0({ready("a", 5, 4, 10), ready("b", 9, 30, 250), ready("c", 7, 2, 40)},
                           inputs(/*queued_ms=*/3));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->ready_ns, 9 * kMs);
  EXPECT_EQ(d->margin_ns, kGoProcessingNs + 4 * 250'000);
  EXPECT_EQ(d->t0_ns, 9 * kMs + d->margin_ns);
  EXPECT_EQ(d->waited_for, "readiness");
  EXPECT_EQ(d->slowest_node, "b");
  EXPECT_EQ(d->slowest_engine_build_ns, 30 * kMs);
  EXPECT_EQ(d->clock_uncertainty_ns, 250'000);
  // Queued later than the last READY, or decided later still: the later instant counts.
  auto in = inputs(/*queued_ms=*/12);
  EXPECT_EQ(decide_t0({ready("a", 5, 4)}, in)->t0_ns, 12 * kMs + kGoProcessingNs);
  in.now_ns = 20 * kMs;
  EXPECT_EQ(decide_t0({ready("a", 5, 4)}, in)->t0_ns, 20 * kMs + kGoProcessingNs);
}

TEST(T0Decision, StartDelayAndStartAtAreFloors) {
  auto in = inputs();
  in.handshake_end_ns = 100 * kMs;
  in.start_delay_ns = 500 * kMs;
  auto d = decide_t0({ready("a", 105, 4)}, in);
  EXPECT_EQ(d->t0_ns, 600 * kMs);
  EXPECT_EQ(d->waited_for, "--start-delay");
  in.start_at_ns = 900 * kMs;
  d = decide_t0({ready("a", 105, 4)}, in);
  EXPECT_EQ(d->t0_ns, 900 * kMs);
  EXPECT_EQ(d->waited_for, "--start-at");
  EXPECT_EQ(d->start_at_missed_ns, 0);
  // Ready after --start-at: T0 moves later (never into the past) and says by how much.
  in.start_delay_ns = 0;
  in.start_at_ns = 50 * kMs;
  d = decide_t0({ready("a", 105, 4)}, in);
  EXPECT_EQ(d->t0_ns, 105 * kMs + kGoProcessingNs);
  EXPECT_EQ(d->waited_for, "readiness");
  EXPECT_EQ(d->start_at_missed_ns, d->t0_ns - 50 * kMs);
}

TEST(T0Decision, JsonIsRelativeToTheHandshake) {
  auto in = inputs(/*queued_ms=*/102);
  in.handshake_end_ns = 100 * kMs;
  const auto j = decide_t0({ready("a", 101, 7)}, in)->to_json(in.handshake_end_ns);
  EXPECT_EQ(j["waited_for"], "readiness");
  EXPECT_DOUBLE_EQ(j["last_ready_after_handshake_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["queued_after_handshake_ms"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["t0_after_handshake_ms"].get<double>(), 2.0 + kGoProcessingNs / 1e6);
  EXPECT_DOUBLE_EQ(j["slowest_engine_build_ms"].get<double>(), 7.0);
  EXPECT_FALSE(j.contains("start_at_missed_ms"));
}

}  // namespace
}  // namespace fleet::session
