// submit_prefetch_task and the prefetch controller: worked examples 8.3, 8.4, 8.5, 8.11 of
// docs/era3-reference.md §8, the three policies side by side, sliding windows with world_size > 1,
// and argument errors.
#include <gtest/gtest.h>

#include "fleet/engine/fold.h"
#include "fleet/engine/mock_l2_adapter.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
using S = L1Status;
using trace::TrimPolicy;

// Puts the keys at `present` positions into L1 (resident, non-temporary).
void PutAt(StorageManager& sm, const KeyList& keys, std::initializer_list<size_t> present) {
  KeyList sel;
  for (size_t p : present) sel.push_back(keys[p]);
  Put(sm, sel);
}

struct FoldCase {
  const char* name;
  size_t groups;
  std::vector<int64_t> windows;
  size_t world, chunks;
  std::vector<size_t> present;
  size_t hit;
  std::vector<size_t> retained;
  std::vector<size_t> released;
  size_t remainder_start;
};

class Era3Example83 : public ::testing::TestWithParam<FoldCase> {};

TEST_P(Era3Example83, PrefixFold) {
  const FoldCase& fc = GetParam();
  for (bool with_adapter : {false, true}) {
    util::VirtualClock clock;
    EngineConfig cfg = ExampleConfig(1 << 20);
    if (with_adapter) add_l2_adapter(cfg, MockJson(1.0, 1.0));
    auto opened = Open(cfg, clock);
    StorageManager& sm = *opened;
    KeyList keys = GridKeys(fc.chunks, fc.groups, fc.world);
    KeyList sel;
    for (size_t p : fc.present) sel.push_back(keys[p]);
    Put(sm, sel);
    PrefetchHandle h =
        sm.submit_prefetch_task(Spec(keys, TrimPolicy::Prefix, 1, fc.windows, fc.world));
    EXPECT_EQ(h.l1_hit_chunks, fc.hit) << fc.name;
    EXPECT_EQ(h.l1_found_indices, fc.retained) << fc.name;
    EXPECT_EQ(h.total_requested_keys, keys.size());
    for (size_t p : fc.retained) EXPECT_EQ(ReadCount(sm, keys[p]), 1) << fc.name << " pos " << p;
    for (size_t p : fc.released) EXPECT_EQ(ReadCount(sm, keys[p]), 0) << fc.name << " pos " << p;
    std::vector<size_t> rem;
    if (with_adapter)
      for (size_t p = fc.remainder_start; p < keys.size(); ++p) rem.push_back(p);
    EXPECT_EQ(h.l2_orig_indices, rem) << fc.name;
    EXPECT_EQ(h.prefetch_request_id, rem.empty() ? -1 : 0) << fc.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Era3Example83,
    ::testing::Values(
        FoldCase{"P1", 1, {-1}, 2, 4, {0, 1, 2, 3, 4}, 2, {0, 1, 2, 3}, {4}, 4},
        FoldCase{"P2", 2, {-1, 2}, 1, 6, {0, 2, 4, 6, 1, 5, 7}, 4, {0, 2, 4, 5, 6, 7}, {1}, 8},
        FoldCase{"P3", 2, {-1, 2}, 1, 6, {0, 2, 6, 1, 3}, 2, {0, 1, 2, 3}, {6}, 4},
        FoldCase{"P4", 1, {1}, 1, 5, {0, 2, 4}, 5, {4}, {0, 2}, 5},
        // Sliding window with world_size 2: g1 lacks chunk 1 rank 1 (position 7).
        FoldCase{"W2",
                 2,
                 {-1, 2},
                 2,
                 4,
                 {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15},
                 4,
                 {0, 1, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15},
                 {2, 3, 6},
                 16}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Fold, LargestServableNotFirstGap) {
  // P2's presence directly: g0 chunks 0-3, g1 chunks 0,2,3.
  std::vector<uint8_t> presence(12, 0);
  for (size_t p : {0, 2, 4, 6, 1, 5, 7}) presence[p] = 1;
  FoldResult f = fold_unfold_ranked(presence, 6, 1, {-1, 2});
  EXPECT_EQ(f.hit_chunks, 4u);
  EXPECT_EQ(keep_all_found(presence, 2).hit_chunks, 1u);  // leading ones 3 / stride 2
}

TEST(Era3Example84, SparseLeaseReleasedAtClose) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(1 << 20);
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  KeyList k = Keys({"k0", "k1", "k2", "k3", "k4", "k5"});
  PutAt(sm, k, {0, 2, 5});
  PrefetchHandle h = sm.submit_prefetch_task(Spec(k, TrimPolicy::Sparse, 2));
  EXPECT_EQ(h.l1_found_indices, Idx({0, 2, 5}));
  EXPECT_EQ(h.l1_hit_chunks, 0u);
  EXPECT_EQ(h.l2_orig_indices, Idx({1, 3, 4}));
  EXPECT_EQ(h.prefetch_request_id, 0);
  for (size_t p : {0, 2, 5}) EXPECT_EQ(ReadCount(sm, k[p]), 2);
  sm.close(true);
  for (size_t p : {0, 2, 5}) EXPECT_EQ(ReadCount(sm, k[p]), 0);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["sparse_leases_released_at_close"], 3);
}

TEST(Policies, PrefixVsSparseVsWarm) {
  KeyList k = Keys({"k0", "k1", "k2", "k3"});
  auto make = [&](util::VirtualClock& clock) {
    EngineConfig cfg = ExampleConfig(1 << 20);
    add_l2_adapter(cfg, MockJson(1.0, 1.0));
    auto sm = Open(cfg, clock);
    PutAt(*sm, k, {0, 2});
    Advance(*sm, clock, 1'000'000);  // their L2 stores complete (store locks released)
    return sm;
  };
  {
    util::VirtualClock clock;
    auto sm = make(clock);
    PrefetchHandle h = sm->submit_prefetch_task(Spec(k, TrimPolicy::Prefix));
    EXPECT_EQ(h.l1_hit_chunks, 1u);
    EXPECT_EQ(h.l1_found_indices, Idx({0}));
    EXPECT_EQ(h.l2_orig_indices, Idx({1, 2, 3}));  // includes L1-resident k2, just released
    EXPECT_EQ(ReadCount(*sm, k[0]), 1);
    EXPECT_EQ(ReadCount(*sm, k[2]), 0);
  }
  {
    util::VirtualClock clock;
    auto sm = make(clock);
    PrefetchHandle h = sm->submit_prefetch_task(Spec(k, TrimPolicy::Sparse));
    EXPECT_EQ(h.l1_hit_chunks, 0u);
    EXPECT_EQ(h.l1_found_indices, Idx({0, 2}));
    EXPECT_EQ(h.l2_orig_indices, Idx({1, 3}));
    EXPECT_EQ(ReadCount(*sm, k[2]), 1);
  }
  {
    util::VirtualClock clock;
    auto sm = make(clock);
    trace::PrefetchSpec s = Spec(k, TrimPolicy::Prefix);
    s.mode = trace::PrefetchMode::Warm;
    PrefetchHandle h = sm->submit_prefetch_task(s);
    EXPECT_TRUE(h.l1_found_indices.empty());
    EXPECT_EQ(h.l1_hit_chunks, 0u);
    EXPECT_EQ(h.l2_orig_indices, Idx({0, 1, 2, 3}));
    EXPECT_EQ(ReadCount(*sm, k[0]), 0);  // WARM takes no SM-side locks
    // The controller locks L1 keys; L2 has only those same keys, so there is nothing to load,
    // and a WARM request releases every L1 lock it took.
    sm->run_until(clock.now_ns());
    EXPECT_EQ(ReadCount(*sm, k[0]), 0);
    EXPECT_EQ(ReadCount(*sm, k[2]), 0);
    EXPECT_TRUE(sm->prefetch_result(h.prefetch_request_id)->finished);
  }
  {  // skip_l2 and no adapter: nothing reaches the controller.
    util::VirtualClock clock;
    auto sm = make(clock);
    PrefetchHandle h = sm->submit_prefetch_task(Spec(k, TrimPolicy::Sparse), "x", true);
    EXPECT_EQ(h.prefetch_request_id, -1);
    EXPECT_TRUE(h.l2_orig_indices.empty());
    EXPECT_EQ(h.external_request_id, "x");
  }
}

TEST(SubmitPrefetch, InvalidArgumentsFail) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  engine::Engine& e = sm;
  KeyList k = Keys({"a", "b"});
  auto spec = [&] { return Spec(k); };
  auto s = spec();
  s.num_kv_readers = 0;
  EXPECT_TRUE(e.submit_prefetch(s, "", false).failed);
  s = spec();
  s.generation = -1;
  EXPECT_TRUE(e.submit_prefetch(s, "", false).failed);
  s = spec();
  s.attn.num_chunks_in_sw = {0};
  EXPECT_TRUE(e.submit_prefetch(s, "", false).failed);
  s = spec();
  s.attn.num_chunks_in_sw = {-2};
  EXPECT_TRUE(e.submit_prefetch(s, "", false).failed);
  s = spec();
  s.attn.world_size = 0;
  EXPECT_TRUE(e.submit_prefetch(s, "", false).failed);
  s = Spec(Keys({"a", "b", "c"}), TrimPolicy::Prefix, 1, {-1, -1});  // 3 % 2 != 0
  EXPECT_TRUE(e.submit_prefetch(s, "", false).failed);
  s = Spec(k, TrimPolicy::Prefix, 1, {-1, -1});
  s.group_layouts.erase(1);
  auto r = e.submit_prefetch(s, "", false);
  EXPECT_TRUE(r.failed);
  EXPECT_NE(r.error.find("group_layout_descs"), std::string::npos);
  EXPECT_FALSE(e.submit_prefetch(spec(), "", false).failed);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["prefetch_failed_calls"], 7);
}

TEST(Era3Example85, PrefixWithMockL2FullFlow) {
  Example85 ex;
  auto& sm = *ex.sm;
  auto& k = ex.k;
  PrefetchHandle h = sm.submit_prefetch_task(ex.spec());
  EXPECT_EQ(h.prefetch_request_id, 0);
  EXPECT_EQ(h.l1_found_indices, Idx({0, 1}));
  EXPECT_EQ(h.l1_hit_chunks, 2u);
  EXPECT_EQ(h.l2_orig_indices, Idx({2, 3, 4, 5}));
  const int64_t t0 = ex.clock.now_ns();
  sm.run_until(t0);  // start, lookup (no delay), plan, reserve, submit load
  for (int i = 2; i < 5; ++i) EXPECT_EQ(ex.mock().lock_count(k[i]), 1);
  EXPECT_EQ(sm.l1().memory_usage().first, 5u * 4096);
  EXPECT_TRUE(sm.l1().find(k[2])->temporary);
  const int64_t load_ns = 12288LL * 1'000'000'000 / (1LL << 30);  // ~11.4 us
  EXPECT_EQ(load_ns, 11444);
  sm.run_until(t0 + load_ns - 1);
  EXPECT_TRUE(sm.l1().find(k[2])->write_lock.is_locked(sm.l1().now_ms()));
  ex.clock.advance_to(t0 + load_ns);
  sm.run_until(t0 + load_ns);
  for (int i = 2; i < 5; ++i) {
    EXPECT_EQ(ex.mock().lock_count(k[i]), 0);
    EXPECT_EQ(ReadCount(sm, k[i]), 1);
  }
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({k[1], k[0], k[4], k[3], k[2]}));
  const PrefetchResult* res = sm.prefetch_result(0);
  ASSERT_TRUE(res && res->finished);
  EXPECT_EQ(res->hit_chunks, 3u);
  EXPECT_EQ(res->retained, Idx({0, 1, 2}));
  // Replay enter/exit: all good; exit releases one lock each and frees the temporaries.
  engine::ReadContext ctx;
  sm.read_enter({k[0], k[1], k[2], k[3], k[4]}, ctx);
  EXPECT_TRUE(ctx.all_good);
  sm.read_exit(ctx);
  EXPECT_EQ(ReadCount(sm, k[0]), 0);
  for (int i = 2; i < 5; ++i) EXPECT_FALSE(sm.l1().contains(k[i]));
  EXPECT_EQ(sm.l1().memory_usage().first, 2u * 4096);
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({k[1], k[0]}));
  EXPECT_EQ(sm.finish_read_keys({k[0], k[1], k[2], k[3], k[4]}, 1),
            std::vector<S>({S::KeyInWrongState, S::KeyInWrongState, S::KeyNotExist, S::KeyNotExist,
                            S::KeyNotExist}));
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(c["l2_loaded_keys"], 3);
  EXPECT_EQ(c["l2_load_bytes"], 12288);
  EXPECT_EQ(c["l2_lookup_found_keys"], 3);
}

TEST(Era3Example85, EnterWhileLoadInFlight) {
  Example85 ex;
  auto& sm = *ex.sm;
  auto& k = ex.k;
  sm.submit_prefetch_task(ex.spec());
  const int64_t t0 = ex.clock.now_ns();
  sm.run_until(t0);
  engine::ReadContext ctx;
  sm.read_enter({k[0], k[1], k[2], k[3], k[4]}, ctx);
  EXPECT_FALSE(ctx.all_good);
  EXPECT_EQ(ctx.good_keys, KeyList({k[0], k[1]}));
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["read_failed_write_locked_keys"], 3);
  sm.read_exit(ctx);
  EXPECT_EQ(ReadCount(sm, k[0]), 0);
  Advance(sm, ex.clock, 20'000);
  for (int i = 2; i < 5; ++i) EXPECT_EQ(ReadCount(sm, k[i]), 1);
  EXPECT_EQ(
      sm.finish_read_keys({k[0], k[1], k[2], k[3], k[4]}, 1),
      std::vector<S>({S::KeyInWrongState, S::KeyInWrongState, S::Success, S::Success, S::Success}));
  for (int i = 2; i < 5; ++i) EXPECT_FALSE(sm.l1().contains(k[i]));
}

TEST(Era3Example811, ControllerReservationFailureIsAllOrNothing) {
  Example85 ex(5 * 4096);  // L1 holds k0,k1: 3 slots free... make it 2 below
  auto& sm = *ex.sm;
  auto& k = ex.k;
  // Occupy one more slot so that only 2 remain for a plan of 3.
  Put(sm, {K("filler")}, Layout4096());
  sm.run_until(ex.clock.now_ns());
  ASSERT_EQ(sm.l1().memory_usage().first, 3u * 4096);
  PrefetchHandle h = sm.submit_prefetch_task(ex.spec());
  EXPECT_EQ(h.l1_found_indices, Idx({0, 1}));
  sm.run_until(ex.clock.now_ns());
  const PrefetchResult* res = sm.prefetch_result(h.prefetch_request_id);
  ASSERT_TRUE(res && res->finished);
  EXPECT_EQ(res->failure, "l1_oom");
  EXPECT_TRUE(res->retained.empty());
  EXPECT_TRUE(res->loaded.empty());
  for (int i = 2; i < 5; ++i) {
    EXPECT_EQ(ex.mock().lock_count(k[i]), 0);  // all three L2 locks returned
    EXPECT_FALSE(sm.l1().contains(k[i]));
  }
  EXPECT_EQ(sm.l1().memory_usage().first, 3u * 4096);
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(c["l2_prefetch_failed_l1_oom_keys"], 3);
  EXPECT_EQ(c["l2_load_tasks"], 0);
  // L1 prefix result is untouched.
  EXPECT_EQ(ReadCount(sm, k[0]), 1);
}

TEST(PrefetchController, MaxInFlightQueuesFifo) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(1 << 20);
  add_l2_adapter(cfg, MockJson(1.0, 0.001));  // slow: loads take a while
  cfg.l2_prefetch_max_in_flight = 1;
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a", "b"}));
  Advance(sm, clock, 100'000'000);  // stores complete
  sm.delete_l1_keys(Keys({"a", "b"}));
  PrefetchHandle h1 = sm.submit_prefetch_task(Spec(Keys({"a"})));
  PrefetchHandle h2 = sm.submit_prefetch_task(Spec(Keys({"b"})));
  EXPECT_EQ(h1.prefetch_request_id, 0);
  EXPECT_EQ(h2.prefetch_request_id, 1);
  sm.run_until(clock.now_ns());
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_prefetch_requests_started"], 1);
  // 4000 B at 0.001 GiB/s: 3.725 ms per load; request 1 starts when request 0 retires.
  Advance(sm, clock, 5'000'000);
  EXPECT_TRUE(sm.prefetch_result(0)->finished);
  EXPECT_FALSE(sm.prefetch_result(1)->finished);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_prefetch_requests_started"], 2);
  Advance(sm, clock, 5'000'000);
  EXPECT_TRUE(sm.prefetch_result(1)->finished);
  EXPECT_EQ(sm.prefetch_result(1)->loaded, Idx({0}));
}

TEST(PrefetchController, WarmLoadsArePermanentAndStoredAgain) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(1 << 20);
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a", "b"}));
  Advance(sm, clock, 1'000'000);
  sm.delete_l1_keys(Keys({"a", "b"}));
  const auto stores_before = fleet::engine::to_json(sm.counters())["l2_store_tasks"].get<int>();
  trace::PrefetchSpec s = Spec(Keys({"a", "b"}));
  s.mode = trace::PrefetchMode::Warm;
  sm.submit_prefetch_task(s);
  Advance(sm, clock, 1'000'000);
  const L1Object* a = sm.l1().find(K("a"));
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->temporary);
  EXPECT_EQ(a->read_lock.count(), 0);
  // finish_write queued an L2 store (the mock skips the existing keys) and an LRU create.
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_tasks"].get<int>(), stores_before + 1);
  EXPECT_EQ(sm.eviction_policy().tracked(), 2u);
}

TEST(PrefetchController, RetainPolicyAdmitsPermanentObjects) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(1 << 20);
  add_l2_adapter(cfg, MockJson(1.0, 1.0));
  cfg.l2_prefetch_policy = "retain";
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"a"}));
  Advance(sm, clock, 1'000'000);
  sm.delete_l1_keys(Keys({"a"}));
  sm.submit_prefetch_task(Spec(Keys({"a"})));
  Advance(sm, clock, 1'000'000);
  ASSERT_TRUE(sm.l1().contains(K("a")));
  EXPECT_FALSE(sm.l1().find(K("a"))->temporary);
  sm.finish_read_keys(Keys({"a"}), 1);
  EXPECT_TRUE(sm.l1().contains(K("a")));  // not freed: permanent
}

}  // namespace
}  // namespace fleet::storage
