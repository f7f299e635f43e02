// The coordinator's --sweep flags (docs/sweep.md): declared with the other flags by both
// binaries; a sweep itself runs in coordinator-net (sweep_cli.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace fleet::sweep {

struct SweepFlags {
  std::vector<std::string> axes;  // --sweep NAME=V1,V2 (repeatable)
  std::string goal;               // --sweep-goal
  std::string mrc;                // --sweep-mrc
  bool shared_l2 = false;         // --sweep-shared-l2
};

void add_sweep_flags(CLI::App& app, SweepFlags& flags);

}  // namespace fleet::sweep
