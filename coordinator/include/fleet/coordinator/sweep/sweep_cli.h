// What --sweep starts (docs/sweep.md): coordinator-net hands over to run_sweep_cli when --sweep
// is given (the flags themselves: sweep_flags.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/sweep/sweep_flags.h"
#include "fleet/util/exit_codes.h"

namespace fleet::sweep {

// Validates the flags (errors name the flag: exit 2), then runs the sweep. `app` is the parsed
// coordinator command line: a swept NAME must be one of its flags.
ExitCode run_sweep_cli(const CLI::App& app, const SweepFlags& flags,
                       const session::FleetOptions& fleet, int argc, char** argv);

}  // namespace fleet::sweep
