// report.html for an L2 run (insight/include/fleet/insight/html/l2_report.h): the model carries
// the run's numbers, the page has every L2 section (and a node table only with nodes), a run
// without a timeline or an interrupted one still renders, and write_report_page on an L2 run
// directory writes the L2 page (what `coordinator report DIR` does).
#include "fleet/insight/html/l2_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fleet/insight/html/report_writer.h"
#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::report::html {
namespace {

namespace fs = std::filesystem;

std::string stored() {
  return test::source_dir() + "/tests/fixtures/l2_run_dirs/small_speed1_virtual";
}

summary::L2RunStats stored_run() {
  Result<summary::L2RunStats> r = summary::read_l2_run_stats(stored());
  EXPECT_TRUE(r) << r.status().message();
  return r.value();
}

bool has(const std::string& page, const std::string& what) {
  return page.find(what) != std::string::npos;
}

TEST(L2Report, TheModelCarriesTheRunsNumbers) {
  const nlohmann::json m = build_l2_report_model(stored_run());
  EXPECT_EQ(m["verdict"]["status"], "warn");  // 9 outcome mismatches: a metric, a warning
  EXPECT_EQ(m["verdict"]["items"][0]["title"], "Dependencies kept");
  EXPECT_EQ(m["run"]["operations"], 189);
  EXPECT_EQ(m["kinds"][0]["kind"], "store");
  EXPECT_EQ(m["kinds"][0]["submitted"], 68);
  ASSERT_EQ(m["ops"].size(), 3u);  // store, lookup, load have latencies
  EXPECT_EQ(m["ops"][2]["short"], "load_task");
  EXPECT_FALSE(m["ops"][0]["cdf"].empty());
  EXPECT_EQ(m["l2_series"]["dispatched"].size(), 5u);  // a series per kind
  EXPECT_EQ(m["l2_series"]["completed"].size(), 3u);
  EXPECT_EQ(m["plan"]["forward_edges"], 6);
  EXPECT_FALSE(m.contains("partial"));
}

TEST(L2Report, ThePageHasEveryL2Section) {
  const std::string page = render_l2_report_html(build_l2_report_model(stored_run()));
  for (const char* id : {"verdict", "run", "operations", "latency", "waits", "outcomes", "plan"})
    EXPECT_TRUE(has(page, "<section id=\"" + std::string(id) + "\"")) << id;
  EXPECT_FALSE(has(page, "<section id=\"nodes\""));
  for (const char* chart :
       {"l2_ops_time", "l2_latency_time", "l2_bytes_time", "l2_lag_time", "op_cdf"})
    EXPECT_TRUE(has(page, "data-chart=\"" + std::string(chart) + "\"")) << chart;
  EXPECT_TRUE(has(page, "id=\"l2-kinds-rows\""));
  EXPECT_TRUE(has(page, "id=\"l2-outcomes-rows\""));
  EXPECT_TRUE(has(page, "lookup_task-&gt;store"));
  EXPECT_TRUE(has(page, "window.fleetExtraDrawers"));  // l2_report.js is inlined
  EXPECT_FALSE(has(page, "src=\"http"));               // no network
}

TEST(L2Report, AFleetRunsNodesGetATable) {
  summary::L2RunStats run = stored_run();
  run.nodes.push_back({"w0", {run.kinds[0]}, 0, 1.0});
  const std::string page = render_l2_report_html(build_l2_report_model(run));
  EXPECT_TRUE(has(page, "<section id=\"nodes\""));
  EXPECT_TRUE(has(page, "id=\"l2-nodes-rows\""));
}

TEST(L2Report, AnInterruptedRunWithoutTimelineStillRenders) {
  summary::L2RunStats run = stored_run();
  run.interrupted = true;
  run.timeline = {};
  const nlohmann::json m = build_l2_report_model(run);
  EXPECT_EQ(m["verdict"]["status"], "fail");
  EXPECT_EQ(m["partial"], true);
  const std::string page = render_l2_report_html(m);
  EXPECT_TRUE(has(page, "PARTIAL RUN"));
  EXPECT_TRUE(has(page, "no timeline"));
  EXPECT_FALSE(has(page, "data-chart=\"l2_ops_time\""));
}

TEST(L2Report, WriteReportPageOnAnL2DirectoryWritesTheL2Page) {
  const test::ScratchDir scratch;
  const fs::path& dir = scratch.path();
  for (const auto& f : fs::directory_iterator(stored()))
    fs::copy_file(f.path(), dir / f.path().filename(), fs::copy_options::overwrite_existing);
  const Result<std::string> written = write_report_page(dir.string());
  ASSERT_TRUE(written) << written.status().message();
  std::ifstream in(written.value());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(has(text.str(), "Fleet Replay L2 report"));
  EXPECT_TRUE(has(text.str(), "<section id=\"outcomes\""));
}

}  // namespace
}  // namespace fleet::report::html
