// Two summaries compared: the union of ops (added / removed), latency intervals and their
// significance, cache rates with Newcombe's interval, records, lateness, config differences,
// and the partial rule.
#include "fleet/insight/compare/comparison.h"

#include <gtest/gtest.h>

#include "compare_test_util.h"
#include "fleet/insight/compare/rate_interval.h"

namespace fleet::compare {
namespace {

using namespace testing;

const OpComparison* op(const Comparison& c, const std::string& q) {
  for (const auto& o : c.ops) {
    if (o.qualname == q) return &o;
  }
  return nullptr;
}

TEST(Comparison, OpsUnionLatencyAndSignificance) {
  auto sa = summary(), sb = summary();
  add_op(sa, kFinishWrite, 3000, 0.05, 1);
  add_op(sb, kFinishWrite, 3000, 0.08, 2);  // much slower
  add_op(sa, kEnter, 3000, 0.02, 3);
  const std::string only_b = "x.StorageManager.submit_prefetch_task";
  add_op(sb, only_b, 10, 0.01, 4, 2);
  const Comparison c = compare_runs(snapshot(sa, "a"), snapshot(sb, "b"), {.resamples = 300});
  ASSERT_EQ(c.ops.size(), 3u);

  const OpComparison* fw = op(c, kFinishWrite);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(fw->short_name, "finish_write");
  EXPECT_EQ(fw->presence, OpComparison::Presence::kBoth);
  const Change* p50 = find_change(fw->stats, "p50");
  ASSERT_NE(p50, nullptr);
  ASSERT_TRUE(p50->ci.has_value());
  EXPECT_EQ(p50->significance(), Significance::kIncrease);
  EXPECT_GT(p50->delta(), 0.02);

  const OpComparison* enter = op(c, kEnter);
  ASSERT_NE(enter, nullptr);
  EXPECT_EQ(enter->short_name, "read_prefetched_results.enter");
  EXPECT_EQ(enter->presence, OpComparison::Presence::kRemoved);
  EXPECT_EQ(find_change(enter->stats, "count")->b, 0.0);  // no call in B
  EXPECT_FALSE(find_change(enter->stats, "p99")->comparable());
  EXPECT_FALSE(enter->ci_note.empty());

  const OpComparison* added = op(c, only_b);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(added->presence, OpComparison::Presence::kAdded);
  EXPECT_EQ(find_change(added->stats, "errors")->b, 2.0);
}

TEST(Comparison, CacheRatesRecordsLatenessAndConfig) {
  const Comparison c =
      compare_runs(snapshot(summary(1, 100, 0), "a"), snapshot(summary(8, 300, 3), "b"), {});
  const Change* l1 = find_change(c.cache, "l1_hit_rate");
  ASSERT_NE(l1, nullptr);
  EXPECT_DOUBLE_EQ(l1->delta(), 0.2);
  EXPECT_EQ(l1->significance(), Significance::kIncrease);
  const Change* miss = find_change(c.cache, "miss_rate");
  EXPECT_EQ(miss->significance(), Significance::kDecrease);
  EXPECT_EQ(find_change(c.cache, "lookup_keys")->b, 1000.0);

  EXPECT_EQ(find_change(c.records, "failed")->b, 3.0);
  EXPECT_DOUBLE_EQ(*find_change(c.records, "records_per_s")->a, 100.0);
  EXPECT_EQ(find_change(c.lateness, "p99")->a, 40.0);
  EXPECT_FALSE(find_change(c.lateness, "p99")->ci.has_value());

  ASSERT_TRUE(c.configs_present);
  ASSERT_EQ(c.config.size(), 1u);
  EXPECT_EQ(describe(c.config[0]), "l1_manager_config.memory_config.size_in_gb: 1.0 -> 8.0");
  EXPECT_NE(c.a.config_digest, c.b.config_digest);
}

TEST(Comparison, SameRunIsNoSignificantChangeAnywhere) {
  auto s = summary();
  add_op(s, kFinishWrite, 2000, 0.05, 1);
  const Comparison c = compare_runs(snapshot(s, "a"), snapshot(s, "a"), {.resamples = 300});
  for (const auto& n : c.ops.front().stats) {
    if (n.change.ci) {
      EXPECT_EQ(n.change.significance(), Significance::kNotSignificant) << n.name;
    }
  }
  for (const auto& n : c.cache) {
    if (n.change.ci) {
      EXPECT_EQ(n.change.significance(), Significance::kNotSignificant) << n.name;
    }
  }
  EXPECT_TRUE(c.config.empty());
}

TEST(Comparison, PartialRuns) {
  auto s = summary();
  s["nodes"] = {{{"name", "w0"}, {"status", "ok"}},
                {{"name", "w1"},
                 {"status", "lost"},
                 {"engine", {{"counters", {{"lost_reason", "no heartbeat for 1504 ms"}}}}}}};
  const RunSnapshot lost = snapshot(s, "a");
  EXPECT_TRUE(lost.partial);
  EXPECT_EQ(lost.partial_reason, "node w1 lost: no heartbeat for 1504 ms");
  auto stopped = summary();
  stopped["stopped_early"] = true;
  EXPECT_TRUE(snapshot(stopped, "b").partial);
  EXPECT_FALSE(snapshot(summary(), "c").partial);
  const Comparison c = compare_runs(lost, snapshot(summary(), "c"), {});
  EXPECT_TRUE(c.a.partial);
  EXPECT_FALSE(c.b.partial);
}

TEST(Comparison, DamagedHistogramNamesTheFile) {
  auto s = summary();
  add_op(s, kFinishWrite, 10, 0.05, 1);
  s["latency_histograms_ns"][kFinishWrite]["count"] = 11;  // buckets add up to 10
  try {
    compare_runs(snapshot(s, "runs/a"), snapshot(s, "runs/a"), {});
    FAIL() << "accepted";
  } catch (const RunInputError& e) {
    EXPECT_NE(std::string(e.what()).find("runs/a/fleet_summary.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("finish_write"), std::string::npos);
  }
}

TEST(RateInterval, NewcombesWorkedExample) {
  // Newcombe (1998), example (a): 56/70 vs 48/80, method 10: 0.0524 to 0.3339 (A - B there).
  const Interval i = proportion_difference_interval(48, 80, 56, 70);
  EXPECT_NEAR(i.low, 0.0524, 1e-4);
  EXPECT_NEAR(i.high, 0.3339, 1e-4);
  // Identical rates: an interval around 0, also at 0 and 1.
  EXPECT_TRUE(proportion_difference_interval(0, 500, 0, 500).contains_zero());
  EXPECT_TRUE(proportion_difference_interval(500, 500, 500, 500).contains_zero());
  EXPECT_FALSE(proportion_difference_interval(0, 10000, 30, 10000).contains_zero());
}

}  // namespace
}  // namespace fleet::compare
