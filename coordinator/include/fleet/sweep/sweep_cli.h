// The coordinator's --sweep flags and what they start (docs/sweep.md): main declares them with
// the other flags and hands over to run_sweep_cli when --sweep is given.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "fleet/session/fleet_run.h"

namespace fleet::sweep {

struct SweepFlags {
  std::vector<std::string> axes;  // --sweep NAME=V1,V2 (repeatable)
  std::string goal;               // --sweep-goal
  std::string mrc;                // --sweep-mrc
  bool shared_l2 = false;         // --sweep-shared-l2
};

void add_sweep_flags(CLI::App& app, SweepFlags& flags);
// Validates the flags (errors name the flag: exit 2), then runs the sweep. `app` is the parsed
// coordinator command line: a swept NAME must be one of its flags.
int run_sweep_cli(const CLI::App& app, const SweepFlags& flags, const session::FleetOptions& fleet,
                  int argc, char** argv);

}  // namespace fleet::sweep
