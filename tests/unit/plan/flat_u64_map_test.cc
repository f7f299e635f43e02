// FlatU64Map against std::unordered_map: random inserts, updates and erases over a small key
// universe (long probe runs, constant backward shifts), including key 0 and keys that share a
// home slot.
#include "fleet/plan/flat_u64_map.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace fleet::plan {
namespace {

TEST(FlatU64Map, MirrorsUnorderedMapUnderRandomChurn) {
  FlatU64Map<int> m;
  std::unordered_map<uint64_t, int> ref;
  std::mt19937_64 rng(42);
  // 300 keys, some of them multiples of 2^58 (the multiply-shift sends those to few homes).
  std::vector<uint64_t> universe;
  for (uint64_t k = 0; k < 200; ++k) universe.push_back(k);
  for (uint64_t k = 1; k <= 100; ++k) universe.push_back(k << 58);
  for (int step = 0; step < 200000; ++step) {
    const uint64_t k = universe[rng() % universe.size()];
    switch (rng() % 3) {
      case 0:
        m[k] += 1;
        ref[k] += 1;
        break;
      case 1:
        m.erase(k);
        ref.erase(k);
        break;
      default: {
        const int* got = m.find(k);
        auto it = ref.find(k);
        ASSERT_EQ(got != nullptr, it != ref.end()) << "key " << k << " at step " << step;
        if (got) {
          ASSERT_EQ(*got, it->second) << "key " << k;
        }
      }
    }
    ASSERT_EQ(m.size(), ref.size()) << "step " << step;
  }
  for (uint64_t k : universe) {
    const int* got = m.find(k);
    auto it = ref.find(k);
    ASSERT_EQ(got != nullptr, it != ref.end()) << "key " << k;
    if (got) {
      EXPECT_EQ(*got, it->second);
    }
  }
}

TEST(FlatU64Map, GrowsKeepingEveryValue) {
  FlatU64Map<uint64_t> m;
  for (uint64_t k = 0; k < 100000; ++k) m[k * 7919] = k;
  EXPECT_EQ(m.size(), 100000u);
  for (uint64_t k = 0; k < 100000; ++k) {
    ASSERT_NE(m.find(k * 7919), nullptr);
    EXPECT_EQ(*m.find(k * 7919), k);
  }
  EXPECT_EQ(m.find(1), nullptr);
}

}  // namespace
}  // namespace fleet::plan
