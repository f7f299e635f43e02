#include "fleet/replay/replay_session.h"

#include <spdlog/spdlog.h>

#include <array>
#include <cmath>
#include <memory>

#include "fleet/engine/counters_json.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/replay/decoded_stream.h"
#include "fleet/replay/l2_failure_logging.h"
#include "fleet/replay/l2_windows.h"
#include "fleet/replay/pacer.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/wire/node_result.h"

namespace fleet::replay {

ReplaySession::ReplaySession(engine::Engine& engine, util::Clock& clock, SessionOptions options)
    : engine_(engine), clock_(clock), options_(options) {}

// With a virtual clock the engine's timers (eviction ticks, L2 completions) fire only when the
// session moves time: step through them in order so every event sees its own instant.
void ReplaySession::run_engine_events_until(int64_t t_ns) {
  if (!clock_.is_virtual()) return;
  auto& vclock = static_cast<util::VirtualClock&>(clock_);
  for (;;) {
    int64_t next = engine_.next_event_ns();
    if (next > t_ns) break;
    vclock.advance_to(next);
    engine_.run_until(next);
  }
  vclock.advance_to(t_ns);
  engine_.run_until(t_ns);
}

SessionResult ReplaySession::run(RecordSource& source, const RecordCallback& on_record) {
  SessionResult res;
  Dispatcher dispatcher(engine_);
  std::array<stats::OpStats*, trace::kOpKindCount> stats_by_kind{};

  engine_.enable_l2_ops(true);
  // A fleet run starts at T0 whatever the speed: with speed 0 nothing else would hold the first
  // dispatch back, and every node would start whenever its first batch happened to arrive.
  // The duration is then measured from T0, as in an embedded run.
  if (options_.t0_ns) Pacer::wait_for_instant(clock_, options_.t0_ns, &stop_);
  const int64_t wall_start = clock_.now_ns();
  const int64_t t0 = options_.t0_ns ? options_.t0_ns : wall_start;
  res.t0_ns = t0;
  bool have_origin = !std::isnan(options_.t_origin);
  Pacer pacer(clock_, t0, have_origin ? options_.t_origin : 0.0, options_.speed);
  std::string error_text;
  uint64_t windows = 0;
  L2FailureLogging l2_failure_log(engine_, t0, options_.log_prefix);
  WindowSampler sampler(engine_, t0,
                        options_.on_window ? WindowSink([&](const stats::RunWindow& w) {
                          ++windows;
                          options_.on_window(w);
                        })
                                           : WindowSink());

  std::unique_ptr<DecodedStream> stream;
  if (options_.decode_ahead) {
    stream = std::make_unique<DecodeAhead>(source);
  } else {
    stream = std::make_unique<InlineDecoder>(source);
  }
  const DecodedRecord* rec;
  while (!stop_.load(std::memory_order_relaxed) && (rec = stream->next()) != nullptr) {
    const trace::Op& op = rec->op;
    const bool decoded = rec->decoded;
    if (!decoded && res.skipped < 10) {
      spdlog::warn("record at offset {}: args do not decode ({}); skipped", rec->file_offset,
                   rec->decode_error);
    }
    ++res.total;
    if (!have_origin) {
      pacer.set_origin(rec->t_mono);
      have_origin = true;
    }
    RecordEvent ev;
    ev.n = res.total;
    ev.qualname = op.qualname();
    const int64_t target = pacer.target_ns(rec->t_mono);
    if (!decoded || op.kind == trace::OpKind::Unknown) {
      // LMCache waits for the record's time before it decodes; pacing skipped records keeps
      // the replay's duration identical.
      pacer.wait_until(target, &stop_);
      sampler.advance(clock_.now_ns());
      sampler.count_record(false, true);
      ++res.skipped;
      if (decoded && res.skipped <= 10) {
        spdlog::warn("no handler for {}; record skipped", op.qualname());
      }
      ev.failed = ev.skipped = true;
      progress_.records.store(res.total, std::memory_order_relaxed);
      if (on_record) on_record(ev);
      continue;
    }

    bool fed_late = false;
    if (pacer.paced()) {
      fed_late = clock_.now_ns() > target;
      run_engine_events_until(target);
      pacer.wait_until(target, &stop_);
      if (fed_late) ++res.feed_late;
    } else {
      if (clock_.is_virtual()) run_engine_events_until(clock_.now_ns());
    }

    const int64_t start = clock_.now_ns();
    sampler.advance(start);
    engine::CallResult result = dispatcher.dispatch(op);
    const int64_t end = clock_.now_ns();
    if (res.first_dispatch_ns == 0) res.first_dispatch_ns = start;
    if (pacer.paced()) {
      int64_t late = start - target;
      res.lateness.record(late);
      sampler.count_lateness(late);
      if (!fed_late && late > stats::LatenessStats::kLateThresholdNs) ++res.engine_late;
      progress_.last_lateness_ns.store(late, std::memory_order_relaxed);
    }

    sampler.count_record(result.failed, false);
    auto kind_index = static_cast<size_t>(op.kind);
    stats::OpStats*& op_stats = stats_by_kind[kind_index];
    if (!op_stats) op_stats = &res.stats.op(op.qualname());
    ev.latency_ms = static_cast<double>(end - start) / 1e6;
    if (result.failed) {
      ++res.failed;
      op_stats->record_failure();
      ev.failed = true;
      error_text = std::move(result.error);
      ev.error = &error_text;
      if (res.failed <= 10) spdlog::warn("{} failed: {}", op.qualname(), error_text);
      progress_.failed.store(res.failed, std::memory_order_relaxed);
    } else {
      ++res.replayed;
      op_stats->record_success(ev.latency_ms);
    }
    progress_.records.store(res.total, std::memory_order_relaxed);
    progress_.trace_time_s.store(rec->t_mono, std::memory_order_relaxed);
    if (on_record) on_record(ev);
  }
  res.stopped_early = stop_.load(std::memory_order_relaxed);
  stream.reset();  // a decoding thread stops here, before the engine closes

  dispatcher.close_dangling();
  // LMCache marks the end after closing dangling contexts and before closing the manager.
  res.duration_s = std::max(0.0, static_cast<double>(clock_.now_ns() - wall_start) / 1e9);
  // A stopped run (its coordinator is gone, an ABORT, Ctrl-C) does not drain its L2 stores: that
  // would be load on a shared L2 that nobody asked for any more, for as long as the queue lasts.
  const bool drain = options_.drain_on_close && !res.stopped_early;
  if (clock_.is_virtual() && drain) {
    run_engine_events_until(clock_.now_ns() + options_.virtual_drain_ns);
  }
  engine_.close(drain);
  res.dispatch = dispatcher.counters();
  res.engine_name = std::string(engine_.name());
  res.engine_digest = engine_.config_digest();
  const storage::EngineConfig* cfg = engine_.engine_config();
  res.engine_config = cfg ? storage::to_lmcache_json(*cfg) : nlohmann::json::object();
  res.engine_counters = engine::to_json(engine_.counters());
  res.l2 = summarize_l2_ops(sampler.finish(), t0);
  res.l2_failures = l2_failure_log.finish();
  res.windows = windows;
  return res;
}

wire::NodeResult to_node_result(SessionResult r, std::string name) {
  wire::NodeResult n;
  n.name = std::move(name);
  n.status = r.stopped_early ? "aborted" : "ok";
  n.total = r.total;
  n.replayed = r.replayed;
  n.skipped = r.skipped;
  n.failed = r.failed;
  n.duration_s = r.duration_s;
  n.stats = std::move(r.stats);
  n.lateness = std::move(r.lateness);
  n.feed_late = r.feed_late;
  n.engine_late = r.engine_late;
  n.engine_name = std::move(r.engine_name);
  n.config_digest = std::move(r.engine_digest);
  n.engine_config = std::move(r.engine_config);
  n.engine_counters = std::move(r.engine_counters);
  n.l2_windows = std::move(r.l2);
  n.l2_failures = std::move(r.l2_failures);
  n.start_skew_ns = r.first_dispatch_ns ? r.first_dispatch_ns - r.t0_ns : 0;
  n.dispatch_exits_without_enter = r.dispatch.exits_without_enter;
  n.dangling_contexts_closed = r.dispatch.dangling_contexts_closed;
  return n;
}

}  // namespace fleet::replay
