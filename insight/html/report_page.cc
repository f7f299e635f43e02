// Assembles report.html: head (inlined style), header and nav, the sections in page order,
// then the model as JSON and the two inlined scripts (Chart.js, report.js) that draw charts.
#include "fleet/insight/html/report_page.h"

#include <utility>
#include <vector>

#include "fleet/insight/html/embedded_assets.h"
#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/model_fields.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/report_sections.h"
#include "fleet/insight/html/series_view.h"

namespace fleet::report::html {

namespace {

// The page allows no network at all: a report opened from disk stays offline.
constexpr const char* kContentPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

struct Part {
  std::string id;
  std::string nav_label;
  std::string html;
};

// Made safe for inlining once per process: the assets never change after the build.
const std::string& inlined_css() {
  static const std::string css = inline_safe(assets::report_css(), "style");
  return css;
}
// "</script>" closes the element: a script goes in through inline_safe's escape only where it
// needs one (not Debian's Chart.js, nor ours: they are written straight from the binary).
std::string_view safe_view(std::string_view code, std::string& storage) {
  if (!needs_inline_escape(code, "script")) return code;
  storage = inline_safe(code, "script");
  return storage;
}
std::vector<std::string_view> inlined_scripts_and_end() {
  static std::string chart_storage, report_storage;
  static const std::string_view chart = safe_view(assets::chart_js(), chart_storage);
  static const std::string_view report = safe_view(assets::report_js(), report_storage);
  return {"<script>", chart, "</script>\n<script>", report, "</script>\n</body></html>\n"};
}

std::string page_header(const Json& model, const std::string& title) {
  std::string meta;
  auto add = [&](const std::string& label, const std::string& value) {
    if (value.empty()) return;
    if (!meta.empty()) meta += " · ";
    meta += escape(label) + " <span>" + escape(value) + "</span>";
  };
  add("Generated", str(model, {"generated_at"}));
  add("Build", str(model, {"build_id"}));
  add("Trace", str(model, {"run", "trace"}));
  return "<header class=\"page-head\"><div class=\"brand\">Fleet Replay</div><h1>" + escape(title) +
         "</h1><div class=\"meta\">" + meta + "</div></header>";
}

std::string nav(const std::vector<Part>& parts) {
  std::string out = "<nav class=\"toc\" aria-label=\"Sections\">";
  for (const Part& p : parts) {
    if (!p.html.empty()) out += "<a href=\"#" + p.id + "\">" + p.nav_label + "</a>";
  }
  return out + "</nav>";
}

}  // namespace

ReportPageParts render_report_parts(const nlohmann::json& model) {
  const SeriesColours colours = series_colours(model);
  std::string title = str(model, {"title"});
  if (title.empty()) title = "Fleet Replay report";

  std::vector<Part> parts = {
      {"verdict", "Verdict", verdict_section(model)},
      {"run", "Run", run_section(model)},
      {"throughput", "Throughput", throughput_section(model, colours)},
      {"lateness", "Lateness", lateness_section(model, colours)},
      {"latency", "Latency", latency_section(model)},
      {"cache", "Cache", cache_section(model)},
      {"compression", "Compression", compression_section(model)},
      {"contention", "L2 contention", contention_section(model, colours)},
      {"nodes", "Nodes", nodes_section(model, colours)},
      {"counters", "Counters", counters_section(model)},
  };
  // Only runs that classified misses have it: other pages stay as they were, byte for byte.
  std::erase_if(parts, [](const Part& p) { return p.id == "compression" && p.html.empty(); });

  const std::string model_json = json_for_script(model);
  std::string page;
  // One allocation for the page before its scripts.
  page.reserve(inlined_css().size() + model_json.size() + (64 << 10));
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\" class=\"no-js\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
      std::string(kContentPolicy) + "\"><title>" + escape(title) + "</title>\n<style>" +
      inlined_css() + "</style></head>\n<body><div class=\"page\">" + page_header(model, title) +
      nav(parts) + "<main>";
  for (const Part& p : parts) {
    page += p.html;
    page += '\n';
  }
  page +=
      "</main><footer class=\"page-foot\">Rendered by Fleet Replay from the run's report model "
      "(embedded below as JSON). Charts are drawn by the inlined Chart.js (MIT licence); the "
      "page uses no network.</footer></div>\n";
  page += "<pre id=\"report-errors\" hidden></pre>\n";
  page += "<script type=\"application/json\" id=\"fleet-model\">";
  page += model_json;
  page += "</script>\n";
  return {std::move(page), inlined_scripts_and_end()};
}

std::string render_report_html(const nlohmann::json& model) {
  ReportPageParts parts = render_report_parts(model);
  for (std::string_view piece : parts.scripts_and_end) parts.head.append(piece);
  return std::move(parts.head);
}

}  // namespace fleet::report::html
