// report.html in a real browser (headless Chromium, from file:// with no network): every chart
// draws with no script error for a 2-node and a 64-node model, the tables carry every node,
// the page still reads with JavaScript off, and a screenshot is saved for a person to look at
// (${FLEET_BIN_DIR}/report_screenshot.png). Skipped, reason printed, when Chromium is missing.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <string>

#include "../unit/report/synthetic_report_model.h"
#include "chromium.h"
#include "fleet/insight/html/l2_report.h"
#include "fleet/insight/html/report_page.h"
#include "fleet_fixture.h"
#include "process_util.h"

namespace fleet::test {
namespace {

std::string write_report(const ScratchDir& dir, const nlohmann::json& model) {
  const std::string path = dir / "report.html";
  std::ofstream(path, std::ios::binary) << report::html::render_report_html(model);
  return path;
}

// Every chart drawn, no error recorded, `nodes` rows in the nodes table.
void expect_page_drawn(const BrowserCheck& check, int nodes) {
  ASSERT_FALSE(check.dom.empty()) << "no DOM dumped; chromium stderr:\n" << check.stderr_text;
  auto drawn = body_attribute(check.dom, "data-charts-drawn");
  auto expected = body_attribute(check.dom, "data-charts-expected");
  ASSERT_TRUE(drawn && expected) << "report.js did not finish; errors: "
                                 << element_text(check.dom, "report-errors").value_or("?");
  EXPECT_EQ(*drawn, *expected);
  EXPECT_GT(std::stoi(*expected), 0);
  auto errors = element_text(check.dom, "report-errors");
  ASSERT_TRUE(errors.has_value());
  EXPECT_EQ(*errors, "") << "script errors in the page";
  EXPECT_EQ(tbody_row_count(check.dom, "nodes-rows"), nodes);
}

TEST(ReportBrowser, TwoNodeReportDrawsEveryChart) {
  ScratchDir dir;
  const std::string html = write_report(dir, synthetic_report_model({.hostile_names = true}));
  BrowserCheck check = open_in_browser(html);
  if (!check.available) GTEST_SKIP() << check.skip_reason;
  expect_page_drawn(check, 2);
  // The hostile node name stayed text: no injected element ran or appeared.
  EXPECT_EQ(check.dom.find("<script>alert(1)"), std::string::npos);

  const std::string png = bin("report_screenshot.png");
  std::string why;
  ASSERT_TRUE(screenshot(html, png, &why)) << why;
  EXPECT_GT(std::filesystem::file_size(png), 10000u) << "a blank page?";
  std::cout << "screenshot: " << png << "\n";
}

TEST(ReportBrowser, SixtyFourNodeReportDrawsEveryChart) {
  ScratchDir dir;
  const std::string html = write_report(
      dir, synthetic_report_model({.nodes = 64, .points = 1000, .ops = 20, .cdf_points = 256}));
  BrowserCheck check = open_in_browser(html);
  if (!check.available) GTEST_SKIP() << check.skip_reason;
  expect_page_drawn(check, 64);
}

// The real thing: a 2-node --local run with a mock L2 writes its own report.html, and every
// chart of it draws in the browser from disk, with one table row per node.
TEST(ReportBrowser, ARealTwoNodeRunsReportDrawsEveryChart) {
  ScratchDir dir;
  RunResult r = run_coordinator(
      quick_args({synthetic_trace("report-browser", 6000), "--local", "2", "--shard", "key",
                  "--clock", "virtual", "--l1-size-gb", "4", "--config-from-trace", "--l2-adapter",
                  R"({"type":"mock","max_size_gb":64,"mock_bandwidth_gb":10})"}),
      dir / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = dir / "run/report.html";
  // The run table says what T0 waited for (quick_args' --start-delay 0.3 is the floor here).
  EXPECT_NE(read_file(html).find("ms after the handshake, waited for --start-delay (last ready"),
            std::string::npos);
  BrowserCheck check = open_in_browser(html);
  if (!check.available) GTEST_SKIP() << check.skip_reason;
  expect_page_drawn(check, 2);
  EXPECT_NE(check.dom.find("id=\"contention\""), std::string::npos) << "L2 was used";
  const std::string png = bin("report_real_run.png");
  std::string why;
  ASSERT_TRUE(screenshot(html, png, &why)) << why;
  EXPECT_GT(std::filesystem::file_size(png), 10000u);
  std::cout << "screenshot: " << png << "\n";
}

// The page as a browser with JavaScript off renders it: no script runs and <noscript> shows.
// Headless Chromium cannot dump or screenshot a page with scripts disabled (it drives the page
// through script itself), so the scripts are removed and <noscript> unwrapped instead.
std::string as_without_javascript(std::string html) {
  for (size_t at; (at = html.find("<script")) != std::string::npos;) {
    size_t end = html.find("</script>", at);
    html.erase(at, end + std::string("</script>").size() - at);
  }
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"<noscript>", "<div>"}, {"</noscript>", "</div>"}}) {
    for (size_t at; (at = html.find(from)) != std::string::npos;) html.replace(at, from.size(), to);
  }
  return html;
}

TEST(ReportBrowser, ReadableWithJavaScriptOff) {
  ScratchDir dir;
  const std::string html = dir / "report-nojs.html";
  std::ofstream(html, std::ios::binary)
      << as_without_javascript(report::html::render_report_html(synthetic_report_model({})));
  BrowserCheck check = open_in_browser(html);
  if (!check.available) GTEST_SKIP() << check.skip_reason;
  ASSERT_FALSE(check.dom.empty()) << check.stderr_text;
  EXPECT_FALSE(body_attribute(check.dom, "data-charts-drawn").has_value()) << "script ran";
  EXPECT_NE(check.dom.find("class=\"no-js\""), std::string::npos);
  EXPECT_EQ(tbody_row_count(check.dom, "nodes-rows"), 2);
  EXPECT_EQ(tbody_row_count(check.dom, "ops-rows"), 4);
  EXPECT_NE(check.dom.find("its numbers are in the tables"), std::string::npos);

  std::string why;
  const std::string png = bin("report_screenshot_nojs.png");
  EXPECT_TRUE(screenshot(html, png, &why)) << why;
}

// An L2 replay's page (docs/report.md, "L2 runs"), rebuilt from the stored L2 run: every chart
// (report.js's CDF and l2_report.js's kinds) draws with no script error.
TEST(ReportBrowser, AnL2RunsReportDrawsEveryChart) {
  ScratchDir dir;
  const Result<summary::L2RunStats> run =
      summary::read_l2_run_stats(source_dir() + "/tests/fixtures/l2_run_dirs/small_speed1_virtual");
  ASSERT_TRUE(run) << run.status().message();
  const std::string html = dir / "report.html";
  std::ofstream(html, std::ios::binary)
      << report::html::render_l2_report_html(report::html::build_l2_report_model(run.value()));
  BrowserCheck check = open_in_browser(html);
  if (!check.available) GTEST_SKIP() << check.skip_reason;
  ASSERT_FALSE(check.dom.empty()) << "no DOM dumped; chromium stderr:\n" << check.stderr_text;
  EXPECT_EQ(body_attribute(check.dom, "data-charts-expected"), "5");
  EXPECT_EQ(body_attribute(check.dom, "data-charts-drawn"), "5")
      << element_text(check.dom, "report-errors").value_or("?");
  EXPECT_EQ(element_text(check.dom, "report-errors"), "");
  EXPECT_EQ(tbody_row_count(check.dom, "l2-kinds-rows"), 5);
}

}  // namespace
}  // namespace fleet::test
