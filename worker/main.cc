// `worker`: serves replay runs for a Fleet Replay coordinator on one host; `worker keygen NAME`
// makes a CURVE certificate pair.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "fleet/flags/engine_flags.h"
#include "fleet/flags/parse_errors.h"
#include "fleet/flags/range_checks.h"
#include "fleet/security/certificate.h"
#include "fleet/util/build_info.h"
#include "fleet/util/clock.h"
#include "fleet/util/exit_codes.h"
#include "fleet/util/malloc_tuning.h"
#include "fleet/worker/l2_credentials.h"
#include "fleet/worker/worker_service.h"

namespace {

using namespace fleet;

// Static storage, not the service's own flag: SIGTERM can come again while the service is
// destroyed or main has returned (see WorkerOptions::stop_flag).
std::atomic<bool> g_stop_requested{false};
void on_signal(int) { g_stop_requested.store(true); }

// The flags that decide who may drive this worker and what a run may touch.
struct SecurityFlags {
  std::string curve_cert;
  std::string authorized_keys;
  bool ephemeral_key = false;
  std::string l2_secret_file;
  policy::HostPolicyOptions policy;
};

void add_security_flags(CLI::App& app, SecurityFlags& f, service::WorkerOptions& o) {
  const char* group = "Security (docs/security.md)";
  app.add_option("--curve-cert", f.curve_cert,
                 "This worker's secret CURVE certificate (worker keygen NAME; mode 0600)")
      ->group(group);
  app.add_option("--authorized-keys", f.authorized_keys,
                 "The coordinators accepted: a public certificate, or a directory of them")
      ->group(group);
  app.add_flag("--ephemeral-key", f.ephemeral_key,
               "A CURVE key made in memory for this process, announced with --announce "
               "(coordinator --local uses it)")
      ->group(group);
  app.add_flag("--insecure", o.security.insecure,
               "Listen on a non-loopback address without CURVE (protected mode off)")
      ->group(group);
  app.add_option("--fs-root", f.policy.fs_root,
                 "An fs L2 adapter from a run must write inside DIR (without: refused)")
      ->group(group);
  app.add_option("--allow-l2", f.policy.allow_l2,
                 "HOST:PORT[,...]: the resp (Redis) endpoints a run may name (repeatable)")
      ->group(group);
  app.add_option("--trace-root", f.policy.trace_root,
                 "Shared-trace mode may open regular files inside DIR only (without: refused)")
      ->group(group);
  app.add_option("--max-l1-gb", f.policy.max_l1_gb,
                 "Refuse a run whose in-memory tiers (L1 + mock L2) ask for more (0 = no limit)")
      ->check(flags::at_least(0))
      ->group(group);
  app.add_option("--l2-secret-file", f.l2_secret_file,
                 "Redis AUTH for resp adapters: password=... [username=...] (mode 0600)")
      ->group(group);
}

// Loads keys, policy and credentials into `o`; the error names the flag.
Status apply_security_flags(const SecurityFlags& f, service::WorkerOptions& o) {
  if (!f.curve_cert.empty() && f.ephemeral_key) {
    return Status::error("--curve-cert and --ephemeral-key: give one");
  }
  const bool curve = !f.curve_cert.empty() || f.ephemeral_key;
  if (curve != !f.authorized_keys.empty()) {
    return Status::error(curve ? "--curve-cert needs --authorized-keys (the coordinators to accept)"
                               : "--authorized-keys needs --curve-cert (this worker's own key)");
  }
  if (curve && !security::curve_available()) {
    return security::curve_unavailable(f.ephemeral_key ? "--ephemeral-key" : "--curve-cert");
  }
  if (!f.curve_cert.empty()) {
    auto cert = security::load_secret_certificate(f.curve_cert, "--curve-cert");
    if (!cert) return cert.status();
    o.security.curve = cert->key_pair();
  } else if (f.ephemeral_key) {
    o.security.curve = security::generate_key_pair();
  }
  if (curve) {
    auto keys = security::load_authorized_keys(f.authorized_keys);
    if (!keys) return keys.status();
    o.security.authorized = std::move(keys.value());
  }
  auto policy = policy::HostPolicy::make(f.policy);
  if (!policy) return policy.status();
  o.policy = std::move(policy.value());
  if (!f.l2_secret_file.empty()) {
    auto creds = policy::read_l2_secret_file(f.l2_secret_file);
    if (!creds) return creds.status();
    policy::apply_l2_credentials(creds.value());
  }
  return Status();
}

ExitCode keygen(const std::string& name, const std::string& dir, bool force) {
  if (!security::curve_available()) {
    std::fprintf(stderr, "%s\n", security::curve_unavailable("keygen").message().c_str());
    return ExitCode::kBadInput;
  }
  const security::CurveKeyPair keys = security::generate_key_pair();
  if (Status s = security::write_certificate_pair(dir, name, keys, force); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return ExitCode::kBadInput;
  }
  std::printf("wrote %s/%s.key (public) and %s/%s.key_secret (secret, 0600)\n", dir.c_str(),
              name.c_str(), dir.c_str(), name.c_str());
  std::printf("public key %s\nfingerprint %s\n", keys.public_z85.c_str(),
              security::fingerprint(keys.public_z85).c_str());
  return ExitCode::kOk;
}

ExitCode run(int argc, char** argv) {
  // A peer that closes its socket (Redis killed mid-write: hiredis uses write(2)) must fail
  // the call, counted, not kill the process: the binary, not a library, owns this signal.
  std::signal(SIGPIPE, SIG_IGN);
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
  flags::add_engine_flags(app, o.engine);
  app.add_option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat period")
      ->check(flags::between(10, 60000))
      ->capture_default_str();
  // The pacer sleeps to this long before a record's instant, then spins (util/clock.h): 0 on a
  // host shared by more workers than cores, where spinning takes the CPU from the others
  // (docs/scaling.md, "256 real worker processes").
  int spin_us = 300;
  app.add_option("--spin-us", spin_us, "Spin this long before each record instead of sleeping")
      ->check(flags::between(0, 50000))
      ->capture_default_str();
  app.add_option("--max-runs", o.max_runs, "Exit after this many runs (0 = serve forever)")
      ->capture_default_str();
  app.add_flag("--announce", o.announce, "Print LISTENING <endpoint> on stdout once bound");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  SecurityFlags security;
  add_security_flags(app, security, o);

  std::string key_name;
  std::string key_dir = ".";
  bool key_force = false;
  CLI::App* keygen_cmd = app.add_subcommand(
      "keygen", "Write NAME.key (public) and NAME.key_secret (secret, 0600): a CURVE pair");
  keygen_cmd->add_option("NAME", key_name, "Certificate name")->required();
  keygen_cmd->add_option("--dir", key_dir, "Where to write them")->capture_default_str();
  keygen_cmd->add_flag("--force", key_force, "Replace existing files");
  if (auto ended = flags::parse_or_exit(app, argc, argv)) return *ended;
  if (keygen_cmd->parsed()) return keygen(key_name, key_dir, key_force);
  spdlog::set_default_logger(spdlog::stderr_color_mt("worker"));
  spdlog::set_level(spdlog::level::from_str(log_level));
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  if (Status s = apply_security_flags(security, o); !s) {
    spdlog::error("{}", s.message());
    return s.code();
  }
  util::RealClock clock(int64_t{spin_us} * 1000);
  o.clock = &clock;
  o.stop_flag = &g_stop_requested;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    service::WorkerService svc(o);
    if (Status s = svc.serve(); !s) {
      spdlog::error("{}", s.message());
      return s.code();
    }
  } catch (const std::exception& e) {  // a socket that fails mid-run
    spdlog::error("{}", e.what());
    return ExitCode::kBadInput;
  }
  return ExitCode::kOk;
}

}  // namespace

int main(int argc, char** argv) { return exit_status(run(argc, argv)); }
