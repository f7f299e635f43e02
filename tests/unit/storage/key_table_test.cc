// KeyTable against std::unordered_map: random inserts and erases (backward-shift deletion is
// the part that can silently lose keys), slot stability, iteration with erase, long keys.
#include "fleet/engine/key_table.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace fleet::storage {
namespace {

trace::ObjectKey key_n(uint64_t n, size_t hash_len = 32) {
  trace::ObjectKey k;
  std::string h(hash_len, '\x11');
  for (size_t i = 0; i < 8 && i < hash_len; ++i) h[i] = static_cast<char>(n >> (8 * i));
  k.chunk_hash = h;
  k.model_name = "m";
  return k;
}

TEST(KeyTable, FindInsertEraseBasics) {
  KeyTable<int> t;
  EXPECT_EQ(t.find(key_n(1)), KeyTable<int>::npos);
  auto [s, inserted] = t.try_emplace(key_n(1));
  ASSERT_TRUE(inserted);
  EXPECT_EQ(t.value(s), 0);  // value-initialised
  t.value(s) = 41;
  auto [s2, inserted2] = t.try_emplace(key_n(1));
  EXPECT_FALSE(inserted2);
  EXPECT_EQ(s2, s);
  EXPECT_EQ(t.value(s2), 41);
  EXPECT_EQ(t.key(s), key_n(1));
  EXPECT_EQ(t.size(), 1u);
  t.erase(s);
  EXPECT_EQ(t.find(key_n(1)), KeyTable<int>::npos);
  EXPECT_TRUE(t.empty());
  // The freed slot is reused and starts from a fresh value.
  auto [s3, inserted3] = t.try_emplace(key_n(2));
  EXPECT_TRUE(inserted3);
  EXPECT_EQ(s3, s);
  EXPECT_EQ(t.value(s3), 0);
}

TEST(KeyTable, KeysDifferingInEveryFieldAreDistinct) {
  KeyTable<int> t;
  trace::ObjectKey base = key_n(7);
  std::vector<trace::ObjectKey> keys(5, base);
  keys[1].model_name = "other";
  keys[2].kv_rank = 1;
  keys[3].object_group_id = 1;
  keys[4].cache_salt = "salt";
  for (size_t i = 0; i < keys.size(); ++i) t.value(t.try_emplace(keys[i]).first) = int(i);
  ASSERT_EQ(t.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(t.value(t.find(keys[i])), int(i));
}

// Random operations mirrored in std::unordered_map; after every step the two must agree on
// size, and periodically on every key ever used (present or not). Slots must not move.
TEST(KeyTable, MatchesUnorderedMapUnderRandomChurn) {
  std::mt19937_64 rng(12345);
  KeyTable<uint64_t> t;
  std::unordered_map<uint64_t, std::pair<KeyTable<uint64_t>::Slot, uint64_t>> ref;
  const uint64_t universe = 3000;  // small: many erases hit probe runs other keys sit in
  for (int step = 0; step < 200000; ++step) {
    const uint64_t n = rng() % universe;
    const size_t len = (n % 7 == 0) ? 48 : 32;  // some chunk hashes live on the heap
    const auto k = key_n(n, len);
    if (rng() % 3 != 0) {
      auto [s, inserted] = t.try_emplace(k);
      auto it = ref.find(n);
      ASSERT_EQ(inserted, it == ref.end()) << "step " << step;
      if (inserted) {
        t.value(s) = n * 3 + 1;
        ref[n] = {s, n * 3 + 1};
      } else {
        ASSERT_EQ(s, it->second.first) << "slot moved, step " << step;
      }
    } else {
      auto s = t.find(k);
      auto it = ref.find(n);
      ASSERT_EQ(s == KeyTable<uint64_t>::npos, it == ref.end()) << "step " << step;
      if (it != ref.end()) {
        ASSERT_EQ(s, it->second.first);
        t.erase(s);
        ref.erase(it);
      }
    }
    ASSERT_EQ(t.size(), ref.size());
    if (step % 20000 == 0 || step == 199999) {
      for (uint64_t m = 0; m < universe; ++m) {
        const auto km = key_n(m, (m % 7 == 0) ? 48 : 32);
        auto s = t.find(km);
        auto it = ref.find(m);
        ASSERT_EQ(s == KeyTable<uint64_t>::npos, it == ref.end()) << "key " << m;
        if (it != ref.end()) {
          ASSERT_EQ(s, it->second.first);
          ASSERT_EQ(t.value(s), it->second.second);
          ASSERT_EQ(t.key(s), km);
        }
      }
    }
  }
}

TEST(KeyTable, ForEachVisitsEveryLiveSlotAndMayEraseIt) {
  KeyTable<int> t;
  for (int i = 0; i < 1000; ++i) t.value(t.try_emplace(key_n(i)).first) = i;
  for (int i = 0; i < 1000; i += 3) t.erase(t.find(key_n(i)));
  int visited = 0;
  long long sum = 0;
  t.for_each([&](KeyTable<int>::Slot s) {
    ++visited;
    sum += t.value(s);
    if (t.value(s) % 2 == 0) t.erase(s);
  });
  EXPECT_EQ(visited, 666);
  long long expect = 0;
  int left = 0;
  for (int i = 0; i < 1000; ++i) {
    if (i % 3 == 0) continue;
    expect += i;
    if (i % 2 != 0) ++left;
  }
  EXPECT_EQ(sum, expect);
  EXPECT_EQ(t.size(), static_cast<size_t>(left));
  for (int i = 0; i < 1000; ++i) {
    const bool present = i % 3 != 0 && i % 2 != 0;
    EXPECT_EQ(t.find(key_n(i)) != KeyTable<int>::npos, present) << i;
  }
  t.clear();
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.find(key_n(1)), KeyTable<int>::npos);
}

}  // namespace
}  // namespace fleet::storage
