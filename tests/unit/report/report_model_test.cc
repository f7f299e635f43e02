// The report model from a run's files (report_model.h): series stay bounded at 64 nodes and
// hours of windows (top nodes + "others", min/max-preserving downsampling), the cache and
// verdict sections follow fleet_summary.json, and a run without a summary is partial.
#include "fleet/insight/html/report_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fleet/insight/html/report_page.h"
#include "scratch_dir.h"

namespace fleet::report::html {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test::ScratchDir;

// A synthetic fleet run: `nodes` nodes, `windows` 1-second windows each, L2 traffic.
void write_run(const fs::path& dir, int nodes, int windows, bool with_summary = true) {
  {
    auto writer = stats::TimeseriesCsvWriter::create((dir / "fleet_timeseries.csv").string());
    stats::TimeseriesCsvWriter& csv = *writer.value();
    for (int t = 0; t < windows; ++t) {
      for (int n = 0; n < nodes; ++n) {
        stats::RunWindow w;
        w.index = t;
        w.records = 1000 + static_cast<uint64_t>(n * 10 + (t % 7));
        w.paced = w.records;
        w.lateness_p99_ns = (t == windows / 2 && n == 3) ? 90'000'000 : 20'000;  // one spike
        w.lookup_keys = 100;
        w.l1_hit_keys = 60;
        w.l2_hit_keys = 30;
        w.missed_keys = 10;
        w.l2_ops = 50 + static_cast<uint64_t>(n);
        w.l2_bytes = w.l2_ops * 4096;
        w.l2_p99_ns = 300'000;
        csv.append("node-" + std::to_string(n), w);
      }
    }
  }
  if (!with_summary) return;
  json s;
  s["records"] = {{"total", 100}, {"replayed", 100}, {"skipped", 0}, {"failed", 0}};
  s["duration_s"] = windows;
  s["speed"] = 1.0;
  s["mode"] = "fleet";
  s["stopped_early"] = false;
  s["lateness_us"] = {{"records", 100},     {"p50", 3.0},     {"p99", 40.0},     {"max", 90000.0},
                      {"late_over_1ms", 0}, {"feed_late", 0}, {"engine_late", 0}};
  s["digest_comparison"] = "match (0123abcd)";
  s["trace"] = {{"path", "/traces/prod.lct"}, {"header_digest", "0123abcd"}};
  s["nodes"] = json::array();
  for (int n = 0; n < nodes; ++n) {
    s["nodes"].push_back(
        {{"name", "node-" + std::to_string(n)},
         {"status", "ok"},
         {"records", {{"total", 10}}},
         {"engine", {{"config_digest", "0123abcd"}, {"counters", json::object()}}}});
  }
  s["cache"] = {{"lookup",
                 {{"requested", {{"keys", 100}, {"bytes", 400}}},
                  {"l1", {{"keys", 60}, {"bytes", 240}}},
                  {"l2", {{"keys", 30}, {"bytes", 120}}},
                  {"missed", {{"keys", 10}, {"bytes", 40}}},
                  {"missed_by_reason", {{"not_found", {{"keys", 10}}}}},
                  {"l1_hit_rate", 0.6},
                  {"l1_l2_hit_rate", 0.9},
                  {"miss_rate", 0.1}}}};
  s["contention"] = {{"fairness", 0.99}, {"per_op", {{"store", {{"n", 5}, {"p99_us", 300.0}}}}}};
  std::ofstream(dir / "fleet_summary.json") << s.dump();
}

TEST(ReportModel, SixtyFourNodesAndAnHourStayBounded) {
  ScratchDir dir;
  write_run(dir.path(), 64, 3600);
  const json m = build_report_model(load_run_files(dir.path().string()).value());
  const json& rps = m["series"]["records_per_s"];
  ASSERT_EQ(rps.size(), kTopNodes + 1);  // top 8 + "others (56)"
  EXPECT_EQ(rps.back()["name"], "others (56)");
  // The top nodes are the busiest: node-63 has the most records per window.
  EXPECT_EQ(rps[0]["name"], "node-63");
  for (const auto& s : rps) EXPECT_LE(s["points"].size(), kMaxSeriesPoints);
  // "others" sums its nodes per window.
  EXPECT_GE(rps.back()["points"][0][1].get<double>(), 56 * 1000.0);
  EXPECT_EQ(m["nodes"].size(), 64u);  // the table keeps every node
  // The merged hit rate is exact per window: 60 % L1, 30 % L2, 10 % missed.
  EXPECT_DOUBLE_EQ(m["series"]["hit_rate"]["l1"][0][1].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(m["series"]["hit_rate"]["miss"][0][1].get<double>(), 0.1);
  EXPECT_LE(m["series"]["hit_rate"]["l1"].size(), kMaxSeriesPoints);
  EXPECT_LE(m["contention"]["fairness_series"].size(), kMaxSeriesPoints);
  EXPECT_EQ(m["verdict"]["status"], "ok") << m["verdict"].dump(2);
  // Rendered, it stays small (docs/report.md gives the limit).
  const std::string html = render_report_html(m);
  std::printf("64 nodes x 3600 windows: page %zu bytes\n", html.size());
  EXPECT_LT(html.size(), 1'500'000u);
}

TEST(ReportModel, DownsamplingKeepsEveryBucketsMinAndMax) {
  Points in;
  for (int i = 0; i < 10'000; ++i) in.push_back({double(i), i == 4321 ? 1e6 : double(i % 10)});
  const Points out = downsample_min_max(in, 100);
  EXPECT_LE(out.size(), 100u);
  bool spike = false;
  for (size_t i = 1; i < out.size(); ++i) EXPECT_LT(out[i - 1].first, out[i].first);
  for (const auto& p : out) spike = spike || p.second == 1e6;
  EXPECT_TRUE(spike) << "a one-window spike survives";
  EXPECT_EQ(downsample_min_max({{0, 1}, {1, 2}}, 100).size(), 2u);  // short series untouched
}

TEST(ReportModel, ARunThatLeftOnlyItsTimeSeriesIsPartial) {
  ScratchDir dir;
  write_run(dir.path(), 2, 30, /*with_summary=*/false);
  const json m = build_report_model(load_run_files(dir.path().string()).value());
  EXPECT_TRUE(m["partial"].get<bool>());
  EXPECT_EQ(m["verdict"]["status"], "warn");
  EXPECT_EQ(m["series"]["records_per_s"].size(), 2u);
  EXPECT_NO_THROW(render_report_html(m));
}

TEST(ReportModel, ALostNodeFailsTheVerdictWithItsReason) {
  ScratchDir dir;
  write_run(dir.path(), 2, 5);
  json s = json::parse(std::ifstream(dir.path() / "fleet_summary.json"));
  s["stopped_early"] = true;
  s["nodes"][1]["status"] = "lost";
  s["nodes"][1]["records_received"] = 500;
  s["nodes"][1]["engine"]["counters"] = {{"lost_reason", "no heartbeat for 1504 ms"},
                                         {"records_confirmed_finished", 420}};
  std::ofstream(dir.path() / "fleet_summary.json") << s.dump();
  const json m = build_report_model(load_run_files(dir.path().string()).value());
  EXPECT_TRUE(m["partial"].get<bool>());
  EXPECT_NE(m["partial_reason"].get<std::string>().find("no heartbeat for 1504 ms"),
            std::string::npos);
  EXPECT_EQ(m["verdict"]["status"], "fail");
  bool found = false;
  for (const auto& i : m["verdict"]["items"]) {
    if (i["title"] == "Node lost") {
      found = true;
      EXPECT_NE(i["text"].get<std::string>().find("420 of 500"), std::string::npos) << i.dump();
    }
  }
  EXPECT_TRUE(found);
}

// A hostile summary (a million nested arrays would overflow the parser's stack) is refused
// with the file's name; the page is still built from the time series.
TEST(ReportModel, ADeeplyNestedSummaryIsRefusedByName) {
  ScratchDir dir;
  write_run(dir.path(), 1, 3, /*with_summary=*/false);
  std::ofstream(dir.path() / "fleet_summary.json") << std::string(1'000'000, '[');
  const RunFiles f = load_run_files(dir.path().string()).value();
  EXPECT_FALSE(f.summary.has_value());
  ASSERT_FALSE(f.problems.empty());
  EXPECT_NE(f.problems[0].find("fleet_summary.json: JSON nested deeper than 64"), std::string::npos)
      << f.problems[0];
  EXPECT_TRUE(build_report_model(f)["partial"].get<bool>());
}

TEST(ReportModel, NotARunDirectoryIsAClearError) {
  ScratchDir dir;
  EXPECT_EQ(load_run_files(dir.path().string()).status().message(),
            dir.path().string() +
                ": neither fleet_summary.json nor fleet_timeseries.csv: not the output directory "
                "of a run");
  EXPECT_EQ(load_run_files((dir.path() / "missing").string()).status().message(),
            (dir.path() / "missing").string() + ": not a directory");
}

}  // namespace
}  // namespace fleet::report::html
