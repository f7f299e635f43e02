#include "fleet/coordinator/session/local_run.h"

#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "fleet/coordinator/session/l2_local_run.h"
#include "fleet/engine/engine_factory.h"
#include "fleet/insight/report/timeseries_sink.h"
#include "fleet/replay/replay_session.h"
#include "fleet/stats/record_lines.h"
#include "fleet/summary/accounting.h"
#include "fleet/summary/run_report.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_record.h"
#include "fleet/util/clock.h"
#include "fleet/util/clock_kind.h"
#include "fleet/util/malloc_tuning.h"
#include "fleet/util/output_file.h"
#include "fleet/util/status.h"

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

Status check_replayable(const std::string& path, const std::string& level, int64_t schema) {
  if (level == trace::kLevelL2) {
    return Status::error(path +
                         ": an L2 adapter-level trace replays embedded (coordinator FILE "
                         "--l2-adapter JSON) or across the fleet (--workers/--local), not in a "
                         "--sweep (docs/l2-traces.md)");
  }
  if (level != "storage") {
    return Status::error(path + ": level \"" + level +
                         "\" is not replayable here (storage only; events traces go to "
                         "`lmcache trace replay-events`)");
  }
  if (schema != 2) {
    return Status::error(path + ": trace_schema_version " + std::to_string(schema) +
                         " is not replay-safe: schema version 1 may have omitted "
                         "ObjectKey.cache_salt; replayable versions: 2");
  }
  return Status();
}

namespace {

// --verbose lines on stdout and --jsonl-out lines in a file, as LMCache's replay writes them.
class RecordLines {
 public:
  RecordLines(bool verbose, uint64_t total) : verbose_(verbose), total_(total) {}
  ~RecordLines() {
    if (jsonl_) std::fclose(jsonl_);
  }
  RecordLines(const RecordLines&) = delete;
  RecordLines& operator=(const RecordLines&) = delete;
  Status open_jsonl(const std::string& path) {
    if (path.empty()) return Status();
    jsonl_ = util::open_for_rewrite(path);
    if (!jsonl_) return Status::error("--jsonl-out " + path + ": cannot open for writing");
    return Status();
  }
  replay::RecordCallback callback() {
    if (!verbose_ && !jsonl_) return {};
    return [this](const replay::RecordEvent& ev) {
      if (verbose_) {
        auto l = lines_.verbose_line(ev.n, total_, ev.failed, ev.latency_ms, ev.qualname);
        std::fwrite(l.data(), 1, l.size(), stdout);
      }
      if (jsonl_) {
        auto l = lines_.jsonl_line(ev.qualname, ev.latency_ms, ev.failed);
        std::fwrite(l.data(), 1, l.size(), jsonl_);
      }
    };
  }

 private:
  bool verbose_;
  uint64_t total_;
  std::FILE* jsonl_ = nullptr;
  stats::RecordLineFormatter lines_;
};

// The reader over the trace, once the trace, the config and the output paths are usable.
Result<std::unique_ptr<trace::FrameReader>> open_inputs(const ReplayOptions& o) {
  trace::ReaderOptions ro;
  ro.max_frame_bytes = o.max_frame_bytes;
  ro.defer_args_check = true;  // the session decodes every record and validates as it goes
  try {
    auto reader = std::make_unique<trace::FrameReader>(o.trace_path, ro);
    // No reader: an L2 trace, which run_local hands to the L2 replay.
    if (reader->header().level == trace::kLevelL2) return std::unique_ptr<trace::FrameReader>();
    if (o.l2.given()) {
      return Status::error("--prepare-l2/--prepare-only/--trace-percent require an L2 trace (" +
                           o.trace_path + " is level \"" + reader->header().level + "\")");
    }
    const trace::Header& h = reader->header();
    if (Status s = check_replayable(o.trace_path, h.level, h.trace_schema_version); !s) return s;
    if (Status s = o.engine.validate(); !s) return s;
    if (Status s = report::prepare_output_dir(o.output.output_dir); !s) return s;
    if (!o.jsonl_out.empty()) {
      auto parent = std::filesystem::path(o.jsonl_out).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
    }
    return reader;
  } catch (const std::exception& e) {  // the trace, its gates, the config or the output paths
    return Status::error(e.what());
  }
}

// Runs the session over the whole trace with Ctrl-C/SIGTERM stopping it cleanly.
Result<replay::SessionResult> replay_trace(const ReplayOptions& o, trace::FrameReader& reader,
                                           replay::ReplaySession& session,
                                           const replay::RecordCallback& cb,
                                           const report::TimeseriesSink& timeseries) {
  g_session.store(&session);
  auto old_int = std::signal(SIGINT, on_sigint);
  auto old_term = std::signal(SIGTERM, on_sigint);
  replay::FileRecordSource source(reader);
  Result<replay::SessionResult> result = Status::error("not run");
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
          s.hit_rate = timeseries.current_hit_rate();
          return s;
        },
        o.output.quiet || o.verbose ? report::ProgressReporter::Mode::Never : o.progress);
    try {
      result = session.run(source, cb);
    } catch (const trace::TraceError& e) {  // the trace failed mid-read
      result = Status::error(e.what());
    }
  }
  g_session.store(nullptr);
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  return result;
}

ExitCode write_report(const ReplayOptions& o, trace::FrameReader& reader,
                      replay::SessionResult result) {
  report::RunReport rep;
  rep.mode = "embedded";
  rep.speed = o.speed;
  rep.clock = util::clock_name(util::clock_kind(o.virtual_clock));
  rep.trace = report::trace_info(reader);
  rep.duration_s = result.duration_s;
  const uint64_t records = result.total;
  // Sorted and summed once, on both cores, before the run's merged view shares them.
  result.stats.prepare_for_merge(
      result.total >= 32768 ? std::max(1u, std::thread::hardware_concurrency()) : 1);
  report::add_node(rep, replay::to_node_result(std::move(result), "local"));
  // Every record the session read was its own to replay; an interrupted run counts the rest of
  // the trace by a frame scan, after the trace section above was taken (accounting.h).
  report::AccountingInput in;
  in.records_routed = reader.counters().records;
  const report::RemainingRecords rest = report::count_remaining_records(reader);
  in.trace_records = in.records_routed + rest.records;
  in.remainder_error = rest.error;
  report::NodeDelivery local;
  local.routed = local.sent = in.records_routed;
  if (g_interrupted.load()) local.reason = "stopped: interrupted";
  in.nodes.push_back(local);
  rep.accounting = report::accounting_json(rep, in);
  if (o.miss_baseline_events) pair_with_baseline(rep, *o.miss_baseline_events);
  const Result<ExitCode> written = report::write_outputs(rep, o.output);
  if (!written) {  // the output directory became unwritable
    spdlog::error("{}", written.status().message());
    return ExitCode::kBadInput;
  }
  const ExitCode status = written.value();
  if (g_interrupted.load()) {
    spdlog::warn("interrupted: partial report written after {} records", records);
    return ExitCode::kInterrupted;
  }
  return status;
}

}  // namespace

ExitCode run_local(ReplayOptions o) {
  auto reader = open_inputs(o);
  if (!reader) {
    spdlog::error("{}", reader.status().message());
    return reader.status().code();
  }
  if (!reader.value()) return run_l2_local(o);
  uint64_t total = 0;
  if (o.verbose) {
    try {
      total = prescan_count(o.trace_path, o.max_frame_bytes);
    } catch (const std::exception& e) {  // the count's own read of the trace failed
      spdlog::error("{}", e.what());
      return ExitCode::kBadInput;
    }
  }
  if (!o.output.quiet) print_banner();
  // Unpaced throughput runs of large traces fault their samples in 2 MiB at a time (see there).
  if (o.speed == 0 && reader.value()->file_size() >= util::kHugeHeapFromTraceBytes) {
    util::back_heap_with_huge_pages();
  }

  std::unique_ptr<util::Clock> vclock;
  util::RealClock real_clock(o.spin_us * 1000);
  util::Clock* clock = &real_clock;
  if (o.virtual_clock) {
    vclock = std::make_unique<util::VirtualClock>(1'000'000'000);
    clock = vclock.get();
  }
  o.engine.time_scale = causal::engine_time_scale(o.pacing, o.speed);
  o.engine.follow_trace_time = causal::engine_follows_trace(o.pacing, o.speed);
  o.engine.classify_misses = o.classify_misses;
  Result<std::unique_ptr<engine::Engine>> built = storage::make_engine(o.engine, *clock);
  if (!built) {  // an invalid config, or an L2 adapter that cannot be built
    spdlog::error("engine: {}", built.status().message());
    return built.status().code();
  }
  std::unique_ptr<engine::Engine> engine = std::move(built).value();
  replay::SessionOptions so;
  so.speed = o.speed;
  so.pacing = o.pacing;
  so.schedule = o.schedule;
  so.edge_ttl = replay::edge_ttl_of(o.engine);
  so.edge_ttl.horizon_s = o.causal_horizon_s;
  so.engine_time_scale = o.engine.time_scale;
  so.engine_follows_trace = o.engine.follow_trace_time;
  so.drain_on_close = o.engine.drain_on_close;
  so.decode_ahead = o.decode_ahead;
  if (o.from_zero) so.t_origin = 0.0;
  report::TimeseriesSink timeseries(o.output.output_dir);
  so.on_window = [&timeseries](const stats::RunWindow& w) { timeseries.add("local", w); };
  replay::ReplaySession session(*engine, *clock, so);
  RecordLines lines(o.verbose, total);
  if (Status s = lines.open_jsonl(o.jsonl_out); !s) {
    spdlog::error("{}", s.message());
    return s.code();
  }
  auto result = replay_trace(o, *reader.value(), session, lines.callback(), timeseries);
  if (!result) {
    spdlog::error("{}", result.status().message());
    return result.status().code();
  }
  return write_report(o, *reader.value(), std::move(result).value());
}

}  // namespace fleet::session
