// The replayer against real adapters (docs/l2-traces.md, "Pacing"): dependencies hold (an
// operation goes out only once what it waits for has completed on the target, seen as waits
// under a virtual clock and a slow mock), speed 0 and paced runs, preparation, the outcome
// comparison, the shared fixture end to end, and a real redis-server behind the resp adapter.
#include "fleet/l2replay/l2_replayer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "fleet/engine/engine_config_json.h"
#include "fleet/l2replay/l2_prepare.h"
#include "fleet/l2replay/l2_stats_json.h"
#include "fleet/l2replay/l2_timeline_json.h"
#include "l2_trace_builder.h"
#include "redis_server.h"
#include "test_paths.h"

namespace fleet::l2replay {
namespace {

using namespace ::testing;
using namespace build;

storage::EngineConfig mock_config(double bandwidth_gb = 100) {
  storage::EngineConfig c;
  storage::add_l2_adapter(
      c, {{"type", "mock"}, {"max_size_gb", 4}, {"mock_bandwidth_gb", bandwidth_gb}});
  return c;
}

struct Replayed {
  L2Plan plan;
  L2ReplayResult result;
  L2PrepareResult prepared;
};

Replayed replay(const std::string& path, const storage::EngineConfig& cfg, util::Clock& clock,
                double speed, bool prepare = false, double percent = 100,
                bool digest_plan = false) {
  L2PlanOptions po;
  po.trace_percent = percent;
  Result<L2Plan> plan = build_l2_plan(path, po);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  Replayed run{std::move(plan).value(), {}, {}};
  Result<std::unique_ptr<L2Target>> target = L2Target::create(cfg, clock);
  EXPECT_TRUE(target.ok()) << target.status().message();
  if (prepare) run.prepared = prepare_l2(run.plan, *target.value(), 10).value();
  L2ReplayOptions o;
  o.speed = speed;
  o.drain_timeout_s = 10;
  o.digest_plan = digest_plan;
  run.result = replay_l2_plan(run.plan, *target.value(), o).value();
  return run;
}

// A 1 MiB object through a 1 GiB/s mock: each store or load takes 1/1024 s.
L2TraceBuilder slow_worked_example() {
  L2TraceBuilder b;
  b.store(1, {key(7)}, 1 << 20).store_done(1);
  b.lookup(11, 2, {key(7)}).lookup_done(11, 2, {0});
  b.load(11, 3, {key(7)}, 1 << 20).load_done(11, 3, {0});
  b.unlock(11, {key(7)}).end();
  return b;
}

TEST(L2Replay, SpeedZeroWaitsForEachDependency) {
  util::VirtualClock clock(1'000'000'000);
  const Replayed run = replay(slow_worked_example().write("deps"), mock_config(1), clock, 0);
  const L2ReplayResult& r = run.result;
  EXPECT_EQ(r.dispatched(), 4u);
  EXPECT_EQ(r.dependency_violations, 0u);
  const double transfer = 1.0 / 1024;
  // Without the lookup -> store edge the lookup would go out at 0 with the store.
  EXPECT_NEAR(r.of(L2Op::LookupTask).dependency_wait.max_s, transfer, 1e-6);
  EXPECT_NEAR(r.of(L2Op::LoadTask).dependency_wait.max_s, transfer, 1e-6);
  EXPECT_NEAR(r.of(L2Op::Unlock).dependency_wait.max_s, 2 * transfer, 1e-6);
  EXPECT_NEAR(r.last_dispatch_s, 2 * transfer, 1e-6);
  EXPECT_NEAR(r.total_replay_seconds, 2 * transfer, 1e-6);
  EXPECT_EQ(r.mismatches(), 0u);
  EXPECT_EQ(r.comparisons(), 3u);
  EXPECT_NEAR(r.of(L2Op::Store).latency.summary().p50_ms, 1000 * transfer, 1e-3);
}

TEST(L2Replay, PacedRunKeepsTheScaledSchedule) {
  util::VirtualClock clock(1'000'000'000);
  // Records a millisecond apart: store 0, lookup 2, load 4, unlock 6 ms; at speed 2 half that.
  const Replayed run = replay(build::worked_example().write("paced"), mock_config(), clock, 2);
  const L2ReplayResult& r = run.result;
  EXPECT_NEAR(r.last_dispatch_s, 0.003, 1e-9);
  EXPECT_NEAR(r.of(L2Op::LookupTask).schedule_lag.max_s, 0.0, 1e-9);
  EXPECT_EQ(r.mismatches(), 0u);
  const nlohmann::json j = l2_replay_stats(run.plan, r);
  EXPECT_NEAR(j["source_submission_window_seconds"].get<double>(), 0.003, 1e-9);
  EXPECT_NEAR(j["trace_submission_window_seconds"].get<double>(), 0.006, 1e-9);
  EXPECT_EQ(j["operations_submitted"]["unlock"], 1);
}

// The digest the replay computes beside its loop (the embedded run asks for it) is the plan's,
// and the stats carry it; without it the stats compute the same value themselves.
TEST(L2Replay, PlanDigestComputedDuringTheLoopIsThePlans) {
  const std::string path = ::fleet::test::shared_fixtures() + "/l2/l2_small.lct";
  util::VirtualClock clock(1'000'000'000);
  const Replayed with = replay(path, mock_config(), clock, 0, true, 100, /*digest_plan=*/true);
  const std::string digest = plan_sha256(with.plan);
  EXPECT_EQ(digest.size(), 64u);
  EXPECT_EQ(with.result.plan_sha256, digest);
  EXPECT_EQ(l2_replay_stats(with.plan, with.result)["fleet"]["plan"]["plan_sha256"], digest);
  const Replayed without = replay(path, mock_config(), clock, 0, true);
  EXPECT_EQ(without.result.plan_sha256, "");
  EXPECT_EQ(l2_replay_stats(without.plan, without.result)["fleet"]["plan"]["plan_sha256"], digest);
}

TEST(L2Replay, PreparationMakesTheSourceHitsHit) {
  L2TraceBuilder b;
  b.lookup(11, 2, {key(7)}).lookup_done(11, 2, {0});
  b.load(11, 3, {key(7)}).load_done(11, 3, {0}).unlock(11, {key(7)}).end();
  const std::string path = b.write("prep");
  util::VirtualClock clock;
  const Replayed without = replay(path, mock_config(), clock, 0);
  EXPECT_EQ(without.result.mismatches(), 2u);  // the lookup and the load miss
  EXPECT_THAT(without.result.mismatch_samples,
              ElementsAre("lookup_task:('lookup_task', 0, 2)", "load_task:('load_task', 0, 3)"));
  const Replayed with = replay(path, mock_config(), clock, 0, /*prepare=*/true);
  EXPECT_EQ(with.prepared.prepared_objects, 1u);
  EXPECT_EQ(with.prepared.prepared_bytes, 4096u);
  EXPECT_EQ(with.result.mismatches(), 0u);
}

TEST(L2Replay, FailedSourceStoreIsAMismatchNotAFailure) {
  L2TraceBuilder b;
  b.store(1, {key(1)}).store_done(1, /*ok=*/false).end();
  util::VirtualClock clock;
  const Replayed run = replay(b.write("storefail"), mock_config(), clock, 0);
  EXPECT_EQ(run.result.of(L2Op::Store).outcome_mismatches, 1u);
  const nlohmann::json j = l2_replay_stats(run.plan, run.result);
  EXPECT_EQ(j["outcome_matches_source"], false);
  EXPECT_EQ(j["outcome_mismatch_samples"][0], "store:('store', 0, 1)");
}

TEST(L2Replay, FixtureAtSpeedZeroOnRealClock) {
  const std::string path = ::fleet::test::shared_fixtures() + "/l2/l2_small.lct";
  const Replayed run = replay(path, mock_config(), util::RealClock::instance(), 0, true);
  const L2ReplayResult& r = run.result;
  EXPECT_EQ(r.dispatched(), 189u);
  EXPECT_EQ(r.comparisons(), 68u + 54u + 25u);
  EXPECT_EQ(r.dependency_violations, 0u);
  EXPECT_EQ(r.of(L2Op::Store).bytes_submitted, 896008192u);
  EXPECT_EQ(r.of(L2Op::LoadTask).bytes_submitted, 623902720u);
  EXPECT_EQ(run.prepared.prepared_objects, 41u);
  // The mock never fails a store: the source's 3 failed stores are the store mismatches.
  EXPECT_EQ(r.of(L2Op::Store).outcome_mismatches, 3u);
}

TEST(L2Replay, FixturePacedAtSpeedTenMatchesSpeedOne) {
  const std::string path = ::fleet::test::shared_fixtures() + "/l2/l2_small.lct";
  util::VirtualClock a, b;
  const Replayed one = replay(path, mock_config(), a, 1, true);
  const Replayed ten = replay(path, mock_config(), b, 10, true);
  EXPECT_NEAR(one.result.last_dispatch_s, 4.46875258130517, 1e-3);
  EXPECT_NEAR(ten.result.last_dispatch_s, 0.446875258130517, 1e-3);
  EXPECT_LE(ten.result.mismatches(), one.result.mismatches() + 189 / 1000);
}

TEST(L2Replay, RequiresExactlyOneTargetAdapter) {
  storage::EngineConfig none;
  const auto t = L2Target::create(none, util::RealClock::instance());
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("L2 replay requires exactly one target adapter"));
}

// A mock this slow never completes a 4 KiB task within the drain timeout: the replay and the
// preparation end with an error that says so, not an exception.
TEST(L2Replay, AStalledTargetIsAnErrorNamingWhatWasLeft) {
  L2TraceBuilder b;
  b.store(1, {key(1)}).store_done(1);
  b.lookup(11, 2, {key(7)}).lookup_done(11, 2, {0}).end();
  const std::string path = b.write("stalled");
  const storage::EngineConfig slow = mock_config(1e-9);
  Result<L2Plan> plan = build_l2_plan(path);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  auto target = L2Target::create(slow, util::RealClock::instance());
  ASSERT_TRUE(target.ok()) << target.status().message();
  const auto prepared = prepare_l2(plan.value(), *target.value(), 0.1);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().message(), "L2 prepare timed out with 1 task(s)");
  L2ReplayOptions o;
  o.speed = 0;
  o.drain_timeout_s = 0.1;
  o.progress_every_s = 0;
  const auto r = replay_l2_plan(plan.value(), *target.value(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              StartsWith("L2 replay made no progress for 0.100000 s (1 task(s) in flight, "));
}

TEST(L2Replay, AgainstARealRedis) {
  std::signal(SIGPIPE, SIG_IGN);  // as the binaries: a closed connection fails a call, counted
  RedisServer redis;
  if (!redis.start()) GTEST_SKIP() << "redis-server not found or not starting: SKIPPED";
  storage::EngineConfig cfg;
  storage::add_l2_adapter(
      cfg, {{"type", "resp"}, {"host", "127.0.0.1"}, {"port", redis.port()}, {"num_workers", 2}});
  cfg.l2_key_namespace = "l2replay-test";
  L2TraceBuilder b;  // key 1 found in L2 (prepared), key 2 stored by the trace and then found
  b.store(1, {key(2)}).store_done(1);
  b.lookup(11, 2, {key(1), key(2)}).lookup_done(11, 2, {0, 1});
  b.load(11, 3, {key(1), key(2)}).load_done(11, 3, {0, 1}).unlock(11, {key(1), key(2)});
  b.del({key(3)}).end();  // deletes wait for nothing: at speed 0 it goes first
  const Replayed run = replay(b.write("redis"), cfg, util::RealClock::instance(), 0, true);
  EXPECT_EQ(run.result.adapter_name, "resp");
  EXPECT_EQ(run.prepared.store_tasks_succeeded, 1u);
  EXPECT_EQ(run.result.dispatched(), 5u);
  EXPECT_EQ(run.result.dependency_violations, 0u);
  EXPECT_EQ(run.result.mismatches(), 0u) << l2_replay_stats_text(run.plan, run.result);
}

}  // namespace
}  // namespace fleet::l2replay
