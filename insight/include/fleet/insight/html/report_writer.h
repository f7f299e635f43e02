// report.html next to a run's other outputs, always drawn from what the run's files hold
// (report_model.h), so a finished run and `coordinator report DIR` give the same page.
#pragma once

#include <optional>
#include <string>

#include "fleet/summary/run_summary.h"
#include "fleet/util/status.h"

namespace fleet::report::html {

// Writes DIR/report.html (or `out_path` when given) and returns its path, or an error naming
// the directory or file. `summary`: DIR/fleet_summary.json as the reader reads it, when the
// caller holds it (util/json_read_back.h), else the file is read.
Result<std::string> write_report_page(const std::string& dir, const std::string& out_path = "",
                                      std::optional<summary::RunSummary> summary = std::nullopt);

// `coordinator report DIR [-o FILE]`, or `coordinator report --contention [--json OUT] [--check]
// N=DIR...` (contention_sweep.h): argv[0] is "report". Returns the process exit code.
}  // namespace fleet::report::html
