// The three outputs of one comparison: the terminal table (aligned, every section), compare.json
// (the documented fields) and compare.html (self-contained, every section and chart, the model
// embedded, tolerant of an empty model).
#include "fleet/insight/compare/compare_outputs.h"

#include <gtest/gtest.h>

#include "compare_test_util.h"

namespace fleet::compare {
namespace {

using namespace testing;
using nlohmann::json;

struct Fixture {
  Comparison c;
  std::vector<ThresholdOutcome> outcomes;
};

Fixture fixture() {
  auto sa = summary(1, 100, 0), sb = summary(8, 300, 1);
  add_op(sa, kFinishWrite, 2000, 0.05, 1);
  add_op(sb, kFinishWrite, 2000, 0.08, 2);
  sb["stopped_early"] = true;
  Fixture f{compare_runs(snapshot(sa, "runs/a"), snapshot(sb, "runs/b"), {.resamples = 200}), {}};
  f.outcomes = evaluate_all({parse_threshold("failed > 0")}, f.c, false);
  return f;
}

TEST(CompareOutputs, TerminalTableHasEverySection) {
  const Fixture f = fixture();
  const std::string t = terminal_table(f.c, f.outcomes);
  for (const char* s :
       {"A: runs/a", "B: runs/b  [PARTIAL: the run stopped early]", "Records",
        "Latency per operation (ms)", "finish_write", "Cache", "l1_hit_rate", "Lateness (us)",
        "Engine config", "l1_manager_config.memory_config.size_in_gb: 1.0 -> 8.0", "Thresholds",
        "failed > 0: CROSSED", "increase", "Summary:"}) {
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  }
  // Aligned: the records rows end in the same column (right-aligned numbers, no CI there).
  auto row_width = [&](const char* label) {
    const size_t at = t.find(label);
    return t.find('\n', at) - at;
  };
  EXPECT_EQ(row_width("  total"), row_width("  replayed"));
  EXPECT_EQ(row_width("  total"), row_width("  failed"));
}

TEST(CompareOutputs, JsonHasTheDocumentedFields) {
  const Fixture f = fixture();
  const json j = comparison_json(f.c, f.outcomes);
  EXPECT_EQ(j["a"]["dir"], "runs/a");
  EXPECT_TRUE(j["partial"].get<bool>());
  EXPECT_TRUE(j["b"]["partial"].get<bool>());
  EXPECT_EQ(j["method"]["resamples"], 200);
  const json& op = j["ops"][0];
  EXPECT_EQ(op["short"], "finish_write");
  EXPECT_EQ(op["presence"], "both");
  for (const char* k : {"a", "b", "change", "relative", "ci", "significance"}) {
    EXPECT_TRUE(op["stats"]["p99"].contains(k)) << k;
  }
  EXPECT_EQ(op["stats"]["p50"]["significance"], "increase");
  EXPECT_EQ(j["cache"]["l1_hit_rate"]["ci"].size(), 2u);
  EXPECT_EQ(j["records"]["failed"]["b"], 1.0);
  EXPECT_EQ(j["config"]["differences"][0]["path"], "l1_manager_config.memory_config.size_in_gb");
  EXPECT_FALSE(j["config"]["same_digest"].get<bool>());
  EXPECT_TRUE(j["thresholds"][0]["crossed"].get<bool>());
  EXPECT_EQ(j["summary"]["thresholds_crossed"], 1);
}

TEST(CompareOutputs, PageIsSelfContainedWithEverySection) {
  const Fixture f = fixture();
  const json cdf = {{kFinishWrite, {{0.04, 0.5}, {0.09, 1.0}}}};
  const std::string page = render_compare_html(comparison_json(f.c, f.outcomes), cdf, cdf);
  for (const char* s :
       {"id=\"verdict\"", "id=\"runs\"", "id=\"latency\"", "id=\"cache\"", "id=\"records\"",
        "id=\"config\"", "id=\"thresholds\"", "data-chart=\"cmp_p99\"", "data-chart=\"cmp_cdf\"",
        "data-chart=\"cmp_rates\"", "id=\"compare-ops-rows\"", "id=\"config-rows\"",
        "id=\"fleet-model\"", "fleetExtraDrawers", "PARTIAL", "default-src 'none'"}) {
    EXPECT_NE(page.find(s), std::string::npos) << s;
  }
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  // compare.js registers its charts before report.js draws them.
  EXPECT_LT(page.find("fleetExtraDrawers ="), page.find("const extraDrawers"));
}

TEST(CompareOutputs, PageOfAnEmptyModelStillRenders) {
  const std::string page = render_compare_html(json(), json(), json());
  EXPECT_NE(page.find("</html>"), std::string::npos);
  EXPECT_NE(page.find("Neither run recorded an operation"), std::string::npos);
  EXPECT_NE(render_compare_html(json::array(), 5, "x").find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace fleet::compare
