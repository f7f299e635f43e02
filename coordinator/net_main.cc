// `coordinator-net`: the coordinator's fleet half (--workers, --local, --sweep), with the
// network stack (ZeroMQ, CURVE). `coordinator` hands such a command line over to it; run
// directly, it accepts the same command line, embedded runs included.
#include <csignal>

#include "fleet/coordinator/cli/coordinator_cli.h"
#include "fleet/coordinator/cli/fleet_cli.h"
#include "fleet/util/malloc_tuning.h"

namespace {

fleet::ExitCode run(int argc, char** argv) {
  using namespace fleet;
  std::signal(SIGPIPE, SIG_IGN);  // see main.cc
  cli::mark_start();
  cli::ParseOutcome parsed = cli::parse_command_line(argc, argv);
  if (!parsed.cli) return parsed.exit;
  util::tune_malloc_for_streaming();
  if (!parsed.cli->wants_fleet()) return cli::run_embedded(*parsed.cli);
  return cli::run_fleet_cli(*parsed.cli, argc, argv);
}

}  // namespace

int main(int argc, char** argv) { return fleet::exit_status(run(argc, argv)); }
