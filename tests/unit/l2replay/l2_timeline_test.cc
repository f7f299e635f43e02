// The L2 replay's per-second timeline (l2replay/include/fleet/l2replay/l2_timeline.h): the
// windows' counts add up to the run's totals, each window's percentiles are exact over its
// completions, idle seconds are skipped, and the JSON carries one column entry per window.
#include "fleet/l2replay/l2_timeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fleet/engine/engine_config_json.h"
#include "fleet/l2replay/l2_prepare.h"
#include "fleet/l2replay/l2_replayer.h"
#include "fleet/l2replay/l2_timeline_json.h"
#include "test_paths.h"

namespace fleet::l2replay {
namespace {

constexpr int64_t kS = 1'000'000'000;

TEST(L2Timeline, WindowsAreExactAndIdleSecondsAreSkipped) {
  L2TimelineSampler t(100);  // the loop started at t = 100 ns
  for (int i = 1; i <= 100; ++i) {
    t.dispatched(L2Op::Store, 100 + i, i * 10);
    t.completed(L2Op::Store, 100 + i * 1000, int64_t{i} * 1000, 4096, i == 7);
  }
  t.dispatched(L2Op::Unlock, 100 + 3 * kS + 5, 0);  // seconds 1 and 2 are idle
  const std::vector<L2Window> w = t.finish();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].index, 0);
  EXPECT_EQ(w[1].index, 3);
  const L2WindowOp& s = w[0].ops[0];
  EXPECT_EQ(s.dispatched, 100u);
  EXPECT_EQ(s.completed, 100u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.bytes_moved, 409600u);
  EXPECT_EQ(s.latency_p50_ns, 50'000);  // nearest rank: the 50th of 1..100 µs
  EXPECT_EQ(s.latency_p99_ns, 99'000);
  EXPECT_EQ(s.latency_max_ns, 100'000);
  EXPECT_EQ(s.schedule_lag_max_ns, 1000);
  EXPECT_EQ(w[1].ops[static_cast<size_t>(L2Op::Unlock)].dispatched, 1u);
  EXPECT_EQ(w[1].ops[0].completed, 0u);
}

TEST(L2Timeline, TheFixturesWindowsAddUpToTheTotals) {
  storage::EngineConfig cfg;
  storage::add_l2_adapter(cfg, {{"type", "mock"}, {"max_size_gb", 4}, {"mock_bandwidth_gb", 100}});
  util::VirtualClock clock;
  L2Plan plan = build_l2_plan(::fleet::test::shared_fixtures() + "/l2/l2_small.lct").value();
  auto target = L2Target::create(cfg, clock).value();
  ASSERT_TRUE(prepare_l2(plan, *target, 10).ok());
  L2ReplayOptions o;
  o.speed = 1;
  const L2ReplayResult r = replay_l2_plan(plan, *target, o).value();
  ASSERT_EQ(r.timeline.size(), 5u);  // 4.47 s of trace at 1x
  for (size_t k = 0; k < kL2OpCount; ++k) {
    uint64_t dispatched = 0, completed = 0, failed = 0, bytes = 0;
    int64_t last = -1;
    for (const L2Window& w : r.timeline) {
      EXPECT_GT(w.index, last);
      last = w.index;
      const L2WindowOp& op = w.ops[k];
      dispatched += op.dispatched, completed += op.completed, failed += op.failed;
      bytes += op.bytes_moved;
      EXPECT_LE(op.latency_p50_ns, op.latency_p99_ns);
      EXPECT_LE(op.latency_p99_ns, op.latency_max_ns);
    }
    EXPECT_EQ(dispatched, r.ops[k].submitted) << k;
    EXPECT_EQ(completed, r.ops[k].completed) << k;
    EXPECT_EQ(failed, r.ops[k].failed) << k;
    EXPECT_EQ(bytes, r.ops[k].bytes_moved) << k;
  }
  const nlohmann::json j = l2_timeline_json(r);
  EXPECT_EQ(j["index"].size(), 5u);
  EXPECT_EQ(j["by_operation"]["store"]["dispatched"].size(), 5u);
  EXPECT_EQ(j["by_operation"].size(), 5u);
}

}  // namespace
}  // namespace fleet::l2replay
