// Worked examples 8.1, 8.2, 8.6, 8.7 of docs/era3-reference.md §8 and the L1 lock rules.
#include <gtest/gtest.h>

#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
using S = L1Status;
using trace::WriteMode;

std::vector<S> V(std::initializer_list<S> v) { return v; }

TEST(Era3Example81, ReserveWriteModesOomAndLruOrder) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto A = K("A"), B = K("B"), C = K("C"), D = K("D"), E = K("E");
  EXPECT_EQ(sm.reserve_write_keys({A, B, C}, Layout4000(), WriteMode::New),
            V({S::Success, S::Success, S::Success}));
  EXPECT_EQ(sm.l1().memory_usage(), std::make_pair(uint64_t{12288}, uint64_t{16384}));
  // D does not get the one free slot: the batch of two is all-or-nothing.
  EXPECT_EQ(sm.reserve_write_keys({C, D, E}, Layout4000(), WriteMode::New),
            V({S::KeyNotWritable, S::OutOfMemory, S::OutOfMemory}));
  EXPECT_EQ(sm.l1().memory_usage().first, 12288u);
  EXPECT_EQ(sm.finish_write_keys({A, B}), V({S::Success, S::Success}));
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({B, A}));
  const uint64_t a_addr = sm.l1().find(A)->address;
  EXPECT_EQ(sm.reserve_write_keys({A, C, D}, Layout4000(), WriteMode::All),
            V({S::Success, S::KeyNotWritable, S::Success}));
  EXPECT_EQ(sm.l1().find(A)->address, a_addr);  // in place, same buffer
  EXPECT_EQ(sm.l1().memory_usage().first, 16384u);
  EXPECT_EQ(sm.reserve_write_keys({B, E}, Layout4000(), WriteMode::Update),
            V({S::Success, S::KeyNotWritable}));
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({B, A}));  // reserves never touch the LRU
  EXPECT_EQ(sm.finish_write_keys({A, B, C, D, E}),
            V({S::Success, S::Success, S::Success, S::Success, S::KeyNotExist}));
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({D, C, B, A}));

  // Eviction tick, ratio 0.2: usage 1.0 >= 0.8, target int(4*0.2)=0 -> 1, victim D.
  sm.eviction_tick_now();
  EXPECT_FALSE(sm.l1().contains(D));
  EXPECT_EQ(sm.l1().memory_usage().first, 12288u);
  sm.eviction_tick_now();  // usage 0.75: skipped
  EXPECT_EQ(sm.l1().num_objects(), 3u);
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(c["eviction_ticks_triggered"], 1);
  EXPECT_EQ(c["eviction_ticks_skipped"], 1);
  EXPECT_EQ(c["l1_evicted_keys"], 1);
  EXPECT_EQ(c["reserve_write_oom_keys"], 2);
  EXPECT_EQ(c["reserve_write_in_place_keys"], 2);
  EXPECT_EQ(c["finish_write_not_exist_keys"], 1);
}

void FillExample81(StorageManager& sm) {
  auto A = K("A"), B = K("B"), C = K("C"), D = K("D");
  Put(sm, {A, B, C, D});
  // Rebuild the example's final LRU order [D, C, B, A] (one created batch A,B,C,D).
  ASSERT_EQ(sm.eviction_policy().order(), KeyList({D, C, B, A}));
}

TEST(Era3Example81, RatioHalfEvictsDThenC) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(16384, 0.5), clock);
  StorageManager& sm = *opened;
  FillExample81(sm);
  sm.eviction_tick_now();
  EXPECT_FALSE(sm.l1().contains(K("D")));
  EXPECT_FALSE(sm.l1().contains(K("C")));
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({K("B"), K("A")}));
}

TEST(Era3Example81, ReadLockedCIsSkipped) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(16384, 0.5), clock);
  StorageManager& sm = *opened;
  FillExample81(sm);
  sm.l1().reserve_read({K("C")}, 1);
  sm.eviction_tick_now();
  EXPECT_FALSE(sm.l1().contains(K("D")));
  EXPECT_TRUE(sm.l1().contains(K("C")));
  EXPECT_FALSE(sm.l1().contains(K("B")));
  EXPECT_TRUE(sm.l1().contains(K("A")));
}

TEST(Era3Example82, FragmentationOom) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  KeyList k = Keys({"K1", "K2", "K3", "K4"});
  Put(sm, k);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(sm.l1().find(k[i])->address, 4096u * i);
  EXPECT_EQ(sm.delete_l1_keys({k[1], k[3]}), V({S::Success, S::Success}));
  using Blocks = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(sm.l1().allocator().free_blocks(), Blocks({{4096, 4096}, {12288, 4096}}));
  EXPECT_EQ(sm.l1().memory_usage().first, 8192u);
  // 8000 B -> footprint 8192: 8192 B are free, but not contiguous.
  EXPECT_EQ(sm.reserve_write_keys({K("X")}, Layout(2000), WriteMode::New), V({S::OutOfMemory}));
  EXPECT_EQ(sm.reserve_write_keys({K("Y"), K("Z")}, Layout4000(), WriteMode::New),
            V({S::Success, S::Success}));
  EXPECT_EQ(sm.l1().find(K("Y"))->address, 4096u);
  EXPECT_EQ(sm.l1().find(K("Z"))->address, 12288u);
}

TEST(AddressAllocator, FreesCoalesce) {
  AddressAllocator a(16384);
  std::vector<uint64_t> addrs;
  ASSERT_TRUE(a.allocate_batch(4096, 4, addrs));
  a.free(4096, 4096);
  a.free(12288, 4096);
  EXPECT_EQ(a.free_block_count(), 2u);
  a.free(8192, 4096);  // joins both neighbours
  EXPECT_EQ(a.free_block_count(), 1u);
  addrs.clear();
  ASSERT_TRUE(a.allocate_batch(12288, 1, addrs));
  EXPECT_EQ(addrs, std::vector<uint64_t>({4096}));
  EXPECT_FALSE(a.allocate_batch(4096, 1, addrs));
  EXPECT_EQ(a.used(), 16384u);
}

TEST(Era3Example86, TwoReadersAccounting) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto A = K("A"), B = K("B");
  Put(sm, {A, B});
  PrefetchHandle h = sm.submit_prefetch_task(Spec({A, B}, trace::TrimPolicy::Prefix, 2));
  EXPECT_EQ(h.l1_hit_chunks, 2u);
  EXPECT_EQ(ReadCount(sm, A), 2);
  engine::ReadContext ctx;
  sm.read_enter({A, B}, ctx);
  EXPECT_TRUE(ctx.all_good);
  sm.read_exit(ctx);
  EXPECT_EQ(ReadCount(sm, A), 1);
  EXPECT_EQ(sm.finish_read_keys({A, B}, 2), V({S::Success, S::Success}));
  EXPECT_EQ(ReadCount(sm, A), 0);
  EXPECT_EQ(sm.finish_read_keys({A, B}, 2), V({S::KeyInWrongState, S::KeyInWrongState}));
}

TEST(Era3Example87, TtlTimeline) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto k = K("K");
  Put(sm, {k});
  L1Manager& l1 = sm.l1();
  const int64_t s = 1'000'000'000;
  EXPECT_EQ(l1.reserve_read({k}, 1), V({S::Success}));
  EXPECT_EQ(l1.find(k)->read_lock.expiration_ms(), 300'000);
  clock.advance_to(100 * s);
  l1.reserve_read({k}, 1);
  EXPECT_EQ(l1.find(k)->read_lock.count(), 2);
  EXPECT_EQ(l1.find(k)->read_lock.expiration_ms(), 400'000);
  clock.advance_to(350 * s);
  EXPECT_EQ(l1.finish_read({k}, 1), V({S::Success}));
  EXPECT_EQ(l1.find(k)->read_lock.count(), 1);
  clock.advance_to(401 * s);
  EXPECT_EQ(l1.unsafe_read({k}), V({S::KeyNotReadable}));
  EXPECT_EQ(l1.finish_read({k}, 1), V({S::KeyInWrongState}));
  EXPECT_EQ(l1.find(k)->read_lock.count(), 1);  // nothing unlocked
  EXPECT_TRUE(l1.is_key_evictable(k));
  clock.advance_to(402 * s);
  l1.reserve_read({k}, 1);
  EXPECT_EQ(l1.find(k)->read_lock.count(), 1);  // a fresh count
  EXPECT_EQ(l1.find(k)->read_lock.expiration_ms(), 702'000);
}

TEST(L1Rules, ReadLocksClampTo128AndWriteLockedFinishReadIsWrongState) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto k = K("K");
  Put(sm, {k});
  sm.l1().reserve_read({k}, 1000);
  EXPECT_EQ(ReadCount(sm, k), 128);
  sm.l1().finish_read({k}, 0);  // clamped to 1
  EXPECT_EQ(ReadCount(sm, k), 127);
  auto w = K("W");
  sm.reserve_write_keys({w}, Layout4000(), WriteMode::New);
  EXPECT_EQ(sm.finish_read_keys({w}, 1), V({S::KeyInWrongState}));
  // reserve_read refuses write-locked keys; unsafe_read reports them not readable.
  EXPECT_EQ(sm.l1().reserve_read({w}, 1), V({S::KeyNotReadable}));
}

TEST(L1Rules, ExpiredWriteLockBecomesReadableAndFinishWriteIsWrongState) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto w = K("W");
  sm.reserve_write_keys({w}, Layout4000(), WriteMode::New);
  EXPECT_FALSE(sm.l1().is_key_evictable(w));
  clock.advance_to(600'000'000'000);
  EXPECT_TRUE(sm.l1().is_key_evictable(w));
  EXPECT_EQ(sm.l1().reserve_read({w}, 1), V({S::Success}));
  EXPECT_EQ(sm.finish_write_keys({w}), V({S::KeyInWrongState}));
}

TEST(L1Rules, DuplicateAbsentKeyLeaksFirstBuffer) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto a = K("A");
  EXPECT_EQ(sm.reserve_write_keys({a, a}, Layout4000(), WriteMode::New),
            V({S::Success, S::Success}));
  EXPECT_EQ(sm.l1().memory_usage().first, 8192u);
  EXPECT_EQ(sm.l1().num_objects(), 1u);
  EXPECT_EQ(sm.l1().stats().leaked_bytes, 4096u);
}

TEST(L1Rules, DeleteRefusesLockedKeysUnlessForced) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto a = K("A");
  Put(sm, {a});
  sm.l1().reserve_read({a}, 1);
  EXPECT_EQ(sm.l1().delete_keys({a, K("none")}, false), V({S::KeyIsLocked, S::KeyNotExist}));
  EXPECT_EQ(sm.l1().delete_keys({a}, true), V({S::Success}));
  EXPECT_TRUE(sm.eviction_policy().order().empty());
}

TEST(L1Rules, TemporaryObjectFreedOnLastFinishRead) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  auto t = K("T");
  L1Manager& l1 = sm.l1();
  l1.reserve_write({t}, true, Layout4000(), WriteMode::New);
  EXPECT_EQ(l1.finish_write_and_reserve_read({t}, 2), V({S::Success}));
  EXPECT_EQ(sm.eviction_policy().order(), KeyList({t}));  // prefetch admission creates
  // A temporary object is never writable in place.
  EXPECT_EQ(sm.reserve_write_keys({t}, Layout4000(), WriteMode::All), V({S::KeyNotWritable}));
  EXPECT_EQ(l1.finish_read({t}, 1), V({S::Success}));
  EXPECT_TRUE(l1.contains(t));
  EXPECT_EQ(l1.finish_read({t}, 1), V({S::Success}));
  EXPECT_FALSE(l1.contains(t));
  EXPECT_EQ(l1.memory_usage().first, 0u);
  EXPECT_TRUE(sm.eviction_policy().order().empty());
  EXPECT_EQ(l1.stats().temporary_frees, 1u);
}

TEST(L1Rules, FinishWriteNotifiesOnlyNonTemporary) {
  util::VirtualClock clock;
  auto opened = Open(ExampleConfig(), clock);
  StorageManager& sm = *opened;
  sm.l1().reserve_write({K("T")}, true, Layout4000(), WriteMode::New);
  EXPECT_EQ(sm.l1().finish_write({K("T")}), V({S::Success}));
  EXPECT_TRUE(sm.eviction_policy().order().empty());
}

}  // namespace
}  // namespace fleet::storage
