// Miss attribution (docs/causal-pacing.md "Miss attribution"): each miss gets the class its
// history implies, derived here by hand on a real StorageManager (virtual clock) and, for the
// store race a single engine cannot stage, on the classifier itself.
#include "fleet/engine/miss_classifier.h"

#include <gtest/gtest.h>

#include "storage_test_util.h"

namespace fleet::storage::testing {
namespace {

using stats::MissClass;
using stats::MissWhere;

EngineConfig Classifying(uint64_t l1_bytes = 16384, double ratio = 0.2) {
  EngineConfig c = ExampleConfig(l1_bytes, ratio);
  c.classify_misses = true;
  return c;
}

// The one event `sm` logged, after checking there is exactly one.
stats::MissEvent OnlyEvent(StorageManager& sm) {
  std::vector<stats::MissEvent> e = sm.take_misses();
  EXPECT_EQ(e.size(), 1u);
  return e.empty() ? stats::MissEvent{} : e.front();
}

bool Prefetch(StorageManager& sm, const KeyList& keys) {
  return !sm.submit_prefetch(Spec(keys), "r", false).failed;
}

TEST(MissClassifier, AKeyNeverWrittenIsColdAndNamesItsRecordAndKey) {
  util::VirtualClock clock;
  auto opened = Open(Classifying(), clock);
  StorageManager& sm = *opened;
  sm.set_record(1234.5);
  ASSERT_TRUE(Prefetch(sm, Keys({"A"})));
  const stats::MissEvent e = OnlyEvent(sm);
  EXPECT_EQ(e.record, 1234.5);
  EXPECT_EQ(e.key, trace::stable_key_id(K("A")));
  EXPECT_EQ(e.where, MissWhere::Prefetch);
  EXPECT_EQ(e.cls, MissClass::Cold);
  EXPECT_EQ(sm.miss_summary()->total(), 1u);
}

TEST(MissClassifier, AWriteRefusedForAFullL1IsBlamedOnTheRefusal) {
  util::VirtualClock clock;
  auto opened = Open(Classifying(), clock);  // 16 KiB: four 4 KiB objects
  StorageManager& sm = *opened;
  Put(sm, Keys({"w", "x", "y", "z"}));
  ASSERT_EQ(sm.reserve_write_keys(Keys({"B"}), Layout4000(), trace::WriteMode::New),
            std::vector<L1Status>({L1Status::OutOfMemory}));
  ASSERT_TRUE(Prefetch(sm, Keys({"B"})));
  EXPECT_EQ(OnlyEvent(sm).cls, MissClass::WriteRefused);
}

TEST(MissClassifier, AnEvictedKeyWithoutAnL2CopyIsEvictedOnPrefetchAndOnRead) {
  util::VirtualClock clock;
  auto opened = Open(Classifying(16384, 1.0), clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A", "x", "y", "z"}));
  sm.eviction_tick_now();  // full and every key evictable: ratio 1.0 evicts them all
  ASSERT_EQ(sm.l1().num_objects(), 0u);
  ASSERT_TRUE(Prefetch(sm, Keys({"A"})));
  EXPECT_EQ(OnlyEvent(sm).cls, MissClass::Evicted);
  engine::ReadContext ctx;
  ASSERT_FALSE(sm.read_enter(Keys({"A"}), ctx).failed);
  const stats::MissEvent read = OnlyEvent(sm);
  EXPECT_EQ(read.where, MissWhere::Read);
  EXPECT_EQ(read.cls, MissClass::Evicted);
}

// max_in_flight 1 against a mock L2 at 1 GB/s: X (1 MiB, in L2 only) loads for ~1 ms while Y's
// prefetch waits behind it; a read of either meanwhile is the speed-up's race; a key being
// written is write-locked; a key nobody prefetched was not loaded.
TEST(MissClassifier, ReadsRacingTheirPrefetchOrAWriteAreNamedForIt) {
  util::VirtualClock clock;
  EngineConfig cfg = Classifying(16 << 20);
  cfg.l2_prefetch_max_in_flight = 1;
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  const trace::MemoryLayout mib = Layout(262144);
  Put(sm, Keys({"X"}), mib);
  Advance(sm, clock, 10'000'000);  // stored in L2
  sm.l1().delete_keys(Keys({"X"}), false);
  ASSERT_FALSE(
      sm.submit_prefetch(Spec(Keys({"X"}), trace::TrimPolicy::Prefix, 1, {-1}, 1, mib), "x", false)
          .failed);
  ASSERT_TRUE(Prefetch(sm, Keys({"Y"})));
  sm.run_until(clock.now_ns());  // X found, loading; Y queued
  engine::ReadContext ctx;
  ASSERT_FALSE(sm.read_enter(Keys({"X", "Y"}), ctx).failed);
  sm.reserve_write_keys(Keys({"W"}), Layout4000(), trace::WriteMode::New);
  ASSERT_FALSE(sm.read_enter(Keys({"W", "N"}), ctx).failed);
  std::vector<stats::MissEvent> e = sm.take_misses();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].cls, MissClass::LoadRunning);
  EXPECT_EQ(e[1].cls, MissClass::PrefetchQueued);
  EXPECT_EQ(e[2].cls, MissClass::WriteLocked);
  EXPECT_EQ(e[3].cls, MissClass::NotLoaded);
  for (const auto& m : e) EXPECT_EQ(m.where, MissWhere::Read);
  Advance(sm, clock, 1'000'000'000);  // X lands (a hit), Y's lookup finds nothing: cold
  e = sm.take_misses();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].cls, MissClass::Cold);
  EXPECT_EQ(e[0].key, trace::stable_key_id(K("Y")));
}

TEST(MissClassifier, AStoreStillRunningOrLandingAfterTheLookupIsNotLanded) {
  MissClassifier c;
  const trace::ObjectKey a = K("A"), b = K("B"), d = K("D");
  c.entered_l1(a);
  c.store_landed(a, 200);  // landed after a lookup at 100
  c.not_found(1.0, a, 100);
  bool b_busy = true;
  c.set_store_busy([&](const trace::ObjectKey& k) { return k == b && b_busy; });
  c.entered_l1(b);
  c.not_found(2.0, b, 300);  // still queued or in flight
  c.entered_l1(d);
  c.store_landed(d, 50);  // landed before the lookup, yet not found: an L2 dropped it
  c.not_found(3.0, d, 100);
  const std::vector<stats::MissEvent> e = c.take_events();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].cls, MissClass::StoreNotLanded);
  EXPECT_EQ(e[1].cls, MissClass::StoreNotLanded);
  EXPECT_EQ(e[2].cls, MissClass::NotFound);
}

TEST(MissClassifier, AnEngineNotAskedKeepsNothing) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  ASSERT_TRUE(Prefetch(sm, Keys({"A"})));
  EXPECT_FALSE(sm.miss_summary().has_value());
  EXPECT_TRUE(sm.take_misses().empty());
}

}  // namespace
}  // namespace fleet::storage::testing
