// report.html for an L2 replay's run directory (docs/report.md, "L2 runs"): the same page kit,
// look and charts as a storage run's report, drawn from l2_replay_stats.json as
// summary::read_l2_run_stats reads it. A verdict on top (dependencies kept, outcome mismatches,
// interrupted), the run, operations over time per kind, latency CDFs and latency over time,
// schedule lag and dependency waits, outcome mismatches vs the source, the plan, and a node
// table when a fleet run's stats carry nodes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/summary/l2_run_stats.h"
#include "fleet/util/status.h"

namespace fleet::report::html {

// The page's model (embedded in the page as JSON; report.js and l2_report.js draw from it).
nlohmann::json build_l2_report_model(const summary::L2RunStats& run);
// The whole page.
std::string render_l2_report_html(const nlohmann::json& model);
// Reads DIR's L2 stats and writes DIR/report.html (or `out_path`); returns the path, or an
// error naming the file.
Result<std::string> write_l2_report_page(const std::string& dir, const std::string& out_path = "");

}  // namespace fleet::report::html
