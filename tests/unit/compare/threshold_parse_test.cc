// --fail-on's grammar: every accepted form, and every malformed expression rejected with a
// message that quotes the offending token.
#include <gtest/gtest.h>

#include "fleet/insight/compare/threshold.h"

namespace fleet::compare {
namespace {

using Family = Threshold::Family;
using Op = Threshold::Op;

TEST(ThresholdParse, RelativeOpPercentile) {
  const Threshold t = parse_threshold("read_prefetched_results.enter.p99 > +10%");
  EXPECT_EQ(t.family, Family::kOp);
  EXPECT_EQ(t.op_name, "read_prefetched_results.enter");
  EXPECT_EQ(t.stat, "p99");
  EXPECT_EQ(t.op, Op::kGreater);
  EXPECT_TRUE(t.percent);
  EXPECT_DOUBLE_EQ(t.value, 10);
  EXPECT_FALSE(t.on_b_value());
}

TEST(ThresholdParse, AbsoluteCacheRateChange) {
  const Threshold t = parse_threshold("cache.l1_hit_rate < -0.02");
  EXPECT_EQ(t.family, Family::kCache);
  EXPECT_EQ(t.stat, "l1_hit_rate");
  EXPECT_EQ(t.op, Op::kLess);
  EXPECT_FALSE(t.percent);
  EXPECT_DOUBLE_EQ(t.value, -0.02);
  EXPECT_FALSE(t.on_b_value());
}

TEST(ThresholdParse, CountersCompareBsOwnValue) {
  const Threshold failed = parse_threshold("failed > 0");
  EXPECT_EQ(failed.family, Family::kFailed);
  EXPECT_TRUE(failed.on_b_value());
  EXPECT_TRUE(parse_threshold("finish_write.errors >= 1").on_b_value());
  EXPECT_TRUE(parse_threshold("finish_write.count < 100").on_b_value());
  // A percentage is always the relative change, counters included.
  EXPECT_FALSE(parse_threshold("failed > +10%").on_b_value());
}

TEST(ThresholdParse, EveryOperatorSpacingAndFamily) {
  EXPECT_EQ(parse_threshold("failed>=1").op, Op::kGreaterEqual);
  EXPECT_EQ(parse_threshold("  lateness.max <= 500  ").op, Op::kLessEqual);
  EXPECT_EQ(parse_threshold("lateness.max <= 500").family, Family::kLateness);
  EXPECT_EQ(parse_threshold("records_per_s < -5%").family, Family::kRecordsPerS);
  EXPECT_DOUBLE_EQ(parse_threshold("records_per_s < -5%").value, -5);
  EXPECT_DOUBLE_EQ(parse_threshold("finish_write.mean > 5 %").value, 5);  // space before %
  EXPECT_DOUBLE_EQ(parse_threshold("finish_write.mean > 1e-3").value, 1e-3);
  const Threshold q = parse_threshold(
      "lmcache.v1.distributed.storage_manager.StorageManager.finish_write.p50 > 0.1");
  EXPECT_EQ(q.op_name, "lmcache.v1.distributed.storage_manager.StorageManager.finish_write");
  EXPECT_EQ(q.stat, "p50");
}

// The error message of a malformed expression.
std::string error_of(const std::string& text) {
  try {
    parse_threshold(text);
  } catch (const ThresholdError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

TEST(ThresholdParse, MalformedExpressionsNameTheirToken) {
  struct Case {
    const char* text;
    const char* token;
  };
  for (const Case& c : {
           Case{"", "empty"},
           Case{"failed 0", "no comparison operator"},
           Case{"failed == 0", "'=='"},
           Case{"failed => 0", "'=>'"},
           Case{"failed != 0", "'!='"},
           Case{"> 0", "missing METRIC"},
           Case{"failed >", "missing VALUE"},
           Case{"failed > abc", "'abc'"},
           Case{"failed > 10%%", "'10%%'"},
           Case{"failed > %", "'%'"},
           Case{"failed > 1 2", "'2'"},
           Case{"finish_write.p95 > 1", "'p95'"},
           Case{"finish_write p99 > 1", "'finish_write p99'"},
           Case{"cache.hits < 0", "'hits'"},
           Case{"lateness.p90 > 1", "'p90'"},
           Case{"bogus > 1", "'bogus'"},
           Case{".p99 > 1", "'.p99'"},
       }) {
    const std::string message = error_of(c.text);
    EXPECT_NE(message.find(c.token), std::string::npos) << c.text << " -> " << message;
  }
}

}  // namespace
}  // namespace fleet::compare
