// `coordinator compare` of two L2 runs (insight/include/fleet/insight/compare/l2_comparison.h):
// deltas per kind and for the run, the parameters that differ, both outputs, and the refusal of
// an L2 run against a storage run naming both directories.
#include "fleet/insight/compare/l2_comparison.h"

#include <gtest/gtest.h>

#include "fleet/insight/compare/l2_threshold.h"
#include "test_paths.h"

namespace fleet::compare {
namespace {

std::string stored() {
  return test::source_dir() + "/tests/fixtures/l2_run_dirs/small_speed1_virtual";
}

summary::L2RunStats stored_run() {
  Result<summary::L2RunStats> r = summary::read_l2_run_stats(stored());
  EXPECT_TRUE(r) << r.status().message();
  return r.value();
}

const L2Delta& metric(const std::vector<L2Delta>& ds, const std::string& name) {
  for (const L2Delta& d : ds)
    if (d.metric == name) return d;
  ADD_FAILURE() << "no metric " << name;
  static const L2Delta none;
  return none;
}

TEST(L2Comparison, DeltasPerKindAndTheParametersThatDiffer) {
  const summary::L2RunStats a = stored_run();
  summary::L2RunStats b = a;
  b.speedup = 10;
  b.kinds[0].latency_p99_ms = a.kinds[0].latency_p99_ms * 2;
  b.kinds[1].outcome_mismatches += 3;
  b.total_replay_seconds = a.total_replay_seconds / 10;
  const L2Comparison c = compare_l2_runs(a, b);
  const nlohmann::json j = l2_comparison_json(c);
  EXPECT_EQ(j["level"], "l2");
  EXPECT_EQ(j["parameters_that_differ"], nlohmann::json::array({"speed"}));
  ASSERT_EQ(c.kinds.size(), 5u);
  EXPECT_EQ(c.kinds[0].kind, "store");
  const L2Delta& p99 = metric(c.kinds[0].metrics, "p99_ms");
  EXPECT_DOUBLE_EQ(p99.delta(), a.kinds[0].latency_p99_ms);
  EXPECT_DOUBLE_EQ(*p99.relative(), 1.0);
  EXPECT_EQ(metric(c.kinds[1].metrics, "outcome_mismatches").delta(), 3.0);
  EXPECT_EQ(metric(c.kinds[0].metrics, "submitted").delta(), 0.0);
  EXPECT_NEAR(*metric(c.run, "total_replay_seconds").relative(), -0.9, 1e-12);
  // Unlocks have no latency nor outcome: only what they have is compared.
  EXPECT_EQ(c.kinds[3].kind, "unlock");
  for (const L2Delta& d : c.kinds[3].metrics) EXPECT_NE(d.metric, "p99_ms");
  const std::string text = l2_terminal_table(c);
  EXPECT_NE(text.find("Comparing L2 runs"), std::string::npos);
  EXPECT_NE(text.find("differs"), std::string::npos);
  EXPECT_NE(text.find("+100.0 %"), std::string::npos);
}

TEST(L2Comparison, AnL2RunAgainstAStorageRunIsRefusedNamingBoth) {
  const std::string storage = test::source_dir() + "/tests/fixtures/run_dirs/embedded";
  const Status s = refuse_mixed_levels(stored(), storage);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(stored() + " is an L2 replay"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(storage + " is not"), std::string::npos);
  EXPECT_FALSE(refuse_mixed_levels(storage, stored()));
  EXPECT_TRUE(refuse_mixed_levels(stored(), stored()));
  EXPECT_TRUE(refuse_mixed_levels(storage, storage));
}

// --fail-on over an L2 comparison (l2_threshold.h): a per-kind latency on the change, a count on
// B's own value, a kind without latency not evaluated, an unknown metric named.
TEST(L2Threshold, MetricsMapOntoTheComparisonAndUnknownOnesAreNamed) {
  const summary::L2RunStats a = stored_run();
  summary::L2RunStats b = a;
  b.kinds[1].latency_p99_ms = a.kinds[1].latency_p99_ms + 2.0;  // lookup_task
  b.outcome_mismatch_count = 5;
  const L2Comparison c = compare_l2_runs(a, b);
  const ThresholdOutcome p99 = evaluate_l2(parse_l2_threshold("l2.lookup_task.p99 > 1.5"), c);
  EXPECT_TRUE(p99.crossed) << p99.message;
  EXPECT_NE(p99.message.find("change +2 ms > +1.5 ms"), std::string::npos) << p99.message;
  const ThresholdOutcome mism = evaluate_l2(parse_l2_threshold("l2.outcome_mismatches > 4"), c);
  EXPECT_TRUE(mism.crossed) << mism.message;  // B's 5, not the change
  const ThresholdOutcome held = evaluate_l2(parse_l2_threshold("l2.outcome_mismatches > 5"), c);
  EXPECT_FALSE(held.crossed) << held.message;
  const ThresholdOutcome unlock = evaluate_l2(parse_l2_threshold("l2.unlock.p99 > 0"), c);
  EXPECT_FALSE(unlock.evaluated);
  EXPECT_NE(unlock.message.find("unlock operations have no"), std::string::npos);
  try {
    parse_l2_threshold("l2.store.p95 > 1");
    ADD_FAILURE() << "an unknown statistic parsed";
  } catch (const ThresholdError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown L2 metric 'l2.store.p95'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_l2_threshold("finish_write.p99 > 1"), ThresholdError);  // a storage metric
  EXPECT_THROW(parse_l2_threshold("l2.ops_per_s == 1"), ThresholdError);     // the grammar's
}

}  // namespace
}  // namespace fleet::compare
