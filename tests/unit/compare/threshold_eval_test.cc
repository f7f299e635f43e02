// Thresholds checked against a comparison: B's value for counters, the change otherwise, the
// relative change for percentages; a change inside its interval's noise only counts with
// --strict; op names by qualname, short name or dotted suffix; unknown and ambiguous names are
// errors naming the token.
#include <gtest/gtest.h>

#include "compare_test_util.h"
#include "fleet/insight/compare/threshold.h"

namespace fleet::compare {
namespace {

using namespace testing;

Comparison slower_b() {
  auto sa = summary(1, 100, 0), sb = summary(8, 300, 2);
  add_op(sa, kFinishWrite, 3000, 0.05, 1);
  add_op(sb, kFinishWrite, 3000, 0.08, 2);
  add_op(sa, kEnter, 3000, 0.02, 3);
  add_op(sb, kEnter, 3000, 0.02, 4);  // same distribution: no significant change
  return compare_runs(snapshot(sa, "a"), snapshot(sb, "b"), {.resamples = 300});
}

ThresholdOutcome check(const std::string& text, const Comparison& c, bool strict = false) {
  return evaluate(parse_threshold(text), c, strict);
}

TEST(ThresholdEval, CountersCompareBsValue) {
  const Comparison c = slower_b();
  const ThresholdOutcome failed = check("failed > 0", c);
  EXPECT_TRUE(failed.crossed);
  EXPECT_NE(failed.message.find("B 2"), std::string::npos) << failed.message;
  EXPECT_FALSE(check("failed > 2", c).crossed);
  EXPECT_TRUE(check("failed >= 2", c).crossed);
  EXPECT_FALSE(check("finish_write.errors > 0", c).crossed);
  EXPECT_TRUE(check("finish_write.count < 5000", c).crossed);
}

TEST(ThresholdEval, RelativeAndAbsoluteChanges) {
  const Comparison c = slower_b();
  const ThresholdOutcome p99 = check("finish_write.p99 > +10%", c);
  EXPECT_TRUE(p99.evaluated);
  EXPECT_TRUE(p99.crossed) << p99.message;
  EXPECT_NE(p99.message.find("CROSSED"), std::string::npos);
  EXPECT_NE(p99.message.find(" by "), std::string::npos) << "says by how much";
  EXPECT_FALSE(check("finish_write.p99 > +200%", c).crossed);
  EXPECT_TRUE(check("finish_write.p50 > 0.01", c).crossed);  // +0.03 ms
  EXPECT_FALSE(check("finish_write.p50 < 0", c).crossed);
  // The L1 hit rate rose by 0.2: a drop threshold holds no alarm, a rise one does.
  EXPECT_FALSE(check("cache.l1_hit_rate < -0.02", c).crossed);
  EXPECT_TRUE(check("cache.l1_hit_rate > 0.1", c).crossed);
  EXPECT_TRUE(check("cache.miss_rate < -10%", c).crossed);
  // No interval for lateness or throughput: the value alone decides.
  EXPECT_FALSE(check("lateness.p99 > 0", c).crossed);
  EXPECT_FALSE(check("records_per_s < -5%", c).crossed);
  EXPECT_TRUE(check("records_per_s <= 0%", c).crossed);
}

TEST(ThresholdEval, ANoiseChangeCountsOnlyWithStrict) {
  const Comparison c = slower_b();
  // read_prefetched_results.enter: two samples of one distribution, so any change is noise.
  const Change* mean = find_change(c.ops[1].stats, "mean");
  ASSERT_EQ(c.ops[1].short_name, "read_prefetched_results.enter");
  ASSERT_EQ(mean->significance(), Significance::kNotSignificant);
  const std::string t = mean->delta() > 0 ? "read_prefetched_results.enter.mean > 0%"
                                          : "read_prefetched_results.enter.mean < 0%";
  const ThresholdOutcome lenient = check(t, c);
  EXPECT_FALSE(lenient.crossed);
  EXPECT_TRUE(lenient.not_significant);
  EXPECT_NE(lenient.message.find("--strict"), std::string::npos);
  const ThresholdOutcome strict = check(t, c, true);
  EXPECT_TRUE(strict.crossed);
  EXPECT_FALSE(strict.not_significant);
}

TEST(ThresholdEval, OpNamesByQualnameShortNameOrSuffix) {
  const Comparison c = slower_b();
  EXPECT_TRUE(check(kFinishWrite + ".p50 > 0", c).crossed);
  EXPECT_TRUE(check("StorageManager.finish_write.p50 > 0", c).crossed);
  EXPECT_TRUE(check("read_prefetched_results.__enter__.count > 0", c).crossed);
}

TEST(ThresholdEval, UnknownOrAmbiguousOpIsAnError) {
  const Comparison c = slower_b();
  try {
    check("finish_wrte.p99 > 1", c);
    FAIL();
  } catch (const ThresholdError& e) {
    EXPECT_NE(std::string(e.what()).find("'finish_wrte'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("finish_write"), std::string::npos) << "lists the ops";
  }
  auto sa = summary();
  add_op(sa, "a.X.finish_write", 10, 0.05, 1);
  add_op(sa, "b.Y.finish_write", 10, 0.05, 2);
  const Comparison two = compare_runs(snapshot(sa, "a"), snapshot(sa, "a"), {.resamples = 100});
  try {
    check("finish_write.p99 > 1", two);
    FAIL();
  } catch (const ThresholdError& e) {
    EXPECT_NE(std::string(e.what()).find("ambiguous"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a.X.finish_write"), std::string::npos);
  }
}

TEST(ThresholdEval, AMetricOneSideLacksIsNotEvaluated) {
  auto sa = summary(), sb = summary();
  add_op(sa, kFinishWrite, 100, 0.05, 1);
  const Comparison c = compare_runs(snapshot(sa, "a"), snapshot(sb, "b"), {.resamples = 100});
  const ThresholdOutcome o = check("finish_write.p99 > +10%", c);
  EXPECT_FALSE(o.evaluated);
  EXPECT_FALSE(o.crossed);
  EXPECT_TRUE(check("finish_write.count < 1", c).crossed) << "B made no call";
}

}  // namespace
}  // namespace fleet::compare
