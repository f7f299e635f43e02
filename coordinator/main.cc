// `coordinator`: replays an LMCache storage trace. With no --workers it replays in this process
// (the embedded default, a drop-in for `lmcache trace replay FILE`); `report` and `compare` also
// run here. This binary loads no network stack: a fleet run or a sweep (--workers, --local,
// --sweep) continues in coordinator-net, which this process becomes (execv, same PID).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <string>

#include "fleet/coordinator/cli/compare_command.h"
#include "fleet/coordinator/cli/coordinator_cli.h"
#include "fleet/coordinator/cli/report_command.h"
#include "fleet/util/malloc_tuning.h"
#include "fleet/util/prefault.h"

namespace {

constexpr std::size_t kStartHeapBytes = std::size_t{1} << 20;

fleet::ExitCode run(int argc, char** argv) {
  using namespace fleet;
  // A peer that closes its socket (Redis killed mid-write: hiredis uses write(2)) must fail
  // the call, counted, not kill the process: the binary, not a library, owns this signal.
  std::signal(SIGPIPE, SIG_IGN);
  // Page faults cost ~10 us each on the VMs measured: the first MiB of heap, which a small run
  // fills, is populated in one call instead (util/prefault.h).
  util::tune_malloc_for_streaming();
  util::share_one_malloc_arena();  // this binary's threads seldom allocate at once (see there)
  util::prefault_heap(kStartHeapBytes);
  if (argc >= 2 && std::string(argv[1]) == "report") {
    spdlog::set_default_logger(spdlog::stderr_color_mt("coordinator"));
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    return report::html::report_command(argc - 1, argv + 1);
  }
  if (argc >= 2 && std::string(argv[1]) == "compare") {
    return compare::compare_command(argc - 1, argv + 1);  // logs to stderr, as report does
  }
  cli::mark_start();
  cli::ParseOutcome parsed = cli::parse_command_line(argc, argv);
  if (!parsed.cli) return parsed.exit;
  if (parsed.cli->wants_fleet()) return cli::exec_coordinator_net(argv);
  return cli::run_embedded(*parsed.cli);
}

}  // namespace

int main(int argc, char** argv) { return fleet::exit_status(run(argc, argv)); }
