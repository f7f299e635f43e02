#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "fleet/stats/stats_collector.h"

namespace fleet::stats {
namespace {

TEST(StatsCollector, SortedByCodePointAndOnlyRecordedNames) {
  StatsCollector c;
  c.record("b", 1.0, false);
  c.record("\xc3\xa9", 1.0, false);  // U+00E9 sorts after ASCII
  c.record("B", 1.0, false);
  c.record("a", 0.0, true);  // failure-only: still listed
  std::vector<std::string> names;
  for (const auto& [n, s] : c.ops()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"B", "a", "b", "\xc3\xa9"}));
  EXPECT_EQ(c.op("a").errors(), 1u);
}

TEST(StatsCollector, OpReferenceStaysValid) {
  StatsCollector c;
  OpStats& first = c.op("m");
  for (int i = 0; i < 100; ++i) c.op("n" + std::to_string(i));
  first.record_success(2.0);
  EXPECT_EQ(c.ops().at("m").count(), 1u);
}

TEST(StatsCollector, MergeGivesExactPercentilesOfTheUnion) {
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> d(3.0);
  StatsCollector n1, n2, n3, all;
  StatsCollector* nodes[] = {&n1, &n2, &n3};
  for (int i = 0; i < 30001; ++i) {
    const char* q = i % 5 ? "reserve_write" : "finish_write";
    const double v = d(rng);
    const bool failed = i % 97 == 0;
    nodes[i % 3]->record(q, v, failed);
    all.record(q, v, failed);
  }
  n2.record("only_on_n2", 0.5, false);
  all.record("only_on_n2", 0.5, false);
  StatsCollector merged;
  for (auto* n : nodes) merged.merge(*n);
  EXPECT_EQ(merged.summary(), all.summary());
  for (const auto& [q, s] : all.ops())
    EXPECT_TRUE(merged.ops().at(q).histogram() == s.histogram()) << q;
  // Merging into a non-empty collector, in another order, gives the same numbers too.
  StatsCollector other = n3;
  other.merge(n1);
  other.merge(n2);
  EXPECT_EQ(other.summary(), all.summary());
}

}  // namespace
}  // namespace fleet::stats
