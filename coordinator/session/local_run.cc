#include "fleet/session/local_run.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <spdlog/spdlog.h>

#include "fleet/replay/replay_session.h"
#include "fleet/report/run_report.h"
#include "fleet/stats/record_lines.h"
#include "fleet/storage/engine_factory.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"

namespace fleet::session {

namespace {

std::atomic<replay::ReplaySession*> g_session{nullptr};
std::atomic<bool> g_interrupted{false};

void on_sigint(int) {
  g_interrupted.store(true);
  if (auto* s = g_session.load()) s->request_stop();
}

class QuietReporter final : public trace::Reporter {
 public:
  void warning(uint64_t, std::string_view) override {}
};

uint64_t prescan_count(const std::string& path, uint32_t max_frame) {
  QuietReporter quiet;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = max_frame;
  ro.reporter = &quiet;
  trace::FrameReader reader(path, ro);
  trace::RecordView rec;
  uint64_t n = 0;
  while (reader.next(rec)) ++n;
  return n;
}

void print_banner() {
  const std::string bar(78, '=');
  std::fprintf(stderr,
               "\033[33m%s\nWARNING: REPLAY ENVIRONMENT MISMATCH MAY CAUSE RETRIEVE MISSES\n"
               "Replay uses the replay-side engine config; L2 loads still in flight when a "
               "recorded\nread happens are environment signals, not bugs.\n%s\033[0m\n",
               bar.c_str(), bar.c_str());
}

}  // namespace

void check_replayable(const std::string& path, const std::string& level, int64_t schema) {
  if (level != "storage") {
    throw std::runtime_error(path + ": level \"" + level +
                             "\" is not replayable here (storage only; events traces go to "
                             "`lmcache trace replay-events`)");
  }
  if (schema != 2) {
    throw std::runtime_error(path + ": trace_schema_version " + std::to_string(schema) +
                             " is not replay-safe: schema version 1 may have omitted "
                             "ObjectKey.cache_salt; replayable versions: 2");
  }
}

ExitCode run_local(ReplayOptions o) {
  trace::ReaderOptions ro;
  ro.max_frame_bytes = o.max_frame_bytes;
  ro.defer_args_check = true;  // the session decodes every record and validates as it goes
  std::unique_ptr<trace::FrameReader> reader;
  try {
    reader = std::make_unique<trace::FrameReader>(o.trace_path, ro);
    check_replayable(o.trace_path, reader->header().level, reader->header().trace_schema_version);
    o.engine.validate();
    report::prepare_output_dir(o.output.output_dir);
    if (!o.jsonl_out.empty()) {
      auto parent = std::filesystem::path(o.jsonl_out).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
    }
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return ExitCode::kBadInput;
  }

  uint64_t total = 0;
  if (o.verbose) {
    try {
      total = prescan_count(o.trace_path, o.max_frame_bytes);
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return ExitCode::kBadInput;
    }
  }
  if (!o.output.quiet) print_banner();

  std::unique_ptr<util::Clock> vclock;
  util::Clock* clock = &util::RealClock::instance();
  if (o.virtual_clock) {
    vclock = std::make_unique<util::VirtualClock>(1'000'000'000);
    clock = vclock.get();
  }
  std::unique_ptr<engine::Engine> engine;
  try {
    engine = storage::make_engine(o.engine, *clock);
  } catch (const std::exception& e) {
    spdlog::error("engine: {}", e.what());
    return ExitCode::kBadInput;
  }

  replay::SessionOptions so;
  so.speed = o.speed;
  so.drain_on_close = o.engine.drain_on_close;
  if (o.from_zero) so.t_origin = 0.0;
  replay::ReplaySession session(*engine, *clock, so);

  std::FILE* jsonl = nullptr;
  if (!o.jsonl_out.empty()) {
    jsonl = std::fopen(o.jsonl_out.c_str(), "wb");
    if (!jsonl) {
      spdlog::error("--jsonl-out {}: cannot open for writing", o.jsonl_out);
      return ExitCode::kBadInput;
    }
  }
  stats::RecordLineFormatter lines;
  replay::RecordCallback cb;
  if (o.verbose || jsonl) {
    cb = [&](const replay::RecordEvent& ev) {
      if (o.verbose) {
        auto l = lines.verbose_line(ev.n, total, ev.failed, ev.latency_ms, ev.qualname);
        std::fwrite(l.data(), 1, l.size(), stdout);
      }
      if (jsonl) {
        auto l = lines.jsonl_line(ev.qualname, ev.latency_ms, ev.failed);
        std::fwrite(l.data(), 1, l.size(), jsonl);
      }
    };
  }

  g_session.store(&session);
  auto old_handler = std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  replay::FileRecordSource source(*reader);
  replay::SessionResult result;
  {
    report::ProgressReporter progress(
        [&] {
          report::ProgressSample s;
          const auto& p = session.progress();
          s.records = p.records.load(std::memory_order_relaxed);
          s.failed = p.failed.load(std::memory_order_relaxed);
          s.trace_time_s = p.trace_time_s.load(std::memory_order_relaxed);
          s.lag_ns = p.last_lateness_ns.load(std::memory_order_relaxed);
          s.fraction = source.progress_fraction();
          return s;
        },
        o.output.quiet || o.verbose ? report::ProgressReporter::Mode::Never : o.progress);
    try {
      result = session.run(source, cb);
    } catch (const trace::TraceError& e) {
      g_session.store(nullptr);
      spdlog::error("{}", e.what());
      return ExitCode::kBadInput;
    }
  }
  g_session.store(nullptr);
  std::signal(SIGINT, old_handler);
  if (jsonl) std::fclose(jsonl);

  report::RunReport rep;
  rep.mode = "embedded";
  rep.speed = o.speed;
  rep.clock = o.virtual_clock ? "virtual" : "real";
  rep.trace = report::trace_info(*reader);
  report::add_node(rep, replay::to_node_result(result, "local"));
  rep.duration_s = result.duration_s;
  ExitCode status;
  try {
    // exit_status(kOk) or exit_status(kRecordsFailed); an int while fleet_run.cc reads it so.
    status = static_cast<ExitCode>(report::write_outputs(rep, o.output));
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return ExitCode::kBadInput;
  }
  if (g_interrupted.load()) {
    spdlog::warn("interrupted: partial report written after {} records", result.total);
    return ExitCode::kInterrupted;
  }
  return status;
}

}  // namespace fleet::session
