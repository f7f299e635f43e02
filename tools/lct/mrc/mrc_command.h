// `lct mrc FILE`: the L1 miss-ratio curve of a trace's key stream (docs/lct.md § lct mrc).
// main.cc registers it with add_mrc_command and calls run_mrc when it was parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "fleet/util/exit_codes.h"

namespace fleet::lct {

struct MrcArgs {
  std::string file;
  double sample = 1.0;
  std::string sizes;  // "1GB,2GB,..."; empty: --points log-spaced sizes
  size_t points = 40;
  std::string csv, json;
  bool warm_as_write = false;
  uint32_t max_frame_mb = 64;
};

CLI::App* add_mrc_command(CLI::App& app, MrcArgs& args);
ExitCode run_mrc(const MrcArgs& args);

}  // namespace fleet::lct
