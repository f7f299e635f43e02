// The coordinator's command line, shared by its two binaries (docs/architecture.md, "Two
// binaries"): `coordinator` (embedded replay, `report`, `compare`: no network stack to load)
// and `coordinator-net` (fleet runs and sweeps, which `coordinator` hands its command line to).
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "fleet/causal/pacing.h"
#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/sweep/sweep_flags.h"
#include "fleet/util/clock_kind.h"
#include "fleet/util/exit_codes.h"

namespace fleet::cli {

using util::ClockKind;
using util::kClockNames;

// --pacing: auto = causal when --speed > 1, uniform otherwise (docs/causal-pacing.md).
enum class PacingChoice { Auto, Uniform, Causal };
inline constexpr std::array<std::pair<std::string_view, PacingChoice>, 3> kPacingNames{
    {{"auto", PacingChoice::Auto},
     {"uniform", PacingChoice::Uniform},
     {"causal", PacingChoice::Causal}}};

// --shard: the storage router's modes, and source (L2 traces: one file per recorded server).
enum class ShardChoice { None, Time, Key, Source };
inline constexpr std::array<std::pair<std::string_view, ShardChoice>, 4> kShardChoiceNames{
    {{"none", ShardChoice::None},
     {"time", ShardChoice::Time},
     {"key", ShardChoice::Key},
     {"source", ShardChoice::Source}}};

inline constexpr std::array<std::pair<std::string_view, causal::Schedule>, 2> kScheduleNames{
    {{"ordered", causal::Schedule::Ordered}, {"partial", causal::Schedule::Partial}}};

// Flags that are turned into options after the parse (the rest bind to FleetOptions directly).
struct CliExtras {
  ClockKind clock = ClockKind::Real;
  PacingChoice pacing = PacingChoice::Auto;
  ShardChoice shard = ShardChoice::None;
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

// A command line parsed, or the status the binary ends with instead: --help and --version
// (printed, kOk) or an unusable command line (the error printed or logged, kBadInput).
struct ParseOutcome {
  std::unique_ptr<ParsedCli> cli;  // null: end with `exit`
  ExitCode exit = ExitCode::kOk;
};

// Parses the command line (twice with --config-from-trace: the trace header's config, then the
// command line's engine flags over it), applies the replay's own flags and sets up logging.
ParseOutcome parse_command_line(int argc, char** argv);

// Replays in this process (no --workers/--local); returns the exit status.
ExitCode run_embedded(ParsedCli& cli);

// Replaces this process with coordinator-net, same arguments (same PID, so signals and exit
// status reach the caller unchanged). Returns only on failure, with kBadInput.
ExitCode exec_coordinator_net(char** argv);

// The run's last line on stderr: where its report.html is, if this run wrote one.
ExitCode announce_report(const report::OutputOptions& o, ExitCode code);
// Record the start instant announce_report compares the page's time against.
void mark_start();

// Any engine flag given on the command line (the coordinator then sends its config to workers).
bool engine_flag_given(const CLI::App& app);

}  // namespace fleet::cli
