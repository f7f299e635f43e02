#include "fleet/coordinator/cli/report_command.h"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "fleet/flags/parse_errors.h"
#include "fleet/insight/html/report_writer.h"
#include "fleet/insight/report/contention_sweep.h"
#include "fleet/util/exit_codes.h"

namespace fleet::report::html {

ExitCode report_command(int argc, char** argv) {
  CLI::App app(
      "Rebuild report.html from a run's output directory (also a partial run), or with "
      "--contention print the L2 contention table across fleet sizes (docs/contention.md)",
      "coordinator report");
  std::vector<std::string> args;
  std::string out, json_out;
  bool contention = false, check = false;
  app.add_option("DIR", args,
                 "The run's --output-dir (fleet_summary.json, fleet_timeseries.csv); with "
                 "--contention one N=DIR per fleet size")
      ->required();
  auto* output =
      app.add_option("-o,--output", out, "Write the page here instead of DIR/report.html");
  auto* sweep = app.add_flag("--contention", contention,
                             "Print the L2 contention table of N=DIR runs instead of a page");
  sweep->excludes(output);
  app.add_option("--json", json_out, "With --contention: also write the rows as JSON here")
      ->needs(sweep);
  app.add_flag("--check", check,
               "With --contention: exit 1 unless every node reported ok and did L2 operations "
               "and fairness is in (0, 1]")
      ->needs(sweep);
  try {
    app.parse(argc, argv);
    if (!contention && args.size() != 1) {
      throw CLI::ValidationError("DIR", "exactly one DIR expected (N=DIR runs need --contention)");
    }
  } catch (const CLI::ParseError& e) {
    return flags::exit_code_of(app, e);
  }
  if (contention) {
    // The contention table's command keeps int statuses (insight/, being rewritten around a typed
    // RunSummary): 0, 1 or 2, each an ExitCode.
    return static_cast<ExitCode>(contention_sweep_command(args, json_out, check));
  }
  const Result<std::string> written = write_report_page(args.front(), out);
  if (!written) {
    spdlog::error("{}", written.status().message());
    return written.status().code();
  }
  std::printf("report: %s\n", written->c_str());
  return ExitCode::kOk;
}

}  // namespace fleet::report::html
