// The stack algorithm of `lct mrc` against a byte LRU simulated the obvious way: identical
// misses and missed bytes at every capacity of a grid, on many small random streams; slot
// compaction keeps distances exact; knees sit where a loop starts to fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "mrc/byte_size.h"
#include "mrc/fenwick_tree.h"
#include "mrc/knees.h"
#include "mrc/miss_ratio_curve.h"
#include "mrc/stack_distance.h"
#include "mrc_test_util.h"

namespace fleet::mrc {
namespace {

using testing::brute_force_lru;
using testing::KeyBytes;
using testing::stream_of;

// ~1000 accesses over ~50 keys with a mix of recency and popularity; sizes fixed per key, or
// (every third seed) growing now and then on a re-access.
std::vector<KeyBytes> random_stream(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t keys = 10 + static_cast<uint32_t>(rng() % 70);
  const size_t n = 800 + rng() % 400;
  std::vector<uint64_t> size(keys);
  for (auto& s : size) s = 1 + rng() % (seed % 2 ? 1000 : 8);  // varied or near-uniform
  std::vector<KeyBytes> out;
  for (size_t i = 0; i < n; ++i) {
    uint32_t k;
    uint64_t pick = rng() % 10;
    if (pick < 4 && !out.empty()) {
      k = out[out.size() - 1 - rng() % std::min<size_t>(out.size(), 8)].first;  // recent
    } else if (pick < 7) {
      double u = std::uniform_real_distribution<double>(0, 1)(rng);
      k = static_cast<uint32_t>(u * u * keys);  // popular low ids
    } else {
      k = static_cast<uint32_t>(rng() % keys);
    }
    if (seed % 3 == 0 && rng() % 20 == 0) size[k] += 1 + rng() % 300;
    out.emplace_back(k, size[k]);
  }
  return out;
}

std::vector<uint64_t> capacities(const std::vector<KeyBytes>& s, const DistanceHistogram& h) {
  uint64_t total = 0;
  std::map<uint32_t, uint64_t> last;
  for (const auto& [k, b] : s) last[k] = b;
  for (const auto& [k, b] : last) total += b;
  std::vector<uint64_t> c = log_spaced_sizes(1, 2 * total, 40);
  c.push_back(0);
  // Around the curve's steps too: a step is exactly where hit turns into miss.
  for (uint64_t probe : {total / 9, total / 5, total / 3, total / 2}) {
    uint64_t step = h.step_at_or_below(probe);
    for (uint64_t d : {step - 1, step, step + 1})
      if (step > 0) c.push_back(d);
  }
  return c;
}

TEST(MrcStackDistance, EqualsBruteForceLruAtEverySizeOfAGrid) {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<KeyBytes> s = random_stream(seed);
    MissRatioCurve curve = MissRatioCurve::compute(stream_of(s, AccessKind::Write));
    for (uint64_t c : capacities(s, curve.histogram())) {
      testing::LruOutcome lru = brute_force_lru(s, c);
      Tally m = curve.histogram().misses(c);
      ASSERT_EQ(m.accesses, lru.misses) << "capacity " << c;
      ASSERT_EQ(m.bytes, lru.miss_bytes) << "capacity " << c;
      ASSERT_EQ(curve.at(c).misses, lru.misses);
      ASSERT_DOUBLE_EQ(curve.at(c).miss_ratio, static_cast<double>(lru.misses) / s.size());
    }
  }
}

TEST(MrcStackDistance, DistanceIsBytesOfDistinctObjectsSinceLastAccessPlusOwn) {
  StackDistance sd;
  EXPECT_EQ(sd.access(0, 10), StackDistance::kColdMiss);  // A
  EXPECT_EQ(sd.access(1, 20), StackDistance::kColdMiss);  // B
  EXPECT_EQ(sd.access(2, 30), StackDistance::kColdMiss);  // C
  EXPECT_EQ(sd.access(1, 20), 20u + 30u);                 // B: C since, plus itself
  EXPECT_EQ(sd.access(1, 20), 20u);                       // B again: only itself
  EXPECT_EQ(sd.access(0, 10), 10u + 20u + 30u);           // A: B and C (B counted once)
  EXPECT_EQ(sd.resident_bytes(), 60u);
  sd.forget(2);  // C's write aborted: gone from the cache
  EXPECT_EQ(sd.resident_bytes(), 30u);
  EXPECT_EQ(sd.access(2, 30), StackDistance::kColdMiss);
  EXPECT_EQ(sd.access(1, 20), 20u + 10u + 30u);
}

TEST(MrcStackDistance, CompactionKeepsDistancesExact) {
  // 50 000 accesses over 300 keys: slots are renumbered many times.
  std::mt19937_64 rng(9);
  StackDistance sd;
  std::vector<std::pair<uint32_t, uint64_t>> stack;  // most recent first, the naive way
  for (int i = 0; i < 50000; ++i) {
    uint32_t k = static_cast<uint32_t>(rng() % 300);
    uint64_t b = 1 + k % 17;
    uint64_t expect = StackDistance::kColdMiss, sum = 0;
    for (size_t j = 0; j < stack.size(); ++j) {
      sum += stack[j].second;
      if (stack[j].first == k) {
        expect = sum;
        stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(j));
        break;
      }
    }
    stack.insert(stack.begin(), {k, b});
    ASSERT_EQ(sd.access(k, b), expect) << "access " << i;
  }
}

TEST(MrcFenwickTree, PrefixSumsAndLinearBuildAgree) {
  std::vector<uint64_t> v = {5, 0, 7, 1, 1, 9, 2, 3, 4, 8, 6};
  FenwickTree built(v), added(std::vector<uint64_t>(v.size(), 0));
  for (size_t i = 0; i < v.size(); ++i) added.add(i, v[i]);
  uint64_t sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    sum += v[i];
    EXPECT_EQ(built.prefix_sum(i), sum);
    EXPECT_EQ(added.prefix_sum(i), sum);
  }
  built.subtract(3, 1);
  EXPECT_EQ(built.prefix_sum(10), sum - 1);
}

TEST(MrcKnees, ALoopKneesExactlyWhereItFits) {
  // A loop over 20 objects of 1 MiB: every access misses below 20 MiB, all but the cold ones
  // hit from 20 MiB on. A second loop of 3 objects runs in between, so there are two knees.
  std::vector<KeyBytes> s;
  const uint64_t mib = 1 << 20;
  for (int round = 0; round < 50; ++round)
    for (uint32_t k = 0; k < 20; ++k) s.emplace_back(k, mib);
  MissRatioCurve curve = MissRatioCurve::compute(stream_of(s, AccessKind::Write));
  EXPECT_DOUBLE_EQ(curve.at(20 * mib - 1).miss_ratio, 1.0);
  EXPECT_DOUBLE_EQ(curve.at(20 * mib).miss_ratio, 20.0 / s.size());
  std::vector<Knee> knees = find_knees(curve);
  ASSERT_EQ(knees.size(), 1u);  // a single step: one knee
  EXPECT_EQ(knees[0].size_bytes, 20 * mib);
  EXPECT_DOUBLE_EQ(knees[0].miss_ratio_at_half, 1.0);

  std::vector<KeyBytes> two;
  for (int round = 0; round < 200; ++round) {
    for (uint32_t k = 0; k < 3; ++k) two.emplace_back(100 + k, mib);  // hot: 3 MiB
    two.emplace_back(round % 40, mib);                                // cold loop: 40 MiB
  }
  knees = find_knees(MissRatioCurve::compute(stream_of(two, AccessKind::Write)));
  ASSERT_EQ(knees.size(), 2u);
  EXPECT_EQ(knees[0].size_bytes, 4 * mib);  // the hot loop plus one cold object between
  EXPECT_GT(knees[0].drop(), knees[1].drop());
  EXPECT_GE(knees[1].size_bytes, 40 * mib);
  EXPECT_LE(knees[1].size_bytes, 43 * mib);
}

TEST(MrcByteSize, ParsesBinaryUnitsAndRejectsNonsense) {
  EXPECT_EQ(parse_byte_size("1GB"), uint64_t{1} << 30);
  EXPECT_EQ(parse_byte_size("1.5GiB"), uint64_t{3} << 29);
  EXPECT_EQ(parse_byte_size("512mb"), uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_size(" 4096 "), 4096u);
  EXPECT_EQ(parse_byte_size("2 K"), 2048u);
  EXPECT_EQ(parse_byte_size("1TB"), uint64_t{1} << 40);
  for (const char* bad : {"", "GB", "x1", "1XB", "0", "1..5GB", "-1GB", "99999999999TB"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(uint64_t{3} << 29), "1.50 GiB");
  EXPECT_EQ(format_byte_size(uint64_t{200} << 20), "200.0 MiB");
}

TEST(MrcGrid, LogSpacedIncludesBothEnds) {
  std::vector<uint64_t> g = log_spaced_sizes(1024, 1 << 20, 11);
  ASSERT_EQ(g.size(), 11u);
  EXPECT_EQ(g.front(), 1024u);
  EXPECT_EQ(g[1], 2048u);
  EXPECT_EQ(g.back(), 1u << 20);
  EXPECT_EQ(log_spaced_sizes(5, 5, 40), std::vector<uint64_t>{5});
}

}  // namespace
}  // namespace fleet::mrc
