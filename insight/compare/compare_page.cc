// Assembles compare.html the way report.html is assembled (report_page.cc): the run report's
// inlined style, header and nav, the sections, the model as JSON, then Chart.js, compare.js
// (which registers compare.html's chart kinds) and report.js (which draws every chart).
#include <ctime>

#include "compare_sections.h"
#include "fleet/insight/compare/compare_outputs.h"
#include "fleet/insight/html/embedded_assets.h"
#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/model_sections.h"
#include "fleet/util/build_info.h"
#include "fleet/util/json_pair.h"
#include "fleet/util/utc_time.h"

namespace fleet::compare {

namespace {

using namespace report::html;

// The page allows no network at all, as report.html: opened from disk it stays offline.
constexpr const char* kContentPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

// Each op's CDF in A and in B, rounded as the run report rounds its CDFs (4 digits).
Json cdfs(const Json& comparison, const Json& cdf_a, const Json& cdf_b) {
  Json out = Json::object();
  for (const Json& op : arr(comparison, {"ops"})) {
    const std::string q = str(op, {"qualname"});
    const Json* a = at(cdf_a, {q});
    const Json* b = at(cdf_b, {q});
    out[q] = {{"a", a ? round_points(*a) : Json::array()},
              {"b", b ? round_points(*b) : Json::array()}};
  }
  return out;
}

std::string page_header(const Json& model) {
  return "<header class=\"page-head\"><div class=\"brand\">Fleet Replay</div><h1>Comparison: " +
         escape(str(model, {"a", "dir"})) + " → " + escape(str(model, {"b", "dir"})) +
         "</h1><div class=\"meta\">Generated <span>" + escape(str(model, {"generated_at"})) +
         "</span> · Build <span>" + escape(str(model, {"build_id"})) + "</span></div></header>";
}

}  // namespace

Json latency_cdfs_json(const RunSnapshot& run) {
  Json out = Json::object();
  for (const auto& [q, cdf] : run.summary.latency_cdf_ms) {
    Json::array_t points;
    for (const auto& [x, f] : cdf) points.emplace_back(util::json_pair<Json>(x, f));
    out[q] = std::move(points);
  }
  return out;
}

std::string render_compare_html(const Json& comparison, const Json& cdf_a, const Json& cdf_b) {
  Json model = comparison.is_object() ? comparison : Json::object();
  model["generated_at"] = util::utc_iso8601_now();
  model["build_id"] = util::build_id();
  model["cdf"] = cdfs(comparison, cdf_a, cdf_b);

  struct Part {
    const char* id;
    const char* nav;
    std::string html;
  };
  const Part parts[] = {
      {"verdict", "Verdict", verdict_section(model)},
      {"runs", "Runs", runs_section(model)},
      {"latency", "Latency", latency_section(model)},
      {"cache", "Cache", cache_section(model)},
      {"records", "Records", records_section(model)},
      {"config", "Config", config_section(model)},
      {"thresholds", "Thresholds", thresholds_section(model)},
  };
  std::string nav = "<nav class=\"toc\" aria-label=\"Sections\">";
  std::string body;
  for (const Part& p : parts) {
    if (p.html.empty()) continue;
    nav += "<a href=\"#" + std::string(p.id) + "\">" + p.nav + "</a>";
    body += p.html + "\n";
  }
  nav += "</nav>";

  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\" class=\"no-js\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
      std::string(kContentPolicy) + "\"><title>Fleet Replay comparison</title>\n<style>" +
      inline_safe(assets::report_css(), "style") + "</style></head>\n<body><div class=\"page\">" +
      page_header(model) + nav + "<main>" + body +
      "</main><footer class=\"page-foot\">Rendered by Fleet Replay from compare.json (embedded "
      "below as JSON, with each run's latency CDFs). Charts are drawn by the inlined Chart.js "
      "(MIT licence); the page uses no network.</footer></div>\n"
      "<pre id=\"report-errors\" hidden></pre>\n"
      "<script type=\"application/json\" id=\"fleet-model\">" +
      json_for_script(model) + "</script>\n";
  for (const std::string_view script :
       {assets::chart_js(), assets::compare_js(), assets::report_js()}) {
    page += "<script>" + inline_safe(script, "script") + "</script>\n";
  }
  return page + "</body></html>\n";
}

}  // namespace fleet::compare
