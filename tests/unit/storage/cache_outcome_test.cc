// The cache accounting (engine::CacheOutcome, docs/outputs.md § Cache) on the worked examples of
// docs/era3-reference.md §8, each outcome derived by hand from the example: every requested key
// lands in exactly one bucket, so requested = L1 + L2 + missed.
#include <gtest/gtest.h>

#include "fleet/engine/mock_l2_adapter.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
using trace::TrimPolicy;

struct Expect {
  uint64_t l1 = 0, l2 = 0, not_found = 0, load_failed = 0, trimmed = 0, abandoned = 0;
};

void ExpectOutcome(const engine::PrefetchOutcome& o, uint64_t requested, const Expect& e,
                   uint64_t object_bytes, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(o.requested.keys, requested);
  EXPECT_EQ(o.l1.keys, e.l1);
  EXPECT_EQ(o.l2_total().keys, e.l2);
  EXPECT_EQ(o.not_found.keys, e.not_found);
  EXPECT_EQ(o.load_failed.keys, e.load_failed);
  EXPECT_EQ(o.trimmed.keys, e.trimmed);
  EXPECT_EQ(o.abandoned.keys, e.abandoned);
  // The invariant, in keys and in bytes.
  EXPECT_EQ(o.decided(), o.requested);
  EXPECT_EQ(o.requested.bytes, requested * object_bytes);
  EXPECT_EQ(o.l1.bytes, e.l1 * object_bytes);
}

void PutAt(StorageManager& sm, const KeyList& keys, const std::vector<size_t>& present) {
  KeyList sel;
  for (size_t p : present) sel.push_back(keys[p]);
  Put(sm, sel);
}

// 8.3 without adapters: the StorageManager decides every key itself.
TEST(CacheOutcome, PrefixFoldsWithoutL2) {
  struct Case {
    const char* name;
    size_t groups;
    std::vector<int64_t> windows;
    size_t world, chunks;
    std::vector<size_t> present;
    Expect e;
  };
  const std::vector<Case> cases = {
      // P1: hit 2 chunks = positions 0-3 retained; 4 present after the broken prefix; 5-7 absent.
      {"P1", 1, {-1}, 2, 4, {0, 1, 2, 3, 4}, {.l1 = 4, .not_found = 3, .trimmed = 1}},
      // P2: hit 4; retained 0,2,4,5,6,7; 1 (released) and 3 (absent) are outside group 1's
      // 2-chunk window; 8-11 absent.
      {"P2", 2, {-1, 2}, 1, 6, {0, 2, 4, 6, 1, 5, 7}, {.l1 = 6, .not_found = 4, .trimmed = 2}},
      // P4: window 1, hit 5: only chunk 4 is needed; 0-3 are outside the window.
      {"P4", 1, {1}, 1, 5, {0, 2, 4}, {.l1 = 1, .trimmed = 4}},
  };
  for (const Case& c : cases) {
    util::VirtualClock clock;
    auto opened = Open(ExampleConfig(1 << 20), clock);
    StorageManager& sm = *opened;
    KeyList keys = GridKeys(c.chunks, c.groups, c.world);
    PutAt(sm, keys, c.present);
    sm.submit_prefetch_task(Spec(keys, TrimPolicy::Prefix, 1, c.windows, c.world));
    ExpectOutcome(sm.cache_outcome().lookup, keys.size(), c.e, 4000, c.name);
  }
}

// 8.4 with a mock that holds nothing: L1 serves k0,k2,k5; the controller finds k1,k3,k4 nowhere.
TEST(CacheOutcome, SparseMissesGoToTheController) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(1 << 20);
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  KeyList k = Keys({"k0", "k1", "k2", "k3", "k4", "k5"});
  Put(sm, {k[0], k[2], k[5]});
  sm.submit_prefetch_task(Spec(k, TrimPolicy::Sparse, 2));
  EXPECT_EQ(sm.cache_outcome().lookup.decided().keys, 3u);  // the rest is in flight
  Advance(sm, clock, 1'000'000);
  ExpectOutcome(sm.cache_outcome().lookup, 6, {.l1 = 3, .not_found = 3}, 4000, "8.4");
}

// 8.5: L1 prefix k0,k1; the controller loads k2,k3,k4 from the mock; k5 is nowhere.
TEST(CacheOutcome, PrefixWithMockL2) {
  Example85 ex;
  ex.sm->submit_prefetch_task(ex.spec());
  Advance(*ex.sm, ex.clock, 1'000'000);
  const engine::PrefetchOutcome o = ex.sm->cache_outcome().lookup;
  ExpectOutcome(o, 6, {.l1 = 2, .l2 = 3, .not_found = 1}, 4096, "8.5");
  ASSERT_EQ(o.l2.size(), 1u);
  EXPECT_EQ(o.l2[0].bytes, 3u * 4096);
  // The counters carry the same numbers for the report.
  auto c = fleet::engine::to_json(ex.sm->counters());
  EXPECT_EQ(c["cache"]["lookup"]["l2"][0]["keys"], 3);
  EXPECT_EQ(c["cache"]["lookup"]["not_found"]["keys"], 1);
}

// 8.11: only two L1 slots for a plan of three, so the whole load is abandoned.
TEST(CacheOutcome, AbandonedLoadCountsAsLoadFailed) {
  Example85 ex(5 * 4096);
  Put(*ex.sm, {K("filler")}, Layout4096());
  ex.sm->run_until(ex.clock.now_ns());
  ex.sm->submit_prefetch_task(ex.spec());
  ex.sm->run_until(ex.clock.now_ns());
  ExpectOutcome(ex.sm->cache_outcome().lookup, 6, {.l1 = 2, .not_found = 1, .load_failed = 3}, 4096,
                "8.11");
}

// A request still waiting for its lookup when the engine closes is abandoned, not lost.
TEST(CacheOutcome, InFlightAtCloseIsAbandoned) {
  Example85 ex;
  ex.sm->submit_prefetch_task(ex.spec());
  ex.sm->close(false);
  ExpectOutcome(ex.sm->cache_outcome().lookup, 6, {.l1 = 2, .abandoned = 4}, 4096, "close");
}

// WARM is counted apart: it warms L1 from L2, it is not a read.
TEST(CacheOutcome, WarmIsItsOwnBucket) {
  Example85 ex;
  trace::PrefetchSpec s = ex.spec();
  s.mode = trace::PrefetchMode::Warm;
  ex.sm->submit_prefetch_task(s);
  Advance(*ex.sm, ex.clock, 1'000'000);
  const engine::CacheOutcome c = ex.sm->cache_outcome();
  EXPECT_EQ(c.lookup.requested.keys, 0u);
  // k0,k1 held in L1; k2..k4 loaded; k5 nowhere.
  ExpectOutcome(c.warm, 6, {.l1 = 2, .l2 = 3, .not_found = 1}, 4096, "warm");
}

// Writes: reserved and refused (L1 full) keys with their bytes, stored on finish_write.
TEST(CacheOutcome, WritesAndRefusals) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(2 * 4096), clock);
  StorageManager& sm = *opened;
  sm.reserve_write_keys(Keys({"a", "b"}), Layout4000(), trace::WriteMode::New);
  sm.reserve_write_keys(Keys({"c"}), Layout4000(), trace::WriteMode::New);  // L1 is full
  sm.finish_write_keys(Keys({"a", "b"}));
  const engine::CacheOutcome c = sm.cache_outcome();
  EXPECT_EQ(c.write_reserved.keys, 2u);
  EXPECT_EQ(c.write_reserved.bytes, 8000u);
  EXPECT_EQ(c.write_refused_oom.keys, 1u);
  EXPECT_EQ(c.write_refused_oom.bytes, 4000u);
  EXPECT_EQ(c.stored_keys, 2u);
}

}  // namespace
}  // namespace fleet::storage
