// `worker`: serves replay runs for a Fleet Replay coordinator on one host.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <string>

#include "fleet/service/worker_service.h"
#include "fleet/util/build_info.h"
#include "fleet/util/exit_codes.h"
#include "fleet/util/malloc_tuning.h"

namespace {
fleet::service::WorkerService* g_service = nullptr;
void on_signal(int) {
  if (g_service) g_service->stop();
}
}  // namespace

int main(int argc, char** argv) {
  using namespace fleet;
  util::tune_malloc_for_streaming();
  CLI::App app{"Fleet Replay worker: replays the shards a coordinator streams to it"};
  app.set_version_flag("--version", std::string("fleet-replay ") + util::build_id());
  service::WorkerOptions o;
  std::string log_level = "info";
  app.add_option("--listen", o.listen, "ZeroMQ endpoint to bind (tcp://HOST:PORT; port 0 = any)")
      ->capture_default_str();
  app.add_option("--name", o.name, "Node name in reports (default: host name)");
  app.add_option("--engine", o.engine.engine_name, "Default engine: native or noop")
      ->check(CLI::IsMember({"native", "noop"}))
      ->capture_default_str();
  storage::add_engine_flags(app, o.engine);
  app.add_option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat period")
      ->check(CLI::Range(10, 60000))
      ->capture_default_str();
  app.add_option("--max-runs", o.max_runs, "Exit after this many runs (0 = serve forever)")
      ->capture_default_str();
  app.add_flag("--announce", o.announce, "Print LISTENING <endpoint> on stdout once bound");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return exit_status(app.exit(e) == 0 ? ExitCode::kOk : ExitCode::kBadInput);
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("worker"));
  spdlog::set_level(spdlog::level::from_str(log_level));
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  try {
    service::WorkerService svc(o);
    g_service = &svc;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    svc.serve();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return exit_status(ExitCode::kBadInput);
  }
  return exit_status(ExitCode::kOk);
}
