// report.html: one self-contained page (Chart.js, script and style inlined; no network) that
// shows a run from its report model (docs/report.md). Every number is in server-rendered
// tables, so the page still reads with JavaScript off; the script only draws the charts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fleet::report::html {

// The whole page. Never throws on a missing or wrongly typed field: it shows "—" instead,
// so an old or partial run still gets a report.
std::string render_report_html(const nlohmann::json& model);

}  // namespace fleet::report::html
