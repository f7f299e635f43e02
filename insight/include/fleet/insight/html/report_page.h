// report.html: one self-contained page (Chart.js, script and style inlined; no network) that
// shows a run from its report model (docs/report.md). Every number is in server-rendered
// tables, so the page still reads with JavaScript off; the script only draws the charts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fleet::report::html {

// The whole page. Never throws on a missing or wrongly typed field: it shows "—" instead,
// so an old or partial run still gets a report.
std::string render_report_html(const nlohmann::json& model);

// The same page as pieces to write one after the other: the page up to its scripts (built for
// this model), then the inlined scripts, which are the same for every page and are written
// straight from the binary (Chart.js alone is 200 KB: copying it was most of a small run's
// report).
struct ReportPageParts {
  std::string head;
  std::vector<std::string_view> scripts_and_end;  // valid for the process's lifetime
};
ReportPageParts render_report_parts(const nlohmann::json& model);

}  // namespace fleet::report::html
