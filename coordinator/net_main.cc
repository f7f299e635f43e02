// `coordinator-net`: the coordinator's fleet half (--workers, --local, --sweep), with the
// network stack (ZeroMQ, CURVE). `coordinator` hands such a command line over to it; run
// directly, it accepts the same command line, embedded runs included.
#include <csignal>

#include "fleet/coordinator/cli/coordinator_cli.h"
#include "fleet/coordinator/cli/fleet_cli.h"
#include "fleet/util/malloc_tuning.h"

int main(int argc, char** argv) {
  using namespace fleet;
  std::signal(SIGPIPE, SIG_IGN);  // see main.cc
  cli::mark_start();
  int code = 0;
  auto parsed = cli::parse_command_line(argc, argv, code);
  if (!parsed) return code;
  util::tune_malloc_for_streaming();
  if (!parsed->wants_fleet()) return cli::run_embedded(*parsed);
  return cli::run_fleet_cli(*parsed, argc, argv);
}
