// The "Trace Replay Result" block (terminal and --format json), byte for byte.
#include "fleet/stats/replay_result.h"

#include <gtest/gtest.h>

#include "fleet/stats/metrics_report.h"
#include "golden_fixture.h"

namespace fleet::stats {
namespace {

using testing::golden_collector;

ReplayOverview mismatch_overview() {
  ReplayOverview o;
  o.level = "storage";
  o.replayed = 11;
  o.skipped = 2;
  o.failed = 1;
  o.duration_s = 12.3456;
  o.header_digest = "0123456789abcdef";
  o.replay_digest = "fedcba9876543210";
  return o;
}

TEST(PyCenter, ExtraPadGoesRightForEvenWidth) {
  // 21 chars in 64 columns: 43 pad chars, 21 left and 22 right.
  const std::string line = py_center(" Trace Replay Result ", 64, '=');
  EXPECT_EQ(line, std::string(21, '=') + " Trace Replay Result " + std::string(22, '='));
  EXPECT_EQ(py_center("ab", 5, '*'), "**ab*");  // odd width, odd margin: extra goes left
  EXPECT_EQ(py_center("abc", 6, '*'), "*abc**");
  EXPECT_EQ(py_center("toolong", 3, '*'), "toolong");
}

TEST(ShortOpName, LmcacheRules) {
  EXPECT_EQ(short_op_name("a.b.StorageManager.finish_write"), "finish_write");
  EXPECT_EQ(short_op_name("a.StorageManager.read_prefetched_results.__enter__"),
            "read_prefetched_results.enter");
  EXPECT_EQ(short_op_name("a.StorageManager.read_prefetched_results.__exit__"),
            "read_prefetched_results.exit");
  EXPECT_EQ(short_op_name("__enter__"), "__enter__");  // needs two parts
  EXPECT_EQ(short_op_name("plain"), "plain");
  EXPECT_EQ(short_op_name("x."), "");
}

TEST(DigestRow, ThreeCases) {
  EXPECT_EQ(digest_row_value("0123456789", "abcdef0123"), "MISMATCH (rec=01234567, run=abcdef01)");
  EXPECT_EQ(digest_row_value("0123456789", "0123456789"), "match (01234567)");
  EXPECT_EQ(digest_row_value("0123456789", ""), "match (01234567)");
  EXPECT_EQ(digest_row_value("", "0123456789"), std::nullopt);
}

TEST(ReplayTerminal, GoldenWithMismatchDigestAndOps) {
  const std::string expected =
      "===================== Trace Replay Result ======================\n"
      "--------------------------- Overall ----------------------------\n"
      "Trace level:                                             storage\n"
      "Records replayed:                                             11\n"
      "Records skipped:                                               2\n"
      "Records failed:                                                1\n"
      "Replay duration (s):                                       12.35\n"
      "Config digest:             MISMATCH (rec=01234567, run=fedcba98)\n"
      "--------------------- Per-Op Latency (ms) ----------------------\n"
      "finish_write count:                                            4\n"
      "finish_write mean:                                          0.47\n"
      "finish_write p50:                                           0.25\n"
      "finish_write p99:                                           1.12\n"
      "read_prefetched_results.enter count:                           2\n"
      "read_prefetched_results.enter mean:                         0.04\n"
      "read_prefetched_results.enter p50:                          0.01\n"
      "read_prefetched_results.enter p99:                          0.06\n"
      "read_prefetched_results.exit count:                            1\n"
      "read_prefetched_results.exit mean:                          0.01\n"
      "read_prefetched_results.exit p50:                           0.01\n"
      "read_prefetched_results.exit p99:                           0.01\n"
      "reserve_write count:                                           3\n"
      "reserve_write mean:                                         2.27\n"
      "reserve_write p50:                                          2.67\n"
      "reserve_write p99:                                          3.14\n"
      "weird,name\"x count:                                            0\n"
      "weird,name\"x mean:                                          0.00\n"
      "weird,name\"x p50:                                           0.00\n"
      "weird,name\"x p99:                                           0.00\n"
      "================================================================\n";
  EXPECT_EQ(render_replay_terminal(mismatch_overview(), golden_collector()), expected);
}

TEST(ReplayTerminal, GoldenMatchDigestNoLevelNoOps) {
  ReplayOverview o;
  o.duration_s = 0.0004999;
  o.header_digest = "abcdef0123456789";
  o.replay_digest = "abcdef0123456789";
  const std::string expected =
      "===================== Trace Replay Result ======================\n"
      "--------------------------- Overall ----------------------------\n"
      "Trace level:                                                 N/A\n"
      "Records replayed:                                              0\n"
      "Records skipped:                                               0\n"
      "Records failed:                                                0\n"
      "Replay duration (s):                                        0.00\n"
      "Config digest:                                  match (abcdef01)\n"
      "================================================================\n";
  EXPECT_EQ(render_replay_terminal(o, StatsCollector{}), expected);
  EXPECT_EQ(render_replay_json(o, StatsCollector{}),
            "{\n"
            "  \"title\": \"Trace Replay Result\",\n"
            "  \"metrics\": {\n"
            "    \"overall\": {\n"
            "      \"level\": null,\n"
            "      \"replayed\": 0,\n"
            "      \"skipped\": 0,\n"
            "      \"failed\": 0,\n"
            "      \"duration\": 0.0,\n"
            "      \"digest\": \"match (abcdef01)\"\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ReplayTerminal, DigestRowOmittedWithoutHeaderDigest) {
  ReplayOverview o;
  o.level = "storage";
  o.replayed = 1;
  o.duration_s = 1.0;
  o.replay_digest = "zz";
  const std::string expected =
      "===================== Trace Replay Result ======================\n"
      "--------------------------- Overall ----------------------------\n"
      "Trace level:                                             storage\n"
      "Records replayed:                                              1\n"
      "Records skipped:                                               0\n"
      "Records failed:                                                0\n"
      "Replay duration (s):                                        1.00\n"
      "================================================================\n";
  EXPECT_EQ(render_replay_terminal(o, StatsCollector{}), expected);
}

TEST(ReplayJson, GoldenInsertionOrderRoundedFloats) {
  const std::string expected = R"json({
  "title": "Trace Replay Result",
  "metrics": {
    "overall": {
      "level": "storage",
      "replayed": 11,
      "skipped": 2,
      "failed": 1,
      "duration": 12.346,
      "digest": "MISMATCH (rec=01234567, run=fedcba98)"
    },
    "ops": {
      "finish_write_count": 4,
      "finish_write_mean": 0.47,
      "finish_write_p50": 0.25,
      "finish_write_p99": 1.125,
      "read_prefetched_results.enter_count": 2,
      "read_prefetched_results.enter_mean": 0.037,
      "read_prefetched_results.enter_p50": 0.012,
      "read_prefetched_results.enter_p99": 0.062,
      "read_prefetched_results.exit_count": 1,
      "read_prefetched_results.exit_mean": 0.01,
      "read_prefetched_results.exit_p50": 0.01,
      "read_prefetched_results.exit_p99": 0.01,
      "reserve_write_count": 3,
      "reserve_write_mean": 2.272,
      "reserve_write_p50": 2.675,
      "reserve_write_p99": 3.142,
      "weird,name\"x_count": 0,
      "weird,name\"x_mean": 0.0,
      "weird,name\"x_p50": 0.0,
      "weird,name\"x_p99": 0.0
    }
  }
}
)json";
  EXPECT_EQ(render_replay_json(mismatch_overview(), golden_collector()), expected);
}

TEST(MetricsReport, ExtraSectionsAfterLmcacheOnes) {
  StatsCollector c;
  c.record("m.finish_write", 0.5, false);
  ReplayOverview o;
  o.level = "storage";
  o.replayed = 1;
  MetricSection lateness{"lateness", "Lateness (us)", {}};
  lateness.rows.push_back({"p50", "p50", 3.25});
  lateness.rows.push_back({"late_over_1ms", "Late > 1 ms", int64_t{0}});
  lateness.rows.push_back({"ok", "All on time", true});
  lateness.rows.push_back({"note",
                           "A label that is far too long to leave any room at all for padding!",
                           std::string("xyz")});
  const std::string term = render_replay_terminal(o, c, {lateness});
  const std::string tail =
      "finish_write p99:                                           0.50\n"
      "------------------------ Lateness (us) -------------------------\n"
      "p50:                                                        3.25\n"
      "Late > 1 ms:                                                   0\n"
      "All on time:                                                True\n"
      "A label that is far too long to leave any room at all for padding!: xyz\n"
      "================================================================\n";
  ASSERT_GE(term.size(), tail.size());
  EXPECT_EQ(term.substr(term.size() - tail.size()), tail);
  const std::string json = render_replay_json(o, c, {lateness});
  EXPECT_NE(json.find("    \"lateness\": {\n      \"p50\": 3.25,\n      \"late_over_1ms\": 0,\n"
                      "      \"ok\": true,\n"),
            std::string::npos);
}

TEST(MetricsReport, UnnamedSectionAndDuplicateKeys) {
  // Python dict semantics: a repeated key keeps its first position and takes the last value.
  std::vector<MetricSection> s;
  s.push_back({std::nullopt, std::nullopt, {{"status", "Status", std::string("OK")}}});
  s.push_back({"ops",
               "Ops",
               {{"w_count", "w count", int64_t{1}},
                {"x", "x", int64_t{5}},
                {"w_count", "w count", int64_t{2}}}});
  EXPECT_EQ(render_metrics_json("T", s),
            "{\n  \"title\": \"T\",\n  \"metrics\": {\n    \"status\": \"OK\",\n    \"ops\": {\n"
            "      \"w_count\": 2,\n      \"x\": 5\n    }\n  }\n}\n");
  EXPECT_EQ(render_metrics_terminal("T", s, 20),
            "======== T =========\n"
            "Status:           OK\n"
            "------- Ops --------\n"
            "w count:           1\n"
            "x:                 5\n"
            "w count:           2\n"
            "====================\n");
}

}  // namespace
}  // namespace fleet::stats
