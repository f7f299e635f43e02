// fleet_sim: one process hosting many protocol-speaking workers, for measuring a coordinator
// against hundreds or a thousand nodes on one machine (docs/scaling.md, "1,000 simulated
// workers"; bench/scale_sim.sh drives it). Every simulated worker is the worker library's own
// WorkerNode with a noop engine; all of them are served by one thread over one poll.
//
//   fleet_sim --workers 1000 --out DIR [--plaintext] [--freeze INDEX@SECONDS]
//
// writes DIR/workers.txt (the coordinator's --workers file) and, with CURVE (the default),
// DIR/coordinator.key{,_secret}: a key pair made for this run and authorized on every node
// (the coordinator's --curve-cert). Prints "READY N DIR/workers.txt" once every node is bound,
// "FROZEN NAME UNIX_MS" when the --freeze node stops answering, and its own costs at the end.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "fleet/security/certificate.h"
#include "fleet/security/curve_key.h"
#include "sim_fleet.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

// "INDEX@SECONDS" into the options; false when it is not that.
bool parse_freeze(const std::string& text, fleet::sim::SimOptions& o) {
  const size_t at = text.find('@');
  if (at == std::string::npos) return false;
  try {
    o.freeze_index = std::stoi(text.substr(0, at));
    o.freeze_after_s = std::stod(text.substr(at + 1));
  } catch (const std::exception&) {
    return false;
  }
  return o.freeze_index >= 0 && o.freeze_index < o.workers && o.freeze_after_s >= 0;
}

// The coordinator's key pair for this run, written for its --curve-cert; the public key back.
fleet::Result<std::string> coordinator_key(const std::string& dir) {
  const fleet::security::CurveKeyPair keys = fleet::security::generate_key_pair();
  if (fleet::Status s = fleet::security::write_certificate_pair(dir, "coordinator", keys, true);
      !s) {
    return s;
  }
  return keys.public_z85;
}

void print_costs(const fleet::sim::SimFleet& fleet, int workers) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  std::printf("SIM END finished %d of %d, passes %llu, cpu %.2f s, peak rss %.1f MiB\n",
              fleet.tally().finished, workers,
              static_cast<unsigned long long>(fleet.tally().passes), cpu,
              static_cast<double>(ru.ru_maxrss) / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fleet_sim: many simulated workers (noop engines) in one process"};
  fleet::sim::SimOptions o;
  std::string out_dir, freeze, log_level = "warn";
  bool plaintext = false;
  app.add_option("--workers", o.workers, "Simulated workers")->check(CLI::Range(1, 20000));
  app.add_option("--out", out_dir, "Where workers.txt and the coordinator's key go")->required();
  app.add_option("--host", o.host, "Address every node binds")->capture_default_str();
  app.add_flag("--plaintext", plaintext, "No CURVE (the coordinator then needs none)");
  app.add_option("--io-threads", o.io_threads, "ZeroMQ I/O threads")->check(CLI::Range(1, 16));
  app.add_option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat period")->capture_default_str();
  app.add_option("--runs", o.runs, "Runs each node serves before it exits")->capture_default_str();
  app.add_option("--min-pass-us", o.min_pass_us, "Shortest poll pass")->capture_default_str();
  app.add_option("--spin-us", o.spin_us, "The replay's spin before each record")
      ->capture_default_str();
  app.add_option("--freeze", freeze, "INDEX@SECONDS: that node stops answering mid-run");
  app.add_option("--log-level", log_level, "The nodes' log level")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  o.curve = !plaintext;
  if (!freeze.empty() && !parse_freeze(freeze, o)) {
    std::fprintf(stderr, "--freeze %s: expected INDEX@SECONDS with INDEX < --workers\n",
                 freeze.c_str());
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  std::filesystem::create_directories(out_dir);
  std::string coordinator_public;
  if (o.curve) {
    auto key = coordinator_key(out_dir);
    if (!key) {
      std::fprintf(stderr, "%s\n", key.status().message().c_str());
      return 1;
    }
    coordinator_public = key.value();
  }
  auto fleet = fleet::sim::SimFleet::start(o, coordinator_public);
  if (!fleet) {
    std::fprintf(stderr, "%s\n", fleet.status().message().c_str());
    return 1;
  }
  const std::string workers_path = out_dir + "/workers.txt";
  std::ofstream(workers_path) << fleet.value()->workers_file();
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::printf("READY %d %s\n", o.workers, workers_path.c_str());
  std::fflush(stdout);
  fleet.value()->serve(g_stop);
  print_costs(*fleet.value(), o.workers);
  return 0;
}
