// report.html from a report model: every section in order, self-contained (no URL, Chart.js
// inlined), model strings escaped, scripts that close only where they should, the embedded
// model round-tripping, robustness to empty and wrongly typed models, and the page size of a
// 64-node model (the limit docs/report.md states).
#include "fleet/insight/html/report_page.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <limits>
#include <string>

#include "synthetic_report_model.h"

namespace fleet::report::html {
namespace {

using nlohmann::json;

// The limits docs/report.md documents for a 64-node model with 1000-point series: values as a
// builder rounding to a few digits writes them, and at full double precision (the worst case).
constexpr size_t kPageLimitBytes = 1536 * 1024;
constexpr size_t kFullPrecisionPageLimitBytes = 2560 * 1024;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The text between an element's start tag (found by `open`) and the next `close`.
std::string between(const std::string& page, const std::string& open, const std::string& close) {
  size_t start = page.find(open);
  if (start == std::string::npos) return "";
  start += open.size();
  size_t end = page.find(close, start);
  return end == std::string::npos ? "" : page.substr(start, end - start);
}

std::string small_page() { return render_report_html(test::synthetic_report_model({})); }

TEST(ReportPage, SectionsAppearInPageOrderWithNavLinks) {
  const std::string page = small_page();
  size_t last = 0;
  for (const char* id : {"verdict", "run", "throughput", "lateness", "latency", "cache",
                         "contention", "nodes", "counters"}) {
    size_t at = page.find("<section id=\"" + std::string(id) + "\"");
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id << " is out of order";
    last = at;
    EXPECT_NE(page.find("href=\"#" + std::string(id) + "\""), std::string::npos) << id;
  }
}

TEST(ReportPage, IsSelfContained) {
  const std::string page = small_page();
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos) << "Chart.js is not inlined";
  EXPECT_NE(page.find("chartsExpected"), std::string::npos) << "report.js is not inlined";
  EXPECT_NE(page.find("--c-others"), std::string::npos) << "report.css is not inlined";
  const std::string l = lower(page);
  for (const char* banned : {"src=\"http", "href=\"http", "src='http", "href='http", "fetch(",
                             "xmlhttprequest", "<link", "@import"}) {
    EXPECT_EQ(l.find(banned), std::string::npos) << banned;
  }
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos) << "no network policy";
}

TEST(ReportPage, ScriptElementsCloseOnlyAtTheirOwnClosingTag) {
  const std::string l = lower(small_page());
  // The model, Chart.js and report.js.
  EXPECT_EQ(count(l, "<script"), 3u);
  EXPECT_EQ(count(l, "</script"), 3u);
  EXPECT_EQ(count(l, "</style"), 1u);
}

TEST(ReportPage, EmbeddedModelRoundTrips) {
  const json model = test::synthetic_report_model({.hostile_names = true});
  const std::string page = render_report_html(model);
  const std::string text =
      between(page, "<script type=\"application/json\" id=\"fleet-model\">", "</script>");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find('<'), std::string::npos) << "'<' must be \\u003c inside the JSON";
  EXPECT_EQ(json::parse(text), model);
}

TEST(ReportPage, EscapesEveryModelString) {
  const std::string page =
      render_report_html(test::synthetic_report_model({.hostile_names = true}));
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<b>op&"), std::string::npos);
  EXPECT_EQ(page.find("0:<mock>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("w&amp;1 &quot;q&quot; &#39;x&#39;"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;op&amp;&lt;/b&gt;"), std::string::npos);
}

TEST(ReportPage, TablesFormatNumbersForHumans) {
  const std::string page = small_page();
  EXPECT_NE(page.find(">1.23 M<"), std::string::npos);             // w0's records/s, 1234567
  EXPECT_NE(page.find("title=\"1,234,567\""), std::string::npos);  // the exact value on hover
  EXPECT_NE(page.find(">4.5 µs<"), std::string::npos);             // lateness p50
  EXPECT_NE(page.find(">50.0 %<"), std::string::npos);             // L1 hit share of keys
  EXPECT_NE(page.find(">1.5 KiB<"), std::string::npos);            // refused bytes, 1536
  EXPECT_NE(page.find(">763 MiB<"), std::string::npos);            // L1 hit bytes, 800 MB
  EXPECT_NE(page.find(">1 min 03 s<"), std::string::npos);         // duration 62.5 s
  EXPECT_NE(page.find("18,446,744,073,709,551,615"), std::string::npos);  // an exact counter
}

// A worker's absurd latency (4.5e303 ms, a finite double in its DONE) overflows to infinity
// once the page scales it to ns: shown as "inf", never converted to an int (undefined
// behaviour that UBSan reports; the done_report fuzz target found it).
TEST(ReportPage, NumbersBeyondTheirUnitsReadAsInfinity) {
  json model = test::synthetic_report_model({});
  model["ops"][0]["max_ms"] = 4.5e303;
  model["run"]["duration_s"] = 1e300;
  const std::string page = render_report_html(model);
  EXPECT_NE(page.find(">inf s<"), std::string::npos);  // max latency, 4.5e309 ns
  EXPECT_NE(page.find(">1e+300 s<"), std::string::npos) << "a duration beyond llround's range";
}

TEST(ReportPage, VerdictBannerAndPartialBadge) {
  json model = test::synthetic_report_model({});
  EXPECT_NE(render_report_html(model).find("class=\"verdict level-warn\""), std::string::npos);
  EXPECT_EQ(render_report_html(model).find("PARTIAL RUN"), std::string::npos);
  model["verdict"]["status"] = "fail";
  model["partial"] = true;
  model["partial_reason"] = "node w1 lost: no heartbeat for 1500 ms <gone>";
  const std::string page = render_report_html(model);
  EXPECT_NE(page.find("class=\"verdict level-fail\""), std::string::npos);
  EXPECT_NE(page.find("PARTIAL RUN"), std::string::npos);
  EXPECT_NE(page.find("no heartbeat for 1500 ms &lt;gone&gt;"), std::string::npos);
  EXPECT_NE(page.find("<strong>Faithful.</strong> Every node replayed the trace."),
            std::string::npos);
}

TEST(ReportPage, TheRoutingPlanRowSaysWhatTheCacheDid) {
  json model = test::synthetic_report_model({});
  EXPECT_EQ(render_report_html(model).find("Routing plan"), std::string::npos);  // no cache
  model["run"]["route_plan"] = {
      {"replayed", true}, {"saved", false}, {"file", "/c/<x>.route"}, {"why_not", ""}};
  EXPECT_NE(
      render_report_html(model).find("replayed the saved plan <code>/c/&lt;x&gt;.route</code>"),
      std::string::npos);
  model["run"]["route_plan"] = {{"replayed", false},
                                {"saved", true},
                                {"file", "/c/y.route"},
                                {"why_not", "routing the trace again: checksum mismatch"}};
  EXPECT_NE(
      render_report_html(model).find("routed the trace; plan saved to <code>/c/y.route</code> "
                                     "(routing the trace again: checksum mismatch)"),
      std::string::npos);
  model["run"]["route_plan"] = {
      {"replayed", false}, {"saved", false}, {"file", nullptr}, {"why_not", "not saved: stopped"}};
  EXPECT_NE(render_report_html(model).find("routed the trace; no plan saved (not saved: stopped)"),
            std::string::npos);
}

TEST(ReportPage, DigestTableMarksEachNode) {
  const std::string rows = between(small_page(), "<tbody id=\"digests-rows\">", "</tbody>");
  EXPECT_EQ(count(rows, "<tr"), 2u);
  EXPECT_EQ(count(rows, "✓ match"), 1u);
  EXPECT_EQ(count(rows, "✗ differs"), 1u);
}

TEST(ReportPage, OneCanvasPerChartWithCaptionAndNoscript) {
  const std::string page = small_page();
  // throughput, failed, lateness x2, op CDF, hit rate, per-node hits, contention x4.
  EXPECT_EQ(count(page, "<canvas data-chart=\""), 11u);
  EXPECT_EQ(count(page, "<figcaption>"), 11u);
  EXPECT_EQ(count(page, "<noscript>"), 11u);

  json no_l2 = test::synthetic_report_model({.contention = false});
  const std::string without = render_report_html(no_l2);
  EXPECT_EQ(without.find("<section id=\"contention\""), std::string::npos);
  EXPECT_EQ(without.find("href=\"#contention\""), std::string::npos);
  EXPECT_EQ(count(without, "<canvas data-chart=\""), 7u);
}

TEST(ReportPage, EngineCountersAreCollapsedNestedTables) {
  const std::string page = small_page();
  EXPECT_EQ(count(page, "<details class=\"counters\">"), 2u);
  EXPECT_EQ(page.find("<details class=\"counters\" open"), std::string::npos);
  const std::string first = between(page, "<details class=\"counters\">", "</details>");
  EXPECT_GE(count(first, "<table class=\"kv nested\">"), 3u);  // counters > prefetch > depth
  EXPECT_NE(first.find("<code class=\"json\">[&quot;0:mock&quot;]</code>"), std::string::npos);
}

TEST(ReportPage, EmptyModelStillRendersAPage) {
  for (const json& model : {json::object(), json(), json::array({1, 2}), json("text"), json(3)}) {
    std::string page;
    ASSERT_NO_THROW(page = render_report_html(model)) << model.dump();
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(page.find("</html>"), std::string::npos);
    EXPECT_NE(page.find("No verdict recorded"), std::string::npos);
    EXPECT_NE(page.find("—"), std::string::npos);
    EXPECT_EQ(count(page, "<canvas data-chart=\""), 0u);
    EXPECT_EQ(count(lower(page), "</script"), 3u);
  }
}

// Every leaf swapped for a value of the wrong type: the renderer shows "—", never throws.
json scramble(const json& j, int depth) {
  if (j.is_object()) {
    json out = json::object();
    int i = 0;
    for (const auto& [k, v] : j.items())
      out[k] = (i++ + depth) % 5 == 0 ? json(7) : scramble(v, depth + 1);
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const json& v : j) out.push_back(scramble(v, depth + 1));
    return out.empty() ? json("x") : out;
  }
  if (j.is_string()) return json::array({1});
  if (j.is_number()) return depth % 2 ? json("12") : json(nullptr);
  return json::object();
}

TEST(ReportPage, WronglyTypedFieldsDoNotThrow) {
  const json model = test::synthetic_report_model({});
  for (int seed = 0; seed < 3; ++seed) {
    json bad = scramble(model, seed);
    EXPECT_NO_THROW(render_report_html(bad)) << seed;
  }
  json odd = model;
  odd["nodes"][0]["records_per_s"] = std::numeric_limits<double>::quiet_NaN();
  odd["ops"][0]["cdf"] = {{1}, "x", {nullptr, 2}, {-1, 0.5}};
  odd["series"]["records_per_s"][0]["points"] = {{"a", 1}, 5};
  odd["run"]["title"] = std::string("\xff\xfe bad utf-8");
  odd["title"] = std::string("bad \xc3 utf-8");
  EXPECT_NO_THROW(render_report_html(odd));
}

TEST(ReportPage, SixtyFourNodesWithLongSeriesStayUnderTheSizeLimit) {
  const json model = test::synthetic_report_model(
      {.nodes = 64, .points = 1000, .ops = 20, .cdf_points = 256, .contention = true});
  const auto start = std::chrono::steady_clock::now();
  const std::string page = render_report_html(model);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  const std::string rows = between(page, "<tbody id=\"nodes-rows\">", "</tbody>");
  EXPECT_EQ(count(rows, "<tr"), 64u);
  EXPECT_LT(page.size(), kPageLimitBytes);

  const std::string model_text =
      between(page, "<script type=\"application/json\" id=\"fleet-model\">", "</script>");
  const size_t full_precision =
      render_report_html(test::synthetic_report_model({.nodes = 64,
                                                       .points = 1000,
                                                       .ops = 20,
                                                       .cdf_points = 256,
                                                       .contention = true,
                                                       .full_precision = true}))
          .size();
  std::cout << "report.html, 64 nodes, 1000-point series, 20 ops x 256-point CDFs: " << page.size()
            << " bytes (model JSON " << model_text.size() << ", rendered in " << ms
            << " ms); with full-precision values " << full_precision << " bytes\n";
  EXPECT_LT(full_precision, kFullPrecisionPageLimitBytes);
  RecordProperty("page_bytes", static_cast<int>(page.size()));
  RecordProperty("full_precision_page_bytes", static_cast<int>(full_precision));
}

}  // namespace
}  // namespace fleet::report::html
