// `coordinator compare A B` on real runs (docs/compare.md): a bigger L1 raises the L1 hit rate
// and compare says so with the right sign, names the changed config field and trips the
// matching thresholds (exit 4); runs of the same config show no significant latency change
// (exit 0); bad input exits 2 naming what is wrong; a partial run is compared and marked; the
// page draws every chart in a real browser.
#include <fstream>

#include "chromium.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using json = nlohmann::json;

// The settings of the cache runs: virtual clock (deterministic), a mock L2, the trace's config.
std::vector<std::string> cache_run(const std::string& l1_gb) {
  return quick_args({synthetic_trace("compare", 6000), "--clock", "virtual", "--speed", "1",
                     "--config-from-trace", "--l1-size-gb", l1_gb, "--l2-adapter",
                     R"({"type":"mock","max_size_gb":64,"mock_bandwidth_gb":10})"});
}

struct CompareResult {
  int code = -1;
  std::string out, err;
  json data;  // compare.json, when written
};

CompareResult run_compare(std::vector<std::string> args, const std::string& out_dir) {
  std::filesystem::create_directories(out_dir);
  std::vector<std::string> argv = {coordinator_bin(), "compare"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--output-dir", out_dir});
  Process p(argv, out_dir, "compare");
  CompareResult r;
  auto code = p.wait_exit(std::chrono::seconds(60));
  if (!code) {
    p.kill_group(SIGKILL);
    ADD_FAILURE() << "compare did not finish; stderr:\n" << p.err();
  } else {
    r.code = *code;
  }
  r.out = p.out();
  r.err = p.err();
  const std::string text = read_file(out_dir + "/compare.json");
  if (!text.empty()) r.data = json::parse(text);
  return r;
}

// Two runs of the same trace, L1 1 GiB (A) and 8 GiB (B), made once for the tests below.
const std::pair<std::string, std::string>& cache_runs() {
  static const auto runs = [] {
    const std::string a = suite_dir() / "l1-1g", b = suite_dir() / "l1-8g";
    EXPECT_EQ(run_coordinator(cache_run("1"), a).code, 0);
    EXPECT_EQ(run_coordinator(cache_run("8"), b).code, 0);
    return std::pair<std::string, std::string>{a, b};
  }();
  return runs;
}

TEST(Compare, BiggerL1RaisesTheHitRateWithTheRightSignAndNamesTheField) {
  ScratchDir dir;
  const auto& [a, b] = cache_runs();
  CompareResult r = run_compare(
      {a, b, "--fail-on", "cache.l1_hit_rate < -0.02", "--fail-on", "failed > 0"}, dir / "cmp");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json& l1 = r.data["cache"]["l1_hit_rate"];
  EXPECT_GT(l1["b"].get<double>(), l1["a"].get<double>());
  EXPECT_GT(l1["change"].get<double>(), 0);
  EXPECT_EQ(l1["significance"], "increase") << l1.dump();
  EXPECT_GT(l1["ci"][0].get<double>(), 0);
  EXPECT_EQ(r.data["cache"]["miss_rate"]["significance"], "decrease");

  // The config difference names the field that changed, with both values.
  bool named = false;
  for (const json& d : r.data["config"]["differences"]) {
    if (d["path"] == "l1_manager_config.memory_config.size_in_bytes") {
      named = true;
      EXPECT_EQ(d["a"].get<double>(), 1.0 * (1ull << 30));
      EXPECT_EQ(d["b"].get<double>(), 8.0 * (1ull << 30));
    }
  }
  EXPECT_TRUE(named) << r.data["config"].dump(2);
  EXPECT_FALSE(r.data["config"]["same_digest"].get<bool>());
  EXPECT_NE(r.out.find("l1_manager_config.memory_config.size_in_bytes: 1073741824 -> 8589934592"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("l1_hit_rate"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "cmp/compare.html"));
  EXPECT_NE(r.err.find("compare: "), std::string::npos) << "names the files it wrote";
}

TEST(Compare, ACrossedThresholdExitsFourAndSaysByHowMuch) {
  ScratchDir dir;
  const auto& [a, b] = cache_runs();
  // B -> A: the L1 hit rate drops.
  CompareResult drop = run_compare({b, a, "--fail-on", "cache.l1_hit_rate < -0.02"}, dir / "d");
  EXPECT_EQ(drop.code, 4) << drop.err;
  EXPECT_NE(drop.err.find("threshold crossed: cache.l1_hit_rate < -0.02: CROSSED"),
            std::string::npos)
      << drop.err;
  EXPECT_NE(drop.err.find(" by -"), std::string::npos) << drop.err;
  EXPECT_TRUE(drop.data["thresholds"][0]["crossed"].get<bool>());
  // A relative threshold on a significant rise.
  CompareResult rise =
      run_compare({a, b, "-q", "--fail-on", "cache.l1_hit_rate > +10%"}, dir / "r");
  EXPECT_EQ(rise.code, 4) << rise.err;
  EXPECT_TRUE(rise.out.empty()) << "-q";
}

TEST(Compare, SameConfigTwiceIsNoSignificantLatencyChange) {
  ScratchDir dir;
  // Virtual clock: the same config replays identically.
  const std::string v1 = dir / "v1";
  ASSERT_EQ(run_coordinator(cache_run("1"), v1).code, 0);
  const std::string& a = cache_runs().first;
  CompareResult same = run_compare(
      {a, v1, "--fail-on", "finish_write.p99 > +10%", "--fail-on", "failed > 0", "--fail-on",
       "read_prefetched_results.enter.p99 > +10%", "--fail-on", "cache.l1_hit_rate < -0.02"},
      dir / "same");
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_TRUE(same.data["config"]["differences"].empty());
  EXPECT_EQ(same.data["summary"]["significant_latency_changes"], 0);
  EXPECT_EQ(same.data["cache"]["l1_hit_rate"]["significance"], "not_significant");

  // Real clock, noop engine, unpaced: latencies are measured, so they differ by noise. A run
  // compared with itself is no significant change anywhere; two runs compare cleanly (the
  // bootstrap sees sampling noise only, so run-to-run drift may show: not asserted).
  const std::string trace = synthetic_trace("compare-latency", 4000);
  const std::string r1 = dir / "r1", r2 = dir / "r2";
  for (const std::string& out : {r1, r2}) {
    ASSERT_EQ(run_coordinator(quick_args({trace, "--engine", "noop", "--speed", "0"}), out).code,
              0);
  }
  CompareResult self = run_compare({r1, r1, "--fail-on", "finish_write.p99 > +1%"}, dir / "self");
  EXPECT_EQ(self.code, 0) << self.err;
  EXPECT_GT(self.data["summary"]["latency_statistics_with_interval"].get<int>(), 0);
  EXPECT_EQ(self.data["summary"]["significant_latency_changes"], 0);
  for (const json& op : self.data["ops"]) {
    for (const char* stat : {"p50", "p90", "p99", "mean"}) {
      EXPECT_EQ(op["stats"][stat]["significance"], "not_significant") << op["short"] << stat;
    }
  }
  CompareResult two = run_compare({r1, r2}, dir / "two");
  EXPECT_EQ(two.code, 0) << two.err;
  for (const json& op : two.data["ops"]) {
    EXPECT_EQ(op["presence"], "both");
    EXPECT_EQ(op["stats"]["count"]["change"], 0.0) << "same trace, same calls";
    EXPECT_TRUE(op["stats"]["p99"]["ci"].is_array()) << op.dump();
  }
  std::cout << "two real-clock runs of one config: "
            << two.data["summary"]["significant_latency_changes"] << " of "
            << two.data["summary"]["latency_statistics_with_interval"]
            << " latency statistics differ significantly\n";
}

TEST(Compare, BadInputExitsTwoNamingWhatIsWrong) {
  ScratchDir dir;
  const auto& [a, b] = cache_runs();
  CompareResult missing = run_compare({a, dir / "nope"}, dir / "m");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find(dir / "nope"), std::string::npos) << missing.err;

  std::filesystem::create_directories(dir / "empty");
  CompareResult empty = run_compare({dir / "empty", b}, dir / "e");
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("fleet_summary.json"), std::string::npos) << empty.err;

  std::filesystem::create_directories(dir / "broken");
  std::ofstream(dir / "broken/fleet_summary.json") << "{not json";
  CompareResult broken = run_compare({a, dir / "broken"}, dir / "b");
  EXPECT_EQ(broken.code, 2);
  EXPECT_NE(broken.err.find("broken/fleet_summary.json: not valid JSON"), std::string::npos)
      << broken.err;

  CompareResult op = run_compare({a, b, "--fail-on", "failed == 0"}, dir / "o");
  EXPECT_EQ(op.code, 2);
  EXPECT_NE(op.err.find("'=='"), std::string::npos) << op.err;
  CompareResult name = run_compare({a, b, "--fail-on", "finish_wrte.p99 > 1"}, dir / "n");
  EXPECT_EQ(name.code, 2);
  EXPECT_NE(name.err.find("'finish_wrte'"), std::string::npos) << name.err;
  CompareResult stat = run_compare({a, b, "--fail-on", "finish_write.p95 > 1"}, dir / "s");
  EXPECT_EQ(stat.code, 2);
  EXPECT_NE(stat.err.find("'p95'"), std::string::npos) << stat.err;
  EXPECT_EQ(run_compare({a}, dir / "one").code, 2) << "two directories needed";
}

TEST(Compare, APartialRunIsComparedAndMarked) {
  ScratchDir dir;
  const auto& [a, b] = cache_runs();
  std::filesystem::create_directories(dir / "partial");
  json s = json::parse(read_file(b + "/fleet_summary.json"));
  s["stopped_early"] = true;
  std::ofstream(dir / "partial/fleet_summary.json") << s.dump();
  CompareResult r = run_compare({a, dir / "partial"}, dir / "cmp");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.data["partial"].get<bool>());
  EXPECT_TRUE(r.data["b"]["partial"].get<bool>());
  EXPECT_FALSE(r.data["a"]["partial"].get<bool>());
  EXPECT_NE(r.out.find("[PARTIAL: the run stopped early]"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("partial run"), std::string::npos) << r.err;
  EXPECT_NE(read_file(dir / "cmp/compare.html").find("PARTIAL"), std::string::npos);
}

TEST(Compare, PageDrawsEveryChartInABrowser) {
  ScratchDir dir;
  const auto& [a, b] = cache_runs();
  CompareResult r = run_compare({a, b, "-q", "--fail-on", "failed > 0"}, dir / "cmp");
  ASSERT_EQ(r.code, 0) << r.err;
  BrowserCheck check = open_in_browser(dir / "cmp/compare.html");
  if (!check.available) GTEST_SKIP() << check.skip_reason;
  ASSERT_FALSE(check.dom.empty()) << check.stderr_text;
  auto drawn = body_attribute(check.dom, "data-charts-drawn");
  auto expected = body_attribute(check.dom, "data-charts-expected");
  ASSERT_TRUE(drawn && expected) << element_text(check.dom, "report-errors").value_or("?");
  EXPECT_EQ(*drawn, *expected);
  EXPECT_EQ(*expected, "3");
  EXPECT_EQ(element_text(check.dom, "report-errors").value_or("?"), "");
  EXPECT_EQ(tbody_row_count(check.dom, "compare-ops-rows"),
            6 * static_cast<int>(r.data["ops"].size()));
  std::string why;
  const std::string png = bin("compare_screenshot.png");
  EXPECT_TRUE(screenshot(dir / "cmp/compare.html", png, &why)) << why;
}

}  // namespace
}  // namespace fleet::test
