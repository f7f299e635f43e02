// Sorted runs kept by reference (a node's samples where its DONE message arrived): the
// summary selects percentiles across them without building the union, and must equal the
// summary of one OpStats that recorded every sample; anything that needs the samples
// themselves (samples(), record_success, merge) first turns them into an array of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "fleet/stats/fsum.h"
#include "fleet/stats/op_stats.h"
#include "fleet/stats/sorted_runs.h"

namespace fleet::stats {
namespace {

std::vector<std::vector<double>> random_runs(size_t k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> lat(-1.0, 1.5);
  std::vector<std::vector<double>> runs(k);
  for (size_t i = 0; i < k; ++i) {
    const size_t n = 1 + rng() % 5000;
    for (size_t j = 0; j < n; ++j) runs[i].push_back(j % 17 == 0 ? 0.25 : lat(rng));  // ties
    std::sort(runs[i].begin(), runs[i].end());
  }
  return runs;
}

// Runs shared with the OpStats (each run's vector is its own owner), with or without the
// nodes' exact-sum partials.
OpStats shared(const std::vector<std::vector<double>>& runs, bool partials) {
  OpStats s;
  for (const auto& r : runs) {
    auto owner = std::make_shared<std::vector<double>>(r);
    LogLinearHistogram h;
    for (double v : r) h.record(OpStats::ms_to_ns(v));
    auto p = fsum_partials(r);
    s.merge_encoded_shared(owner, owner->data(), owner->size(), 3, h, partials ? &*p : nullptr);
  }
  return s;
}

OpStats recorded(const std::vector<std::vector<double>>& runs) {
  OpStats s;
  for (const auto& r : runs) {
    for (double v : r) s.record_success(v);
    for (int e = 0; e < 3; ++e) s.record_failure();
  }
  return s;
}

class SharedRuns : public ::testing::TestWithParam<size_t> {};

TEST_P(SharedRuns, SummaryEqualsOneCollectorOverEverySample) {
  for (bool partials : {true, false}) {
    const auto runs = random_runs(GetParam(), 11 + GetParam());
    const OpStats want = recorded(runs);
    const OpStats got = shared(runs, partials);
    EXPECT_EQ(got.count(), want.count());
    EXPECT_EQ(got.summary(), want.summary()) << "partials " << partials;  // mean bit for bit
    EXPECT_TRUE(got.histogram() == want.histogram());
  }
}

TEST_P(SharedRuns, MergedNodesShareTheirRunsAndStillSummariseExactly) {
  const auto runs = random_runs(GetParam(), 5 + GetParam());
  std::vector<OpStats> nodes;
  for (const auto& r : runs) nodes.push_back(shared({r}, true));
  std::vector<const OpStats*> parts;
  for (const auto& n : nodes) parts.push_back(&n);
  OpStats merged;
  merged.merge_all(parts);
  const OpStats want = recorded(runs);
  EXPECT_EQ(merged.summary(), want.summary());
  // The samples themselves, when asked for, are the sorted union.
  std::vector<double> all;
  for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
  std::sort(all.begin(), all.end());
  const auto s = merged.samples();
  EXPECT_TRUE(std::equal(s.begin(), s.end(), all.begin(), all.end()));
  EXPECT_EQ(merged.summary(), want.summary());
}

TEST_P(SharedRuns, RecordingIntoSharedRunsKeepsEverySample) {
  const auto runs = random_runs(GetParam(), 17 + GetParam());
  OpStats got = shared(runs, true);
  OpStats want = recorded(runs);
  got.record_success(0.125);
  want.record_success(0.125);
  OpStats other = shared(random_runs(2, 99), false);
  got.merge(other);
  want.merge(other);
  EXPECT_EQ(got.summary(), want.summary());
}

INSTANTIATE_TEST_SUITE_P(Runs, SharedRuns, ::testing::Values(1, 2, 4, 9, 40));

TEST(SelectRank, EveryRankOfTheUnionIncludingSignedZerosAndNegatives) {
  std::mt19937_64 rng(3);
  std::vector<std::vector<double>> runs(5);
  std::vector<double> all;
  for (auto& r : runs) {
    for (int i = 0; i < 300; ++i) {
      const int pick = static_cast<int>(rng() % 6);
      double v = pick == 0   ? 0.0
                 : pick == 1 ? -0.0
                 : pick == 2 ? -1.5
                             : static_cast<double>(rng() % 1000) / 7.0;
      r.push_back(v);
    }
    std::sort(r.begin(), r.end());
    all.insert(all.end(), r.begin(), r.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<std::span<const double>> spans(runs.begin(), runs.end());
  for (uint64_t rank = 1; rank <= all.size(); ++rank) {
    const double v = select_rank(spans, rank);
    ASSERT_EQ(v, all[rank - 1]) << "rank " << rank;
  }
}

}  // namespace
}  // namespace fleet::stats
