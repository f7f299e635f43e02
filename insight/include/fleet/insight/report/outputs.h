// Writes a RunReport the way `lmcache trace replay` does (terminal block, trace_replay_ops.csv,
// trace_replay_summary.json, --format json / --output) byte for byte, then Fleet's own
// additions in separate blocks and files (fleet_summary.json, fleet_nodes.csv) so the
// LMCache-compatible outputs stay exact.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/summary/run_report.h"
#include "fleet/util/exit_codes.h"
#include "fleet/util/status.h"

namespace fleet::report {

struct OutputOptions {
  std::string output_dir = ".";
  bool write_csv = true;            // --no-csv clears it
  bool write_summary_json = false;  // --json
  bool quiet = false;               // -q: no stdout summary (files still written)
  std::string format = "terminal";  // --format terminal|json
  std::string output_path;          // --output PATH: the summary in --format, even with -q
  bool write_report = true;         // report.html (--no-report clears it)
};

// Creates the output directory (and parents) before the replay starts, as LMCache does.
// An error names the directory.
Status prepare_output_dir(const std::string& dir);

// The LMCache "Trace Replay Result" block (terminal or json per options.format).
std::string render_lmcache_summary(const RunReport& report, const std::string& format);
// Fleet's block printed after LMCache's: lateness, engine counters, nodes, digest comparison.
std::string render_fleet_block(const RunReport& report);
std::string render_nodes_csv(const RunReport& report);

// Writes every file and the stdout summary. Returns the exit status LMCache would use:
// kRecordsFailed when any record failed, else kOk; or an error naming a file that cannot be
// written (report.html is the exception: a run's results stand without their picture).
Result<ExitCode> write_outputs(const RunReport& report, const OutputOptions& options);

}  // namespace fleet::report
