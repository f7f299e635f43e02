// The coordinator's command line, shared by its two binaries (docs/architecture.md, "Two
// binaries"): `coordinator` (embedded replay, `report`, `compare`: no network stack to load)
// and `coordinator-net` (fleet runs and sweeps, which `coordinator` hands its command line to).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/sweep/sweep_flags.h"

namespace fleet::cli {

// Flags parsed into strings first and turned into options after the parse.
struct CliExtras {
  std::string shard = "none", timeline = "preserve", clock = "real", progress = "auto";
  std::string on_worker_loss = "abort", compression = "auto", trace_access = "auto";
  std::string log_level = "info";
  double max_frame_mb = 64;
  sweep::SweepFlags sweep;  // --sweep* (docs/sweep.md)
};

// A parsed command line. The app's options point into `fleet` and `extras`: never copied.
struct ParsedCli {
  session::FleetOptions fleet;
  CliExtras extras;
  std::unique_ptr<CLI::App> app;

  // --workers, --local or --sweep: a run for coordinator-net.
  bool wants_fleet() const {
    return !fleet.workers_spec.empty() || fleet.local > 0 || !extras.sweep.axes.empty();
  }
};

// Parses the command line (twice with --config-from-trace: the trace header's config, then the
// command line's engine flags over it), applies the replay's own flags and sets up logging. On
// --help/--version or an unusable command line, returns null with `exit_code` set (0 for
// help/version, 2 otherwise).
std::unique_ptr<ParsedCli> parse_command_line(int argc, char** argv, int& exit_code);

// Replays in this process (no --workers/--local); returns the exit status.
int run_embedded(ParsedCli& cli);

// Replaces this process with coordinator-net, same arguments (same PID, so signals and exit
// status reach the caller unchanged). Returns only on failure, with exit status 2.
int exec_coordinator_net(char** argv);

// The run's last line on stderr: where its report.html is, if this run wrote one.
int announce_report(const report::OutputOptions& o, int code);
// Record the start instant announce_report compares the page's time against.
void mark_start();

// Any engine flag given on the command line (the coordinator then sends its config to workers).
bool engine_flag_given(const CLI::App& app);

}  // namespace fleet::cli
