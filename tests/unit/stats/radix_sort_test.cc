// The node's sort of its samples: the same order as std::sort, for every size around the
// switch to radix, every digit pattern, and the doubles latencies never are but a peer or a
// clock could produce (negatives, signed zeros, subnormals, infinities).
#include "fleet/stats/radix_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace fleet::stats {
namespace {

void expect_sorted_like_std(std::vector<double> v) {
  std::vector<double> want = v;
  std::sort(want.begin(), want.end());
  sort_doubles(v.data(), v.size());
  ASSERT_EQ(v.size(), want.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v[i], want[i]) << "at " << i << " of " << v.size();
  for (std::size_t i = 1; i < v.size(); ++i) {  // -0.0 before 0.0 where both appear
    if (v[i] == 0.0 && v[i - 1] == 0.0) {
      ASSERT_FALSE(!std::signbit(v[i - 1]) && std::signbit(v[i]));
    }
  }
}

TEST(SortDoubles, LatenciesOfEverySizeAroundTheRadixSwitch) {
  std::mt19937_64 rng(8);
  std::lognormal_distribution<double> lat(-3.0, 1.5);
  for (std::size_t n : {0u, 1u, 2u, 1000u, 1023u, 1024u, 1025u, 16384u, 100000u, 1000003u}) {
    std::vector<double> v(n);
    for (auto& x : v) x = lat(rng);
    expect_sorted_like_std(v);
  }
}

TEST(SortDoubles, AwkwardValuesAndFewDistinctDigits) {
  std::mt19937_64 rng(9);
  const double pool[] = {0.0,
                         -0.0,
                         -1.5,
                         1.5,
                         1e-310,
                         -1e-310,
                         std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         1e300,
                         -1e300,
                         0.25,
                         0.25};
  std::vector<double> v(50000);
  for (auto& x : v) x = pool[rng() % std::size(pool)];
  expect_sorted_like_std(v);
  std::vector<double> same(40000, 3.0);  // every pass skipped
  expect_sorted_like_std(same);
  std::vector<double> descending(30000);
  for (std::size_t i = 0; i < descending.size(); ++i)
    descending[i] = 1e6 - static_cast<double>(i) * 0.5;
  expect_sorted_like_std(descending);
  std::vector<double> bits(70000);  // random bit patterns: every digit of every pass varies
  for (auto& x : bits) {
    do {
      const uint64_t b = rng();
      std::memcpy(&x, &b, sizeof x);
    } while (std::isnan(x));
  }
  expect_sorted_like_std(bits);
}

// The keys are sorted in place and in one scratch array by turns, so the sorted keys end in
// either, by the parity of the passes that run: one pass (only the lowest digit varies), two,
// and three.
TEST(SortDoubles, EndsRightAfterAnOddOrEvenNumberOfPasses) {
  std::mt19937_64 rng(10);
  for (uint64_t varying_bits : {11u, 22u, 33u}) {
    std::vector<double> v(20000);
    for (auto& x : v) {
      uint64_t b;
      const double one = 1.0;
      std::memcpy(&b, &one, sizeof b);
      b += rng() & ((uint64_t{1} << varying_bits) - 1);
      std::memcpy(&x, &b, sizeof x);
    }
    expect_sorted_like_std(v);
  }
}

}  // namespace
}  // namespace fleet::stats
