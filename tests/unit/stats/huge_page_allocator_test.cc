// The allocator behind a run's large sample arrays: large blocks are 2 MiB-aligned mappings
// (what transparent huge pages need), small ones plain heap; both behave as memory should.
#include "fleet/util/huge_page_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace fleet::util {
namespace {

TEST(HugePageAllocator, LargeArraysAreHugePageAlignedAndHoldTheirValues) {
  HugeVector<double> v(3'000'000);  // 24 MB: mapped
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kHugePage, 0u);
  std::iota(v.begin(), v.end(), 0.0);
  v.resize(5'000'000, -1.0);  // grows into a new mapping; the old one is unmapped
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kHugePage, 0u);
  EXPECT_EQ(v[2'999'999], 2'999'999.0);
  EXPECT_EQ(v[4'999'999], -1.0);
  HugeVector<double> w = v;  // a copy is its own mapping
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(w[123'456], 123'456.0);
}

TEST(HugePageAllocator, SmallArraysAndStringsWork) {
  HugeVector<int> small(100, 7);
  EXPECT_EQ(std::accumulate(small.begin(), small.end(), 0), 700);
  HugeString s(10u << 20, 'x');  // 10 MiB: mapped
  s += "tail";
  EXPECT_EQ(s.size(), (10u << 20) + 4);
  EXPECT_EQ(s.substr(s.size() - 5), "xtail");
}

}  // namespace
}  // namespace fleet::util
