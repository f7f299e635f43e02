#include "fleet/coordinator/cli/coordinator_cli.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "flag_groups.h"
#include "fleet/coordinator/session/causal_preview.h"
#include "fleet/coordinator/session/local_run.h"
#include "fleet/engine/engine_config.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/flags/engine_flags.h"
#include "fleet/flags/enum_flag.h"
#include "fleet/flags/parse_errors.h"
#include "fleet/flags/range_checks.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/util/build_info.h"
#include "fleet/util/exit_codes.h"
#include "fleet/wire/protocol.h"

namespace fleet::cli {

namespace {

// The spellings of --progress (the progress line's modes).
constexpr std::array<std::pair<std::string_view, report::ProgressReporter::Mode>, 3> kProgressNames{
    {{"auto", report::ProgressReporter::Mode::Auto},
     {"always", report::ProgressReporter::Mode::Always},
     {"never", report::ProgressReporter::Mode::Never}}};

// What only an L2 adapter-level trace takes (a storage trace refuses them).
void declare_l2_flags(CLI::App& app, session::L2Flags& l2) {
  app.add_option("--trace-percent", l2.trace_percent,
                 "L2 trace: replay the first ceil(N*p/100) of its N submissions")
      ->check(flags::above_at_most(0, 100))
      ->capture_default_str();
  app.add_flag("--prepare-l2", l2.prepare,
               "L2 trace: first store the objects the source found in L2 but never stored");
  app.add_flag("--prepare-only", l2.prepare_only, "L2 trace: prepare the target, then stop");
  app.add_option("--drain-timeout", l2.drain_timeout_s,
                 "L2 trace: fail when nothing progresses for this many seconds")
      ->check(flags::above_at_most(0, wire::kMaxDrainTimeoutS))
      ->capture_default_str();
  app.add_option("--l2-stats-out", l2.stats_out,
                 "L2 trace: where l2_replay_stats.json goes (default: in --output-dir)");
}

// The replay itself: the trace, its pace and clock, the engine.
void declare_replay_flags(CLI::App& app, session::ReplayOptions& o, CliExtras& x) {
  app.set_version_flag("--version", std::string("fleet-replay ") + util::build_id());

  app.add_option("FILE", o.trace_path, "Trace file (.lct) to replay")->required();
  app.add_option("MORE", o.more_trace_paths,
                 "More L2 trace files, one per recorded server (--workers/--local; "
                 "docs/l2-traces.md)");
  app.add_option("--speed", o.speed,
                 "Pace: 1 = recorded, 2 = twice as fast, 0 = as fast as possible")
      ->check(flags::at_least(0))
      ->capture_default_str();
  app.add_option("--spin-us", o.spin_us,
                 "The pacer spins this long before each record instead of sleeping (embedded "
                 "and --local workers; docs/causal-pacing.md \"How long the pacer spins\")")
      ->check(flags::between(0, 50000))
      ->capture_default_str();
  flags::add_enum_flag(app, "--pacing", x.pacing, kPacingNames,
                       "How --speed spaces the calls: causal keeps the gaps of dependency edges "
                       "(a read after its prefetch, a prefetch after the write it reads) and runs "
                       "the engine's own time S times faster; uniform divides every gap; auto = "
                       "causal above 1x");
  flags::add_enum_flag(app, "--schedule", o.schedule, kScheduleNames,
                       "Causal pacing: ordered keeps the recorded order (a held record holds the "
                       "ones behind it); partial lets records of other keys overtake it");
  app.add_option("--causal-horizon", o.causal_horizon_s,
                 "Causal pacing: a dependency edge keeps its recorded gap up to this many "
                 "seconds; longer gaps are idle time and are scaled")
      ->check(flags::at_least(0))
      ->capture_default_str();
  app.add_flag("--classify-misses", o.classify_misses,
               "Label every miss with its cause and write misses.csv (on by default at any "
               "speed but 1x, and with --baseline): a later run's --baseline pairs with it");
  CLI::Option* baseline =
      app.add_option("--baseline", o.miss_baseline,
                     "A run directory of the same trace and config (a 1x or --clock virtual run "
                     "with misses.csv): pair this run's misses with its, key by key")
          ->check(CLI::ExistingDirectory);
  app.add_option("--noise-baseline", o.miss_noise_baseline,
                 "A second reference run like --baseline's (another 1x run, with misses.csv): "
                 "the verdict's tolerance becomes twice how far the two runs' misses are apart")
      ->check(CLI::ExistingDirectory)
      ->needs(baseline);
  flags::add_enum_flag(app, "--clock", x.clock, kClockNames,
                       "real, or virtual: a deterministic discrete-event run");
  app.add_flag("--from-zero", o.from_zero,
               "Also wait out the idle time before the first record, as lmcache trace replay does");
  app.add_flag("--config-from-trace", o.config_from_trace,
               "Rebuild the engine config from the trace header's sm_config_json");
  app.add_option("--engine", o.engine.engine_name, "native (StorageManager) or noop (overhead)")
      ->check(CLI::IsMember({"native", "noop"}))
      ->capture_default_str();
  flags::add_engine_flags(flag_group(app, "Engine"), o.engine);
  declare_l2_flags(flag_group(app, "L2 traces (docs/l2-traces.md)"), o.l2);
}

// What a run writes, and how it talks: files, stdout, progress, logs.
void declare_output_flags(CLI::App& app, session::ReplayOptions& o, CliExtras& x) {
  CLI::App& outputs = flag_group(app, "Outputs");
  outputs
      .add_option("--output-dir", o.output.output_dir, "Where summary files go (created up front)")
      ->capture_default_str();
  outputs.add_flag(
      "--no-csv", [&](int64_t) { o.output.write_csv = false; }, "Skip trace_replay_ops.csv");
  outputs.add_flag("--json", o.output.write_summary_json, "Also write trace_replay_summary.json");
  outputs.add_flag(
      "--no-report", [&](int64_t) { o.output.write_report = false; },
      "Skip report.html (rebuild it later with `coordinator report DIR`)");
  outputs.add_flag("--verbose", o.verbose, "Mirror each record to stdout");
  outputs.add_flag(
      "--decode-ahead", o.decode_ahead,
      "Embedded run: read and decode records on a second thread, ahead of the dispatch");
  outputs.add_option("--jsonl-out", o.jsonl_out, "Write one JSON object per record to PATH");
  outputs.add_flag("-q,--quiet", o.output.quiet, "No stdout summary (files are still written)");
  outputs.add_option("--format", o.output.format, "Summary format on stdout")
      ->check(CLI::IsMember({"terminal", "json"}))
      ->capture_default_str();
  outputs.add_option("--output", o.output.output_path, "Also save the summary to PATH in --format");
  flags::add_enum_flag(app, "--progress", o.progress, kProgressNames,
                       "Live progress line: auto (on a terminal), always, never");
  app.add_option("--max-frame-mb", x.max_frame_mb, "Largest trace frame accepted (MiB)")
      ->check(flags::between(1, 4095))
      ->capture_default_str();
  app.add_option("--log-level", x.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
}

// Where the replay runs: workers, sharding, the start, links and the sweep.
void declare_fleet_flags(CLI::App& app, session::FleetOptions& fleet, CliExtras& x) {
  CLI::App& fleet_flags = flag_group(app, "Fleet");
  auto* workers = fleet_flags.add_option(
      "--workers", fleet.workers_spec,
      "Workers: hosts file (host:port per line), host:port,host:port, or dns:NAME:PORT");
  auto* local =
      fleet_flags.add_option("--local", fleet.local, "Start N worker processes on loopback")
          ->check(flags::between(1, 256));
  workers->excludes(local);
  fleet_flags.add_option("--expect-workers", fleet.expect_workers,
                         "Fail unless exactly N workers are found");
  fleet_flags.add_option("--connect-timeout", fleet.connect_timeout_ms, "Handshake timeout (ms)")
      ->check(flags::between(100, 600000))
      ->capture_default_str();
  flags::add_enum_flag(fleet_flags, "--shard", x.shard, kShardChoiceNames,
                       "none (every worker replays all), time or key; source: L2 traces, one "
                       "file per recorded server");
  fleet_flags
      .add_option("--window", fleet.router.window_s, "Time-shard window (seconds of trace time)")
      ->check(flags::above(0))
      ->capture_default_str();
  flags::add_enum_flag(fleet_flags, "--timeline", fleet.router.timeline, plan::kTimelineNames,
                       "preserve (recorded times) or stack (every shard starts at T0)");
  fleet_flags.add_flag("--plan-only", fleet.plan_only, "Print the shard plan and exit");
  fleet_flags.add_option(
      "--route-cache", fleet.route_cache_dir,
      "Directory of saved routing plans (private to this user): a run that routes "
      "the trace saves its plan there, and the next run of the same trace with the "
      "same workers and sharding replays it without reading the trace "
      "(docs/sharding.md)");
  sweep::add_sweep_flags(flag_group(app, "Sweep (docs/sweep.md)"), x.sweep);
  fleet_flags
      .add_option("--start-at-mono-ns", fleet.start_at_mono_ns,
                  "T0 at this CLOCK_MONOTONIC instant (set by --sweep for its variants)")
      ->group("");
  fleet_flags
      .add_option("--start-delay", fleet.start_delay_s,
                  "Least seconds from the last handshake to T0 (T0 otherwise follows as soon as "
                  "every worker's engine is built and its first batches are queued)")
      ->check(flags::between(0, 3600))
      ->capture_default_str();
  flags::add_enum_flag(fleet_flags, "--on-worker-loss", fleet.on_worker_loss,
                       session::kOnWorkerLossNames,
                       "abort the run, or continue without the lost worker");
  fleet_flags.add_option("--credit-window", fleet.credit_window, "Batches in flight per worker")
      ->check(flags::between(1, wire::kMaxCreditWindow))
      ->capture_default_str();
  flags::add_enum_flag(
      fleet_flags, "--compression", fleet.compression, session::kCompressionNames,
      "Batch encoding: auto (none to loopback workers, zstd to others), zstd or none");
  fleet_flags
      .add_option("--compression-level", fleet.compression_level,
                  "zstd level for batches (negative: zstd's fast modes)")
      ->check(flags::between(-7, 19))
      ->capture_default_str();
  flags::add_enum_flag(
      fleet_flags, "--trace-access", fleet.trace_access, session::kTraceAccessNames,
      "How records reach workers: shared (workers read the trace file themselves and get "
      "references), stream (records travel in batches), or auto (shared for workers on this "
      "host that can read the file, stream for the rest)");
  flags::add_enum_flag(
      fleet_flags, "--routing", fleet.routing, session::kRoutingNames,
      "Who routes the records: workers (each reads the trace and replays its own share; every "
      "worker must read the trace), coordinator (it routes and sends each worker its share), or "
      "auto (workers with --trace-access shared, else the coordinator; docs/sharding.md)");
  fleet_flags.add_option(
      "--worker-trace-path", fleet.worker_trace_path,
      "Where workers find the trace with --trace-access shared (default: FILE as an "
      "absolute path, e.g. on a file system every host mounts at the same place)");
  fleet_flags.add_option("--heartbeat-ms", fleet.heartbeat_ms, "Heartbeat period")
      ->check(flags::between(10, 60000))
      ->capture_default_str();
  fleet_flags.add_option("--local-worker-arg", fleet.local_worker_args,
                         "Extra flag passed to every --local worker (repeatable)");
}

void declare_security_flags(CLI::App& app, session::FleetOptions& fleet) {
  CLI::App& security = flag_group(app, "Security (docs/security.md)");
  security.add_option(
      "--curve-cert", fleet.curve_cert_path,
      "This coordinator's secret CURVE certificate (worker keygen NAME; mode 0600)");
  security.add_option("--known-workers", fleet.known_workers_path,
                      "The workers' public keys: HOST:PORT key=<Z85> lines, or * key=<Z85> for all "
                      "(a hosts-file line's own key= wins)");
  security.add_flag("--insecure", fleet.insecure,
                    "--local workers without CURVE (to measure its cost); no warning for "
                    "plaintext workers");
}

// Declares every flag, bound to `fleet` and `x`, in the order --help shows them. Called twice
// when --config-from-trace is given: once to learn the trace, then over the header's config so
// that engine flags on the command line override it.
void declare(CLI::App& app, session::FleetOptions& fleet, CliExtras& x) {
  declare_replay_flags(app, fleet.replay, x);
  declare_output_flags(app, fleet.replay, x);
  declare_fleet_flags(app, fleet, x);
  declare_security_flags(app, fleet);
}

std::filesystem::file_time_type g_started;

void set_up_logging(const std::string& level) {
  // stdout carries LMCache's byte-exact outputs; logs go to stderr. A second parse in one
  // process (the tests parse many command lines) reuses the logger: spdlog refuses a second
  // logger of the same name.
  auto logger = spdlog::get("coordinator");
  spdlog::set_default_logger(logger ? logger : spdlog::stderr_color_mt("coordinator"));
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
}

// --config-from-trace: the engine config of the trace's header, or an error naming the trace.
Result<storage::EngineConfig> config_from_trace(const std::string& path) {
  try {
    trace::FrameReader reader(path);
    const std::string& text = reader.header().sm_config_json;
    if (text.empty()) {
      return Status::error(path + ": --config-from-trace: the header has no sm_config_json");
    }
    Result<nlohmann::json> j = storage::parse_engine_config_json(text, path + ": sm_config_json");
    if (!j) return j.status();
    return storage::engine_config_from_lmcache_json(j.value());
  } catch (const std::exception& e) {  // a trace whose header cannot be read
    return Status::error(e.what());
  }
}

// A flag given to the coordinator that --local workers get too, unless --local-worker-arg
// gives theirs: --heartbeat-ms (each side judges the other lost after 3 silent periods of its
// own: a longer period for a crowded host must protect both sides) and --spin-us.
void forward_to_local_workers(ParsedCli& cli, const std::string& flag, int64_t value) {
  session::FleetOptions& fleet = cli.fleet;
  if (fleet.local <= 0 || cli.app->get_option(flag)->count() == 0) return;
  for (const std::string& a : fleet.local_worker_args)
    if (a == flag || a.rfind(flag + "=", 0) == 0) return;
  fleet.local_worker_args.push_back(flag + "=" + std::to_string(value));
}

// The replay's own flags that need converting after the parse.
Status apply_replay_flags(ParsedCli& cli) {
  forward_to_local_workers(cli, "--heartbeat-ms", cli.fleet.heartbeat_ms);
  forward_to_local_workers(cli, "--spin-us", cli.fleet.replay.spin_us);
  const CliExtras& x = cli.extras;
  session::ReplayOptions& o = cli.fleet.replay;
  o.virtual_clock = x.clock == ClockKind::Virtual;
  o.max_frame_bytes = static_cast<uint32_t>(x.max_frame_mb * 1024 * 1024);
  cli.fleet.shard_source = x.shard == ShardChoice::Source;
  cli.fleet.router.mode = x.shard == ShardChoice::Time  ? plan::ShardMode::Time
                          : x.shard == ShardChoice::Key ? plan::ShardMode::Key
                                                        : plan::ShardMode::None;
  switch (x.pacing) {
    case PacingChoice::Auto:
      o.pacing = causal::default_pacing(o.speed);
      break;
    case PacingChoice::Uniform:
      o.pacing = causal::Pacing::Uniform;
      break;
    case PacingChoice::Causal:
      if (o.speed == 0)
        return Status::error(
            "--pacing causal: needs --speed > 0 (at speed 0 every call goes "
            "as fast as it can: there is no pace to keep edges against)");
      o.pacing = causal::Pacing::Causal;
      break;
  }
  // A paced run at another speed is where misses move: label them unasked (a hash entry per
  // key). Speed 0 measures throughput: there the labels cost more than the replay (200k records,
  // native engine, whole process 0.80 s with them, 0.28 s without), so only when asked.
  const bool paced_off_1x = o.speed > 0.0 && o.speed != 1.0;
  o.classify_misses =
      o.classify_misses || !o.miss_baseline.empty() || (paced_off_1x && !o.virtual_clock);
  if (!o.miss_baseline.empty()) {
    auto baseline = session::load_miss_baseline(o.miss_baseline, o.miss_noise_baseline);
    if (!baseline) return baseline.status();
    o.miss_baseline_events = std::move(baseline).value();
  }
  return {};
}

}  // namespace

bool engine_flag_given(const CLI::App& app) {
  bool given = false;
  for_each_flag(app, [&given](const CLI::Option& opt) {
    const std::string& n = opt.get_name();
    if (n == "--l2-key-namespace") return;  // travels in START on its own, not in the config
    if (n == "--l2-stats-out") return;      // an output path (L2 traces), not the engine's
    if (opt.count() > 0 && (n.rfind("--l1", 0) == 0 || n.rfind("--l2", 0) == 0 ||
                            n.rfind("--eviction", 0) == 0 || n == "--config-file")) {
      given = true;
    }
  });
  return given;
}

ParseOutcome parse_command_line(int argc, char** argv) {
  auto cli = std::make_unique<ParsedCli>();
  cli->app = std::make_unique<CLI::App>(
      "Fleet Replay coordinator: replays an LMCache storage trace (.lct)");
  declare(*cli->app, cli->fleet, cli->extras);
  if (auto ended = flags::parse_or_exit(*cli->app, argc, argv)) return {nullptr, *ended};
  set_up_logging(cli->extras.log_level);
  if (!cli->fleet.replay.config_from_trace) {
    if (Status s = apply_replay_flags(*cli); !s) {
      spdlog::error("{}", s.message());
      return {nullptr, s.code()};
    }
    return {std::move(cli)};
  }
  auto from_trace = config_from_trace(cli->fleet.replay.trace_path);
  if (!from_trace) {
    spdlog::error("{}", from_trace.status().message());
    return {nullptr, from_trace.status().code()};
  }
  auto again = std::make_unique<ParsedCli>();
  again->fleet.replay.engine = std::move(from_trace).value();
  again->app = std::make_unique<CLI::App>("Fleet Replay coordinator");
  declare(*again->app, again->fleet, again->extras);
  again->app->parse(argc, argv);                  // cannot fail: it parsed once already
  again->fleet.replay.config_from_trace = false;  // applied: header config + command-line overrides
  again->fleet.send_engine_config = true;
  if (Status s = apply_replay_flags(*again); !s) {
    spdlog::error("{}", s.message());
    return {nullptr, s.code()};
  }
  return {std::move(again)};
}

ExitCode run_embedded(ParsedCli& cli) {
  const session::FleetOptions& f = cli.fleet;
  if (f.router.mode != plan::ShardMode::None || f.shard_source || !f.route_cache_dir.empty()) {
    spdlog::error("--shard/--route-cache need --workers or --local");
    return ExitCode::kBadInput;
  }
  if (!f.replay.more_trace_paths.empty()) {
    spdlog::error(
        "more than one trace file: L2 adapter-level traces across the fleet only (--workers or "
        "--local; docs/l2-traces.md)");
    return ExitCode::kBadInput;
  }
  if (f.plan_only) {  // embedded: the causal plan is the whole plan
    if (Status s = session::print_causal_preview(f.replay); !s) {
      spdlog::error("{}", s.message());
      return s.code();
    }
    return ExitCode::kOk;
  }
  const report::OutputOptions out = cli.fleet.replay.output;
  return announce_report(out, session::run_local(std::move(cli.fleet.replay)));
}

ExitCode exec_coordinator_net(char** argv) {
  namespace fs = std::filesystem;
  std::string path;
  if (const char* env = std::getenv("FLEET_COORDINATOR_NET"); env && *env) {
    path = env;
  } else {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    path = (ec ? fs::path(argv[0]).parent_path() : self.parent_path()) / "coordinator-net";
  }
  std::fflush(nullptr);
  ::execv(path.c_str(), argv);
  spdlog::error(
      "--workers/--local/--sweep run in coordinator-net, which should sit next to this binary: "
      "cannot start {}: {} (or set FLEET_COORDINATOR_NET)",
      path, std::strerror(errno));
  return ExitCode::kBadInput;
}

// File times come from the kernel's coarse clock, up to a tick behind the precise one: the start
// is read from the same clock, or a page written within a tick of it would look older.
void mark_start() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  const auto since_epoch = std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  g_started = std::chrono::file_clock::from_sys(std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(since_epoch)));
}

ExitCode announce_report(const report::OutputOptions& o, ExitCode code) {
  namespace fs = std::filesystem;
  const fs::path page = fs::path(o.output_dir) / "report.html";
  std::error_code ec;
  if (o.write_report && fs::exists(page, ec) && fs::last_write_time(page, ec) >= g_started) {
    std::fprintf(stderr, "report: %s\n", page.string().c_str());
  }
  return code;
}

}  // namespace fleet::cli
