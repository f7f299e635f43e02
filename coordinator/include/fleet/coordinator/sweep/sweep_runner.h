// Runs a --sweep (docs/sweep.md): every variant is a normal coordinator run of the whole trace in
// its own output directory, started as a child process of this one. With workers (--local N or
// --workers) the variants run at the same time on disjoint worker groups, sharing one T0; with
// fewer workers than variants they run in waves; embedded variants run one after another.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fleet/insight/sweep/sweep_spec.h"
#include "fleet/util/exit_codes.h"

namespace fleet::sweep {

struct SweepRequest {
  std::string self;                    // this coordinator binary
  std::vector<std::string> base_args;  // the command line less what the sweep decides per variant
  std::string output_dir = ".";
  int local = 0;             // --local N: N workers shared out between the variants
  std::string workers_spec;  // --workers: the same, by address
  std::vector<SweepAxis> axes;
  std::optional<SweepGoal> goal;  // --sweep-goal
  bool shared_l2 = false;         // --sweep-shared-l2: variants share their L2 keys
  std::string shared_namespace;   // the user's own --l2-key-namespace, kept with --sweep-shared-l2
  double start_delay_s = 0.0;
  std::string mrc_path;  // --sweep-mrc: `lct mrc --json` output for the sweep page
};

// Splits the coordinator's argv: drops --sweep*, --output-dir, --local, --workers and every
// swept flag (each variant gives its own), keeps everything else for every variant.
std::vector<std::string> base_args_for_sweep(int argc, char** argv,
                                             const std::vector<SweepAxis>& axes);

ExitCode run_sweep(const SweepRequest& request);

}  // namespace fleet::sweep
