// Store controller and mock adapter: worked examples 8.8 and 8.10 (docs/era3-reference.md §8),
// skip_l1, drain vs no-drain.
#include <gtest/gtest.h>

#include "fleet/engine/mock_l2_adapter.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
using S = L1Status;

TEST(Era3Example88, MockCapacityAndTiming) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(16 << 20);
  add_l2_adapter(cfg, MockJson(0.0025, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  sm.enable_l2_op_samples(true);
  auto& mock = static_cast<MockL2Adapter&>(sm.adapter(0));
  EXPECT_EQ(mock.capacity_bytes(), 2684354u);
  const trace::MemoryLayout mib = Layout(262144);  // 2 * 262144 * 2 B = 1 MiB
  KeyList abc = Keys({"A", "B", "C"});
  Put(sm, abc, mib);
  sm.run_until(clock.now_ns());  // store step: A, B stored, C skipped (3 MiB > cap)
  EXPECT_TRUE(mock.contains(K("A")));
  EXPECT_TRUE(mock.contains(K("B")));
  EXPECT_FALSE(mock.contains(K("C")));
  EXPECT_FALSE(sm.stores_idle());
  const int64_t done = 2097152LL * 1'000'000'000 / (1LL << 30);  // 2/1024 s
  EXPECT_EQ(done, 1953125);
  Advance(sm, clock, done - 1);
  EXPECT_FALSE(sm.stores_idle());
  Advance(sm, clock, 1);
  EXPECT_TRUE(sm.stores_idle());
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(c["l2_store_succeeded_tasks"], 1);
  EXPECT_EQ(c["l2_store_bytes"], 2097152);
  EXPECT_EQ(c["l2_adapters"][0]["used_bytes"], 2097152);
  EXPECT_NEAR(mock.usage().usage_fraction(), 0.781, 0.001);
  auto samples = sm.take_l2_op_samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].kind, L2OpKind::Store);
  EXPECT_EQ(samples[0].latency_ns, 1953125);
  // A lookup of A, B, C: bitmap 110 and one lock each on A and B.
  mock.submit_lookup_and_lock(abc);
  EXPECT_EQ(mock.lock_count(K("A")), 1);
  EXPECT_EQ(mock.lock_count(K("B")), 1);
  EXPECT_EQ(mock.lock_count(K("C")), 0);
  sm.run_until(clock.now_ns());
  samples = sm.take_l2_op_samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].kind, L2OpKind::Lookup);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_adapters"][0]["lookup_found_keys"], 2);
}

// Causal pacing's completion edges: an engine following the trace tells whether a key's
// write-behind store has landed and whether a prefetch naming it has finished.
TEST(CompletionEdges, StoreAndPrefetchPendingUntilTheMockLands) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(16 << 20);
  cfg.follow_trace_time = true;
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  const trace::MemoryLayout mib = Layout(262144);  // 1 MiB: 1/1024 s at 1 GB/s
  KeyList a = Keys({"A"});
  EXPECT_EQ(sm.oldest_store_trace_ns(), INT64_MAX);
  sm.follow_trace_time(7000);
  Put(sm, a, mib);
  EXPECT_TRUE(sm.store_pending(a));  // queued for the store step
  EXPECT_FALSE(sm.store_pending(Keys({"B"})));
  sm.run_until(clock.now_ns());
  EXPECT_TRUE(sm.store_pending(a));             // in flight
  EXPECT_EQ(sm.oldest_store_trace_ns(), 7000);  // submitted at trace instant 7 us
  Advance(sm, clock, 976562 - 1);
  EXPECT_TRUE(sm.store_pending(a));
  Advance(sm, clock, 1);
  EXPECT_FALSE(sm.store_pending(a));  // landed
  EXPECT_EQ(sm.oldest_store_trace_ns(), INT64_MAX);
  // A prefetch of B (not in L1, found nowhere) is pending until its lookup answers.
  KeyList b = Keys({"B"});
  ASSERT_FALSE(
      sm.submit_prefetch(Spec(b, trace::TrimPolicy::Prefix, 1, {-1}, 1, mib), "r", false).failed);
  EXPECT_TRUE(sm.prefetch_pending(b));
  EXPECT_FALSE(sm.prefetch_pending(a));
  Advance(sm, clock, 1'000'000'000);
  EXPECT_FALSE(sm.prefetch_pending(b));
}

// Engines not built to follow the trace keep no such index: always false, no cost.
TEST(CompletionEdges, UntrackedWithoutFollowingTheTrace) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(16 << 20);
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A"}), Layout(262144));
  EXPECT_FALSE(sm.store_pending(Keys({"A"})));
}

TEST(Era3Example810, StoreLocksKeepKeyUnevictableUntilBothStoresComplete) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(16384, 1.0);
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  auto k = K("K");
  Put(sm, {k, K("x"), K("y"), K("z")});  // L1 full: eviction wants to run
  sm.run_until(clock.now_ns());
  EXPECT_EQ(ReadCount(sm, k), 2);  // one lock per adapter
  EXPECT_EQ(sm.reserve_write_keys({k}, Layout4000(), trace::WriteMode::All),
            std::vector<S>({S::KeyNotWritable}));
  EXPECT_FALSE(sm.l1().is_key_evictable(k));
  sm.eviction_tick_now();  // ratio 1.0, every key is store-locked: nothing goes
  EXPECT_EQ(sm.l1().num_objects(), 4u);
  Advance(sm, clock, 1'000'000);
  EXPECT_EQ(ReadCount(sm, k), 0);
  EXPECT_TRUE(sm.l1().is_key_evictable(k));
  sm.eviction_tick_now();
  EXPECT_EQ(sm.l1().num_objects(), 0u);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_tasks"], 2);
}

TEST(Era3Example810, OverReleaseMakesSecondStoreReleaseWrongState) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  auto k = K("K");
  Put(sm, {k});
  sm.run_until(clock.now_ns());
  EXPECT_EQ(sm.finish_read_keys({k}, 1),
            std::vector<S>({S::Success}));  // the replay's over-release
  Advance(sm, clock, 1'000'000);
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(c["l2_store_release_wrong_state"], 1);
  EXPECT_EQ(c["l2_store_succeeded_tasks"], 2);  // the store outcome is unchanged
}

TEST(StoreController, SkipL1DeletesAfterStoreAndLookupPrefetchDoesNotStore) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  cfg.l2_store_policy = "skip_l1";
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a", "b"}));
  Advance(sm, clock, 1'000'000);
  EXPECT_EQ(sm.l1().num_objects(), 0u);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_l1_deleted_keys"], 2);
  sm.submit_prefetch_task(Spec(Keys({"a", "b"})));
  Advance(sm, clock, 1'000'000);
  EXPECT_EQ(ReadCount(sm, K("a")), 1);  // admitted, temporary, read-locked
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_tasks"],
            1);  // admission queued no store
}

TEST(StoreController, InPlaceUpdateQueuesASecondStore) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a"}));
  Advance(sm, clock, 1'000'000);
  sm.reserve_write_keys(Keys({"a"}), Layout4000(), trace::WriteMode::Update);
  sm.finish_write_keys(Keys({"a"}));
  Advance(sm, clock, 1'000'000);
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(c["l2_store_tasks"], 2);
  EXPECT_EQ(c["l2_store_bytes"], 4000);  // the second store skips the existing key
}

TEST(Close, DrainCompletesInFlightStores) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  add_l2_adapter(cfg, MockJson(1.0, 0.001));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a"}));
  sm.run_until(clock.now_ns());
  sm.close(true);
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_TRUE(c["drained"].get<bool>());
  EXPECT_EQ(c["l2_store_succeeded_tasks"], 1);
  EXPECT_EQ(c["l2_stores_abandoned_at_close"], 0);
  EXPECT_GT(clock.now_ns(), 3'000'000);  // the virtual clock moved to the completion
}

TEST(Close, NoDrainAbandonsAndReleasesStoreLocks) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  add_l2_adapter(cfg, MockJson(1.0, 0.001));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a"}));
  sm.run_until(clock.now_ns());
  EXPECT_EQ(ReadCount(sm, K("a")), 1);
  engine::Engine& e = sm;
  e.close(false);
  e.close(false);  // idempotent
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_FALSE(c["drained"].get<bool>());
  EXPECT_TRUE(c["closed"].get<bool>());
  EXPECT_EQ(c["l2_stores_abandoned_at_close"], 1);
  EXPECT_EQ(c["l2_store_succeeded_tasks"], 0);
  EXPECT_EQ(ReadCount(sm, K("a")), 0);
}

TEST(RealClock, MockCompletesOnTheDriverThread) {
  EngineConfig cfg = ExampleConfig();
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, util::RealClock::instance());
  StorageManager& sm = *opened;
  Put(sm, Keys({"a"}));
  for (int i = 0; i < 2000 && !sm.stores_idle(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(sm.stores_idle());
  sm.close(true);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_succeeded_tasks"], 1);
}

}  // namespace
}  // namespace fleet::storage
