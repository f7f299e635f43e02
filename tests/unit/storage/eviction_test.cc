// The eviction loop on the engine clock: LRU order with reverse-batch insertion, OOM between
// ticks, watermark and ratio over tracked keys, locked keys skipped, leaked locks expiring.
#include <gtest/gtest.h>

#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
using S = L1Status;
constexpr int64_t kSec = 1'000'000'000;

TEST(Lru, ReverseBatchInsertionTouchAndRemove) {
  LruPolicy lru;
  lru.on_keys_created(Keys({"a", "b", "c"}));
  EXPECT_EQ(lru.order(), Keys({"c", "b", "a"}));  // first key of a batch is most recent
  lru.on_keys_created(Keys({"d", "b"}));
  EXPECT_EQ(lru.order(), Keys({"c", "a", "b", "d"}));
  lru.on_keys_touched(Keys({"c", "zz"}));  // unknown keys ignored
  EXPECT_EQ(lru.order(), Keys({"a", "b", "d", "c"}));
  lru.on_keys_removed(Keys({"b"}));
  EXPECT_EQ(lru.order(), Keys({"a", "d", "c"}));
  // target = int(3 * 0.5) = 1; the filter skips "a".
  auto victims =
      lru.get_eviction_victims(0.5, [](const trace::ObjectKey& k) { return k.chunk_hash != "a"; });
  EXPECT_EQ(victims, Keys({"d"}));
  EXPECT_TRUE(lru.get_eviction_victims(0.0, nullptr).empty());
  EXPECT_EQ(lru.get_eviction_victims(1.0, nullptr), Keys({"a", "d", "c"}));
}

TEST(EvictionLoop, OomBetweenTicksThenTickFreesRoom) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A", "B", "C", "D"}));
  EXPECT_EQ(sm.reserve_write_keys({K("E")}, Layout4000(), trace::WriteMode::New),
            std::vector<S>({S::OutOfMemory}));
  sm.run_until(kSec - 1);  // no synchronous eviction, no tick yet
  EXPECT_EQ(sm.reserve_write_keys({K("E")}, Layout4000(), trace::WriteMode::New),
            std::vector<S>({S::OutOfMemory}));
  EXPECT_EQ(sm.next_event_ns(), kSec);
  clock.advance_to(kSec);
  sm.run_until(kSec);  // first tick ~1 s after start: evicts D (last key of the batch)
  EXPECT_FALSE(sm.l1().contains(K("D")));
  EXPECT_EQ(sm.reserve_write_keys({K("E")}, Layout4000(), trace::WriteMode::New),
            std::vector<S>({S::Success}));
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 1);
}

TEST(EvictionLoop, TickPeriodIsConfigurable) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  cfg.eviction_tick_ms = 250;
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Advance(sm, clock, 2 * kSec);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 8);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks_skipped"], 8);
}

// Causal pacing (issue 40): one tick per second of trace time issued, not of wall time, however
// the schedule spreads the trace over the wall; time_scale no longer shortens the period.
TEST(EvictionLoop, AnEngineFollowingTheTraceTicksPerTraceSecond) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  cfg.follow_trace_time = true;
  cfg.time_scale = 10;
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Advance(sm, clock, 5 * kSec);  // the wall moves: no tick
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 0);
  sm.follow_trace_time(kSec - 1);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 0);
  sm.follow_trace_time(kSec);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 1);
  sm.follow_trace_time(3 * kSec + 500'000'000);  // a 2.5-s gap in the trace: the two ticks due
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 3);
  sm.follow_trace_time(2 * kSec);  // an older record (partial schedule): time does not go back
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks"], 3);
}

// The L1 locks' TTLs run on trace time too, unscaled: a leaked read lock lives 300 s of trace.
TEST(EvictionLoop, AnEngineFollowingTheTraceExpiresLocksInTraceTime) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(16384, 1.0);
  cfg.follow_trace_time = true;
  cfg.time_scale = 10;
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  KeyList keys = Keys({"A", "B", "C", "D"});
  Put(sm, keys);
  EXPECT_TRUE(sm.submit_prefetch(Spec(keys, trace::TrimPolicy::SegmentedPrefix), "", false).failed);
  Advance(sm, clock, 400 * kSec);  // 400 s of wall: a lock on wall time / 10 would be gone
  sm.follow_trace_time(299 * kSec);
  EXPECT_EQ(sm.l1().num_objects(), 4u);  // locked at trace 0 for 300 s: nothing evictable
  sm.follow_trace_time(301 * kSec);
  EXPECT_EQ(sm.l1().num_objects(), 0u);
}

TEST(EvictionLoop, WatermarkAndRatioCountTrackedKeysOnly) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(10 * 4096, 0.5), clock);
  StorageManager& sm = *opened;
  KeyList keys;
  for (int i = 0; i < 9; ++i) keys.push_back(K("k" + std::to_string(i)));
  Put(sm, keys);  // LRU end: k8, k7, ...
  // A reserved-but-unfinished key uses memory but is not tracked (era 3 bridge).
  sm.reserve_write_keys({K("w")}, Layout4000(), trace::WriteMode::New);
  EXPECT_EQ(sm.eviction_policy().tracked(), 9u);
  // Two LRU-end keys read-locked: still counted in the target, but skipped.
  sm.l1().reserve_read({K("k8"), K("k7")}, 1);
  sm.eviction_tick_now();  // usage 1.0; target int(9 * 0.5) = 4
  for (const char* gone : {"k6", "k5", "k4", "k3"}) EXPECT_FALSE(sm.l1().contains(K(gone))) << gone;
  for (const char* kept : {"k8", "k7", "k2", "k1", "k0", "w"})
    EXPECT_TRUE(sm.l1().contains(K(kept)));
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l1_evicted_bytes"], 4 * 4096);
}

TEST(EvictionLoop, BelowWatermarkSkips) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(10 * 4096, 0.5);
  cfg.eviction_trigger_watermark = 0.95;
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  KeyList keys;
  for (int i = 0; i < 9; ++i) keys.push_back(K("k" + std::to_string(i)));
  Put(sm, keys);  // usage 0.9 < 0.95
  sm.eviction_tick_now();
  EXPECT_EQ(sm.l1().num_objects(), 9u);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks_skipped"], 1);
}

TEST(EvictionLoop, NoopPolicyNeverEvicts) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig();
  cfg.eviction_policy = "noop";
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A", "B", "C", "D"}));
  Advance(sm, clock, 3 * kSec);
  EXPECT_EQ(sm.l1().num_objects(), 4u);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["eviction_ticks_triggered"], 3);
}

TEST(EvictionLoop, LeakedSegmentedPrefixLockExpiresThenEvicts) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(16384, 1.0), clock);
  StorageManager& sm = *opened;
  KeyList keys = Keys({"A", "B", "C", "D"});
  Put(sm, keys);
  auto r = sm.submit_prefetch(Spec(keys, trace::TrimPolicy::SegmentedPrefix), "", false);
  EXPECT_TRUE(r.failed);
  EXPECT_NE(r.error.find("SEGMENTED_PREFIX"), std::string::npos);
  EXPECT_EQ(ReadCount(sm, K("A")), 1);  // locked before raising: leaked
  Advance(sm, clock, kSec);
  EXPECT_EQ(sm.l1().num_objects(), 4u);  // all locked: nothing evictable
  clock.advance_to(300 * kSec);          // read TTL 300 s from t=0
  sm.run_until(clock.now_ns());
  EXPECT_EQ(sm.l1().num_objects(), 0u);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["prefetch_failed_calls"], 1);
}

TEST(EvictionLoop, VirtualRunIsDeterministic) {
  auto run = [] {
    util::VirtualClock clock;
    auto opened = Open(ExampleConfig(8 * 4096, 0.3), clock);
    StorageManager& sm = *opened;
    for (int i = 0; i < 50; ++i) {
      Put(sm, {K("x" + std::to_string(i)), K("y" + std::to_string(i))});
      Advance(sm, clock, kSec / 3);
    }
    return fleet::engine::to_json(sm.counters()).dump();
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace fleet::storage
