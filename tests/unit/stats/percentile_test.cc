#include <gtest/gtest.h>

#include <vector>

#include "fleet/stats/op_stats.h"
#include "fleet/stats/percentile_rank.h"

namespace fleet::stats {
namespace {

OpStats with(std::vector<double> v) {
  OpStats s;
  for (double x : v) s.record_success(x);
  return s;
}

TEST(NearestRank, OneToHundred) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  const OpSummary s = with(v).summary();
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.p50_ms, 50.0);  // the old floor rule gave 51
  EXPECT_EQ(s.p90_ms, 90.0);
  EXPECT_EQ(s.p99_ms, 99.0);
  EXPECT_EQ(s.min_ms, 1.0);
  EXPECT_EQ(s.max_ms, 100.0);
  EXPECT_EQ(s.mean_ms, 50.5);
}

TEST(NearestRank, SmallN) {
  // n=1: every rank is 1.
  OpSummary s = with({7.5}).summary();
  EXPECT_EQ(s.p50_ms, 7.5);
  EXPECT_EQ(s.p90_ms, 7.5);
  EXPECT_EQ(s.p99_ms, 7.5);
  EXPECT_EQ(s.mean_ms, 7.5);
  // n=2 sorted [1, 3]: p50 rank ceil(100/100)=1 -> 1; p90 ceil(180/100)=2 -> 3; p99 -> 3.
  s = with({3.0, 1.0}).summary();
  EXPECT_EQ(s.p50_ms, 1.0);
  EXPECT_EQ(s.p90_ms, 3.0);
  EXPECT_EQ(s.p99_ms, 3.0);
  EXPECT_EQ(s.mean_ms, 2.0);
  // n=3 sorted [2, 4, 8]: p50 ceil(150/100)=2 -> 4; p90 ceil(270/100)=3 -> 8; p99 -> 8.
  s = with({8.0, 2.0, 4.0}).summary();
  EXPECT_EQ(s.p50_ms, 4.0);
  EXPECT_EQ(s.p90_ms, 8.0);
  EXPECT_EQ(s.p99_ms, 8.0);
  EXPECT_EQ(s.mean_ms, 14.0 / 3.0);
}

TEST(NearestRank, RankRule) {
  EXPECT_EQ(nearest_rank(50, 100), 50u);
  EXPECT_EQ(nearest_rank(7, 100), 7u);  // 7/100.0*100 would be 7.000000000000001 -> 8
  EXPECT_EQ(nearest_rank(99, 10), 10u);
  EXPECT_EQ(nearest_rank(1, 10), 1u);
  EXPECT_EQ(nearest_rank(0, 10), 1u);
  EXPECT_EQ(nearest_rank(-5, 10), 1u);
  EXPECT_EQ(nearest_rank(100, 10), 10u);
  EXPECT_EQ(nearest_rank(150, 10), 10u);
  EXPECT_EQ(nearest_rank(99.9, 1000), 999u);
  EXPECT_EQ(nearest_rank(99.9, 10000), 9990u);
  EXPECT_EQ(nearest_rank(50, UINT64_C(18446744073709551615)), UINT64_C(9223372036854775808));
}

TEST(OpStats, NoSamplesAllZero) {
  OpStats s;
  s.record_failure();
  s.record_failure();
  const OpSummary sum = s.summary();
  EXPECT_EQ(sum, (OpSummary{0, 2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}));
}

TEST(OpStats, FailuresAddNoSample) {
  OpStats s = with({1.0, 2.0});
  s.record_failure();
  const OpSummary sum = s.summary();
  EXPECT_EQ(sum.count, 2u);
  EXPECT_EQ(sum.errors, 1u);
  EXPECT_EQ(sum.mean_ms, 1.5);
}

TEST(OpStats, RecordAfterSummaryResorts) {
  OpStats s = with({5.0, 1.0});
  EXPECT_EQ(s.summary().max_ms, 5.0);
  s.record_success(0.5);
  const OpSummary sum = s.summary();
  EXPECT_EQ(sum.min_ms, 0.5);
  EXPECT_EQ(sum.p50_ms, 1.0);
  EXPECT_EQ(s.histogram().count(), 3u);
  EXPECT_EQ(s.histogram().min(), 500'000);
}

}  // namespace
}  // namespace fleet::stats
