// Assembles the L2 report.html as report_page.cc assembles a storage run's: the same style,
// header, nav and footer, the model as JSON, then Chart.js, l2_report.js (the L2 chart kinds)
// and report.js (which draws every chart, the CDFs with its own op_cdf).
#include <filesystem>

#include "fleet/insight/html/embedded_assets.h"
#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/l2_report.h"
#include "fleet/insight/html/report_sections.h"
#include "fleet/util/output_file.h"
#include "l2_report_sections.h"

namespace fleet::report::html {

namespace {

// The page allows no network at all: a report opened from disk stays offline.
constexpr const char* kContentPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

std::string page_header(const Json& model) {
  return "<header class=\"page-head\"><div class=\"brand\">Fleet Replay</div><h1>" +
         escape(str(model, {"title"})) + "</h1><div class=\"meta\">Generated <span>" +
         escape(str(model, {"generated_at"})) + "</span> · Build <span>" +
         escape(str(model, {"build_id"})) + "</span> · Trace <span>" +
         escape(str(model, {"run", "trace"})) + "</span></div></header>";
}

}  // namespace

std::string render_l2_report_html(const Json& model) {
  struct Part {
    const char* id;
    const char* nav;
    std::string html;
  };
  const Part parts[] = {
      {"verdict", "Verdict", verdict_section(model)},
      {"run", "Run", l2_run_section(model)},
      {"operations", "Operations", l2_operations_section(model)},
      {"latency", "Latency", latency_section(model)},
      {"waits", "Waits", l2_waits_section(model)},
      {"outcomes", "Outcomes", l2_outcomes_section(model)},
      {"plan", "Plan", l2_plan_section(model)},
      {"nodes", "Nodes", l2_nodes_section(model)},
      {"fairness", "Fairness", l2_fairness_section(model)},
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
      std::string(kContentPolicy) + "\"><title>" + escape(str(model, {"title"})) +
      "</title>\n<style>" + inline_safe(assets::report_css(), "style") +
      "</style></head>\n<body><div class=\"page\">" + page_header(model) + nav + "<main>" + body +
      "</main><footer class=\"page-foot\">Rendered by Fleet Replay from l2_replay_stats.json "
      "(the model is embedded below as JSON). Charts are drawn by the inlined Chart.js (MIT "
      "licence); the page uses no network.</footer></div>\n"
      "<pre id=\"report-errors\" hidden></pre>\n"
      "<script type=\"application/json\" id=\"fleet-model\">" +
      json_for_script(model) + "</script>\n";
  for (const std::string_view script :
       {assets::chart_js(), assets::l2_report_js(), assets::report_js()}) {
    page += "<script>" + inline_safe(script, "script") + "</script>\n";
  }
  return page + "</body></html>\n";
}

Result<std::string> write_l2_report_page(const std::string& dir, const std::string& out_path) {
  const Result<summary::L2RunStats> run = summary::read_l2_run_stats(dir);
  if (!run) return run.status();
  const std::string page = render_l2_report_html(build_l2_report_model(run.value()));
  const std::string path =
      out_path.empty() ? (std::filesystem::path(dir) / "report.html").string() : out_path;
  // A reader never sees half a page.
  if (Status s = util::write_file_atomically(path, {page}); !s) return s;
  return path;
}

}  // namespace fleet::report::html
