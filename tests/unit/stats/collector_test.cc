#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
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
// summary() is cached; every later record or merge must show in the next summary.
TEST(OpStats, SummaryFollowsEveryChange) {
  OpStats s;
  EXPECT_EQ(s.summary().count, 0u);
  s.record_success(3.0);
  s.record_success(1.0);
  EXPECT_EQ(s.summary().max_ms, 3.0);
  s.record_success(9.0);
  EXPECT_EQ(s.summary().max_ms, 9.0);
  EXPECT_EQ(s.summary().count, 3u);
  s.record_failure();
  EXPECT_EQ(s.summary().errors, 1u);
  OpStats more;
  more.record_success(0.5);
  more.summary();  // sorted: merges as a sorted run
  s.merge(more);
  EXPECT_EQ(s.summary().min_ms, 0.5);
  EXPECT_EQ(s.summary().count, 4u);
  const double raw[] = {0.25, 0.75, 20.0};
  s.merge_encoded(raw, 3, 2, [&] {
    OpStats h;
    for (double v : raw) h.record_success(v);
    return h.histogram();
  }());
  const OpSummary after = s.summary();
  EXPECT_EQ(after.count, 7u);
  EXPECT_EQ(after.errors, 3u);
  EXPECT_EQ(after.min_ms, 0.25);
  EXPECT_EQ(after.max_ms, 20.0);
}

// Sorted runs merged (linear) and an unsorted part (sorted) give the numbers of one OpStats
// that recorded everything.
TEST(OpStats, SortedRunsAndUnsortedPartsMergeToTheUnion) {
  OpStats all, merged;
  for (int part = 0; part < 5; ++part) {
    OpStats p;
    for (int i = 0; i < 1000 + part * 10; ++i) {
      const double v = static_cast<double>((i * 7919 + part * 131) % 2003) / 7.0;
      p.record_success(v);
      all.record_success(v);
    }
    if (part != 2) p.sort_samples();  // part 2 stays in recording order
    merged.merge(p);
  }
  EXPECT_EQ(merged.summary(), all.summary());
}

// The embedded run prepares its one node's stats (sorted, exact-sum partials kept, on two
// threads) before merging them into the run's view: the merged summary must be bit for bit the
// summary of the samples as recorded, and recording after a prepare must still count.
TEST(StatsCollector, PreparedForMergeSummarisesExactlyAsRecorded) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> lat(-3.0, 2.0);
  StatsCollector node, reference;
  for (int i = 0; i < 60000; ++i) {
    const std::string q = "op" + std::to_string(rng() % 5);
    const double v = i % 11 == 0 ? 0.125 : lat(rng);  // ties, and a wide spread of magnitudes
    node.record(q, v, i % 97 == 0);
    reference.record(q, v, i % 97 == 0);
  }
  node.prepare_for_merge(2);
  StatsCollector merged;
  const StatsCollector* parts[] = {&node};
  merged.merge_all(parts);
  EXPECT_EQ(merged.summary(), reference.summary());
  EXPECT_EQ(node.summary(), reference.summary());

  node.record("op1", 1e6, false);
  reference.record("op1", 1e6, false);
  EXPECT_EQ(node.summary(), reference.summary());
}

}  // namespace fleet::stats
