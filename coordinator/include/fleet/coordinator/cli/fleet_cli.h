// coordinator-net's half of the command line: a sweep or a fleet run from a parsed command line
// (coordinator_cli.h).
#pragma once

#include "fleet/coordinator/cli/coordinator_cli.h"

namespace fleet::cli {

// --sweep, or a run on --workers/--local; returns the exit status.
ExitCode run_fleet_cli(ParsedCli& cli, int argc, char** argv);

}  // namespace fleet::cli
