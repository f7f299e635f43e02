#include "fleet/coordinator/cli/fleet_cli.h"

#include "fleet/coordinator/sweep/sweep_cli.h"
#include "fleet/util/exit_codes.h"

namespace fleet::cli {

ExitCode run_fleet_cli(ParsedCli& cli, int argc, char** argv) {
  session::FleetOptions& fleet = cli.fleet;
  const CliExtras& x = cli.extras;
  if (!x.sweep.axes.empty()) return sweep::run_sweep_cli(*cli.app, x.sweep, fleet, argc, argv);
  // Engine flags given to the coordinator override every worker's own defaults.
  if (engine_flag_given(*cli.app)) fleet.send_engine_config = true;
  // Likewise --engine: without it, a worker started with --engine noop stays noop.
  fleet.send_engine_name = cli.app->get_option("--engine")->count() > 0;
  const report::OutputOptions out = fleet.replay.output;
  return announce_report(out, session::run_fleet(std::move(fleet)));
}

}  // namespace fleet::cli
