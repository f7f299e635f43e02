#include "fleet/replay/replay_session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "fleet/causal/partial_schedule.h"
#include "fleet/engine/counters_json.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/replay/decoded_stream.h"
#include "fleet/replay/l2_failure_logging.h"
#include "fleet/replay/l2_windows.h"
#include "fleet/replay/pacer.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/util/heap_margin.h"
#include "fleet/wire/node_result.h"

namespace fleet::replay {

namespace {
// The dispatch thread's logs and tables grow all run long: a first touch of a heap page costs it
// 10-100 us on a VM, the margin's refresh ~0.5 us a page (docs/causal-pacing.md, "Page faults
// on the dispatch thread"). 16 MiB: an engine table that doubles takes a few MiB at once.
constexpr size_t kDispatchHeapMarginBytes = size_t{16} << 20;
}  // namespace

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

// One run() call as phases, the way FleetRun runs a fleet: start (the constructor: T0, the
// pacer, the window sampler, the record stream), then per record either skip_one (a record that
// does not decode or has no handler) or replay_one, then finish (close the engine, fill the
// result). The per-record phases are non-virtual members of one translation unit: the split
// adds no allocation or indirect call to the replay loop.
class ReplaySession::Run {
 public:
  Run(ReplaySession& session, RecordSource& source, const RecordCallback& on_record);
  // Replays (or skips) the next record; false: the stream ended or stop was asked. The per-record
  // phases are `inline` so that they compile into the loop as one function: as calls they cost
  // the loop about 70 instructions per record (callgrind, --engine noop).
  [[gnu::always_inline]] inline bool next();
  SessionResult finish();

 private:
  void skip_one(const DecodedRecord& rec, RecordEvent& ev, int64_t target);
  [[gnu::always_inline]] inline void replay_one(const DecodedRecord& rec, RecordEvent& ev,
                                                int64_t target);
  // Issues one op at (or after) `target`: pace, dispatch, time, count.
  [[gnu::always_inline]] inline void issue(const trace::Op& op, RecordEvent& ev, int64_t target,
                                           int64_t scaled, const causal::Hold& hold);
  // The partial schedule (causal/partial_schedule.h): park a held or blocked record, or issue
  // it now; drain: issue every parked record due by `limit`.
  void replay_partial(const DecodedRecord& rec, int64_t target);
  int64_t await_l2(const trace::Op& op, int64_t target, int64_t trace_ns);
  bool l2_pending(const trace::Op& op, int64_t trace_ns) const;
  int64_t trace_ns_of(const trace::Op& op) const {
    return std::llround((op.t_mono - pacer_.origin()) * 1e9);
  }
  // The engine follows the trace's time: before the pacer's wait, move it to the record's
  // trace instant (its eviction ticks, 20-130 us each, run in the wait, not before the call),
  // unless the record must first wait for L2 work to land. True: done.
  bool follow_trace_before_waiting(const trace::Op& op);
  // When that could not be done (L2 work still to land), poll for the landing during the wait
  // and follow then, until kFollowTickBudgetNs before the record's instant: the tick runs in the
  // wait instead of between the wake-up and the call. True: done.
  bool follow_once_landed(const trace::Op& op, int64_t target);
  static constexpr int64_t kFollowTickBudgetNs = 150'000;
  void drain_parked(int64_t limit);
  RecordEvent begin_event(std::string_view qualname);
  // Waits for the record's instant; true: it was fed late. `times` (tracked edges only) gets the
  // instants of the way there, which name a late edge's cause.
  // `follow`: the record, when the engine follows the trace's time (follow_trace_before_waiting).
  inline bool pace(int64_t target, causal::IssueTimes* times, const trace::Op* follow);
  inline void count_lateness(int64_t late, bool fed_late);
  inline void count_outcome(const trace::Op& op, engine::CallResult& result, RecordEvent& ev);
  WindowSink counting_sink();

  ReplaySession& s_;
  util::Clock& clock_;
  const RecordCallback& on_record_;
  SessionResult res_;
  Dispatcher dispatcher_;
  std::array<stats::OpStats*, trace::kOpKindCount> stats_by_kind_{};
  const int64_t wall_start_;
  const int64_t t0_;
  bool have_origin_;
  Pacer pacer_;
  std::string error_text_;
  uint64_t windows_ = 0;
  L2FailureLogging l2_failure_log_;
  WindowSampler sampler_;
  std::unique_ptr<DecodedStream> stream_;
  std::unique_ptr<causal::EdgeFinder> edges_;         // none: edges are not tracked
  std::unique_ptr<causal::PartialSchedule> partial_;  // none: recorded order
  uint64_t seq_ = 0;
  causal::PacingStats pacing_;
  int64_t last_causal_target_ = 0;
  int64_t last_call_end_ = 0;
  int64_t last_bookkeeping_end_ = 0;  // tracked edges only: the late-cause instants
  bool classify_misses_ = false;  // the engine labels misses: tell it each record before its call
  // Engine::hold_wakeups: this thread runs the engine's queued work when its next record is at
  // least kDriveEngineAheadNs away (a wake-up of the engine's thread costs 8-20 us on a VM).
  bool drives_engine_ = false;
  static constexpr int64_t kDriveEngineAheadNs = 50'000;
  // Decode ahead only in a wait this long, and stop this far before its end: reading the
  // file (a 256 KiB refill) is the longest step of a decode.
  bool decodes_while_waiting_ = false;
  bool followed_before_waiting_ = false;  // the record being issued: its trace time is set
  static constexpr int64_t kDecodeAheadMinNs = 150'000;
  static constexpr int64_t kDecodeAheadMarginNs = 100'000;
  static constexpr int64_t kWakeBeforeSleepNs = 1'000'000;
  // The heap's next allocations are kept present (util/heap_margin.h): checked every
  // kHeapMarginEveryNs in a wait of at least kHeapMarginMinWaitNs, and at most
  // kHeapMarginSliceBytes populated then (~35 us; the check alone ~15 us).
  inline void keep_heap_margin(int64_t target);
  util::HeapMargin heap_margin_{kDispatchHeapMarginBytes};
  int64_t heap_margin_at_ = 0;
  static constexpr int64_t kHeapMarginEveryNs = 5'000'000;
  static constexpr int64_t kHeapMarginMinWaitNs = 300'000;
  static constexpr size_t kHeapMarginSliceBytes = 256 << 10;
};

SessionResult ReplaySession::run(RecordSource& source, const RecordCallback& on_record) {
  engine_.enable_l2_ops(true);
  // A fleet run starts at T0 whatever the speed: with speed 0 nothing else would hold the first
  // dispatch back, and every node would start whenever its first batch happened to arrive.
  // The duration is then measured from T0, as in an embedded run.
  // A paced run's first allocations find their pages present, populated before T0.
  if (options_.speed > 0 && !clock_.is_virtual())
    util::HeapMargin(kDispatchHeapMarginBytes).refresh();
  if (options_.t0_ns) Pacer::wait_for_instant(clock_, options_.t0_ns, &stop_);
  Run run(*this, source, on_record);
  while (run.next()) {
  }
  return run.finish();
}

ReplaySession::Run::Run(ReplaySession& session, RecordSource& source,
                        const RecordCallback& on_record)
    : s_(session),
      clock_(session.clock_),
      on_record_(on_record),
      dispatcher_(session.engine_),
      wall_start_(clock_.now_ns()),
      t0_(s_.options_.t0_ns ? s_.options_.t0_ns : wall_start_),
      have_origin_(!std::isnan(s_.options_.t_origin)),
      pacer_(clock_, t0_, have_origin_ ? s_.options_.t_origin : 0.0, s_.options_.speed),
      l2_failure_log_(s_.engine_, t0_, s_.options_.log_prefix),
      sampler_(s_.engine_, t0_, counting_sink()) {
  res_.t0_ns = t0_;
  const SessionOptions& o = s_.options_;
  const storage::EngineConfig* cfg = s_.engine_.engine_config();
  classify_misses_ = cfg && cfg->classify_misses;
  if (causal::tracks_edges(o.pacing, o.speed)) {
    edges_ = std::make_unique<causal::EdgeFinder>(o.edge_ttl);
    pacing_.pacing = o.pacing;
    pacing_.speed = o.speed;
    pacing_.engine_time_scale = o.engine_time_scale;
    pacing_.engine_follows_trace = o.engine_follows_trace;
    if (o.pacing == causal::Pacing::Causal && o.schedule == causal::Schedule::Partial) {
      partial_ = std::make_unique<causal::PartialSchedule>(*edges_);
      pacing_.partial = true;
    }
  }
  // A paced real-clock run drives the engine's queued work from this thread while it waits,
  // instead of paying a wake-up of the engine's thread inside each call (pace()).
  drives_engine_ = pacer_.paced() && !clock_.is_virtual();
  if (drives_engine_) s_.engine_.hold_wakeups(true);
  decodes_while_waiting_ = pacer_.paced() && !clock_.is_virtual();
  if (s_.options_.decode_ahead) {
    stream_ = std::make_unique<DecodeAhead>(source);
  } else {
    stream_ = std::make_unique<InlineDecoder>(source);
  }
}

// The session's window sink, counting the windows it is handed; none when there is no sink.
WindowSink ReplaySession::Run::counting_sink() {
  if (!s_.options_.on_window) return WindowSink();
  return WindowSink([this](const stats::RunWindow& w) {
    ++windows_;
    s_.options_.on_window(w);
  });
}

bool ReplaySession::Run::next() {
  const DecodedRecord* rec;
  if (s_.stop_.load(std::memory_order_relaxed)) return false;
  if ((rec = stream_->next()) == nullptr) {
    if (partial_) drain_parked(std::numeric_limits<int64_t>::max());
    return false;
  }
  if (!rec->decoded && res_.skipped < 10) {
    spdlog::warn("record at offset {}: args do not decode ({}); skipped", rec->file_offset,
                 rec->decode_error);
  }
  if (!have_origin_) {
    pacer_.set_origin(rec->t_mono);
    have_origin_ = true;
  }
  const int64_t target = pacer_.target_ns(rec->t_mono);
  if (partial_) [[unlikely]] {
    drain_parked(target);
    if (rec->decoded && rec->op.kind != trace::OpKind::Unknown) {
      replay_partial(*rec, target);
      return true;
    }
  }
  RecordEvent ev = begin_event(rec->op.qualname());
  if (!rec->decoded || rec->op.kind == trace::OpKind::Unknown) {
    skip_one(*rec, ev, target);
  } else {
    replay_one(*rec, ev, target);
  }
  return true;
}

// Counted when issued: a parked record a stop leaves behind was never replayed, like one the
// stream never delivered.
RecordEvent ReplaySession::Run::begin_event(std::string_view qualname) {
  ++res_.total;
  RecordEvent ev;
  ev.n = res_.total;
  ev.qualname = qualname;
  return ev;
}

void ReplaySession::Run::replay_partial(const DecodedRecord& rec, int64_t target) {
  const uint64_t seq = seq_++;
  if (partial_->blocked(rec.op)) {
    partial_->park({rec.op, target, {}, 0, seq}, true);
    return;
  }
  const causal::Hold hold = edges_->before_issue(rec.op);
  if (hold.not_before_ns > target) {
    partial_->park({rec.op, target, hold, hold.not_before_ns, seq}, false);
    return;
  }
  if (!partial_->empty()) ++pacing_.overtakes;
  RecordEvent ev = begin_event(rec.op.qualname());
  issue(rec.op, ev, target, target, hold);
}

void ReplaySession::Run::drain_parked(int64_t limit) {
  while (!s_.stop_.load(std::memory_order_relaxed)) {
    std::optional<causal::PartialSchedule::Entry> e = partial_->pop_ready(limit);
    if (!e) return;
    RecordEvent ev = begin_event(e->op.qualname());
    issue(e->op, ev, e->target_ns, e->scaled_ns, e->hold);
    partial_->issued(*e);
  }
}

void ReplaySession::Run::skip_one(const DecodedRecord& rec, RecordEvent& ev, int64_t target) {
  // LMCache waits for the record's time before it decodes; pacing skipped records keeps
  // the replay's duration identical.
  pacer_.wait_until(target, &s_.stop_);
  sampler_.advance(clock_.now_ns());
  sampler_.count_record(false, true);
  ++res_.skipped;
  if (rec.decoded && res_.skipped <= 10) {
    spdlog::warn("no handler for {}; record skipped", rec.op.qualname());
  }
  ev.failed = ev.skipped = true;
  s_.progress_.records.store(res_.total, std::memory_order_relaxed);
  if (on_record_) on_record_(ev);
}

void ReplaySession::Run::replay_one(const DecodedRecord& rec, RecordEvent& ev, int64_t target) {
  const int64_t scaled = target;
  causal::Hold hold;
  if (edges_) [[unlikely]] {
    hold = edges_->before_issue(rec.op);
    // Causal pacing: issued at the latest of its scaled instant, its gap edges' (no early edge,
    // ever) and the previous record's causal instant (the dispatcher keeps the recorded order);
    // lateness is then measured from that instant, so a record queued behind a held one is on
    // schedule, and one the replay itself could not issue in time is late.
    if (pacing_.pacing == causal::Pacing::Causal) {
      target = std::max({target, hold.not_before_ns, last_causal_target_});
      last_causal_target_ = target;
    }
  }
  issue(rec.op, ev, target, scaled, hold);
}

void ReplaySession::Run::issue(const trace::Op& op, RecordEvent& ev, int64_t target, int64_t scaled,
                               const causal::Hold& hold) {
  causal::IssueTimes times;
  times.previous_call_end = last_call_end_;
  times.bookkeeping_done = last_bookkeeping_end_;
  const bool fed_late =
      pace(target, edges_ ? &times : nullptr, pacing_.engine_follows_trace ? &op : nullptr);
  if (pacing_.engine_follows_trace && !followed_before_waiting_) [[unlikely]] {
    const int64_t trace_ns = trace_ns_of(op);
    target = await_l2(op, target, trace_ns);
    last_causal_target_ = std::max(last_causal_target_, target);
    s_.engine_.follow_trace_time(trace_ns);
  }
  if (classify_misses_) [[unlikely]]
    s_.engine_.set_record(op.t_wall);
  const int64_t start = clock_.now_ns();
  sampler_.advance(start);
  engine::CallResult result = dispatcher_.dispatch(op);
  const int64_t end = clock_.now_ns();
  last_call_end_ = end;
  if (edges_) [[unlikely]] {
    edges_->after_issue(op, start);
    pacing_.count_issue(hold, scaled, target, start, times);
  }
  if (res_.first_dispatch_ns == 0) res_.first_dispatch_ns = start;
  if (pacer_.paced()) count_lateness(start - target, fed_late);
  ev.latency_ms = static_cast<double>(end - start) / 1e6;
  count_outcome(op, result, ev);
  s_.progress_.records.store(res_.total, std::memory_order_relaxed);
  s_.progress_.trace_time_s.store(op.t_mono, std::memory_order_relaxed);
  if (on_record_) on_record_(ev);
  if (edges_) [[unlikely]]
    last_bookkeeping_end_ = clock_.now_ns();
}

// Causal pacing's completion edges (docs/causal-pacing.md): a prefetch waits for the write-behind
// stores of its keys to land and an earlier prefetch of its keys to finish, a read for the
// prefetch of its keys to finish — at 1x they had
// (else the recorded server missed too), at 10x a real backend may lag — and no record runs more
// than the causal horizon of trace time ahead of the oldest store still in flight (a backlog
// holds keys locked in L1 that the recorded server had released). Returns the instant the record
// may go: its target, or when the work landed (lateness counts from there).
bool ReplaySession::Run::l2_pending(const trace::Op& op, int64_t trace_ns) const {
  const int64_t horizon_ns = std::llround(s_.options_.edge_ttl.horizon_s * 1e9);
  const int64_t oldest = s_.engine_.oldest_store_trace_ns();
  if (oldest != INT64_MAX && trace_ns - oldest > horizon_ns) return true;
  if (op.kind == trace::OpKind::SubmitPrefetch)
    return s_.engine_.store_pending(op.spec.keys) || s_.engine_.prefetch_pending(op.spec.keys);
  if (op.kind == trace::OpKind::ReadEnter) return s_.engine_.prefetch_pending(op.keys);
  return false;
}

// Nothing pending now stays so through the wait: only this thread's calls queue L2 work, and
// the wait only lets queued work land. So the L2 wait after the pacer's would return at once,
// and following the trace now gives the engine the order it would have had after the wait.
bool ReplaySession::Run::follow_trace_before_waiting(const trace::Op& op) {
  const int64_t trace_ns = trace_ns_of(op);
  if (l2_pending(op, trace_ns)) return false;
  s_.engine_.follow_trace_time(trace_ns);
  return true;
}

bool ReplaySession::Run::follow_once_landed(const trace::Op& op, int64_t target) {
  const int64_t trace_ns = trace_ns_of(op);
  const int64_t deadline = target - kFollowTickBudgetNs;
  if (clock_.now_ns() >= deadline) return false;
  if (drives_engine_) s_.engine_.release_wakeups();  // what lands the work must not wait on us
  for (int64_t now = clock_.now_ns(); now < deadline; now = clock_.now_ns()) {
    if (!l2_pending(op, trace_ns)) {
      s_.engine_.follow_trace_time(trace_ns);
      return true;
    }
    clock_.sleep_until(
        std::min(now + std::max(causal::PacingStats::kL2PollNs, (deadline - now) / 4), deadline));
  }
  return false;
}

int64_t ReplaySession::Run::await_l2(const trace::Op& op, int64_t target, int64_t trace_ns) {
  auto pending = [&] { return l2_pending(op, trace_ns); };
  if (!pending()) return target;
  if (drives_engine_) s_.engine_.release_wakeups();  // what lands the work must not wait on us
  const int64_t from = clock_.now_ns();
  const int64_t give_up = from + causal::PacingStats::kL2AwaitCapNs;
  bool still = true;
  while (still && clock_.now_ns() < give_up && !s_.stop_.load(std::memory_order_relaxed)) {
    if (clock_.is_virtual()) {
      const int64_t next = s_.engine_.next_event_ns();
      if (next == INT64_MAX) break;
      s_.run_engine_events_until(std::min(next, give_up));
    } else {
      clock_.sleep_until(clock_.now_ns() + causal::PacingStats::kL2PollNs);
    }
    still = pending();
  }
  const int64_t now = clock_.now_ns();
  pacing_.count_l2_await(now - from, still);
  return std::max(target, now);
}

bool ReplaySession::Run::pace(int64_t target, causal::IssueTimes* times, const trace::Op* follow) {
  bool fed_late = false;
  if (pacer_.paced()) {
    const int64_t arrived = clock_.now_ns();
    fed_late = arrived > target;
    s_.run_engine_events_until(target);
    if (drives_engine_ && target - arrived > kDriveEngineAheadNs) {
      s_.engine_.run_until(arrived);  // the work the calls before queued, on this idle thread
      // The engine's thread is woken for later work only when this one is about to sleep: woken
      // while this one spins, it would likely preempt it on its core.
      if (target - clock_.now_ns() > kWakeBeforeSleepNs) s_.engine_.release_wakeups();
    }
    followed_before_waiting_ =
        follow && !clock_.is_virtual() && follow_trace_before_waiting(*follow);
    if (times) [[unlikely]] {
      times->arrived = arrived;
      times->events_done = clock_.now_ns();
    }
    if (decodes_while_waiting_) keep_heap_margin(target);
    // Records after this one are read and decoded now, while there is time, rather than
    // between this call and the next, which may be due right after it.
    if (decodes_while_waiting_ && target - arrived > kDecodeAheadMinNs) {
      stream_->decode_ahead(clock_, target - kDecodeAheadMarginNs);
    }
    if (follow && !followed_before_waiting_ && decodes_while_waiting_)
      followed_before_waiting_ = follow_once_landed(*follow, target);
    pacer_.wait_until(target, &s_.stop_);
    if (times) [[unlikely]]
      times->woke = clock_.now_ns();
    if (fed_late) ++res_.feed_late;
  } else {
    if (clock_.is_virtual()) s_.run_engine_events_until(clock_.now_ns());
  }
  return fed_late;
}

void ReplaySession::Run::keep_heap_margin(int64_t target) {
  const int64_t now = clock_.now_ns();
  if (target - now < kHeapMarginMinWaitNs || now - heap_margin_at_ < kHeapMarginEveryNs) return;
  heap_margin_.refresh(kHeapMarginSliceBytes);
  heap_margin_at_ = now;
}

void ReplaySession::Run::count_lateness(int64_t late, bool fed_late) {
  res_.lateness.record(late);
  sampler_.count_lateness(late);
  if (!fed_late && late > stats::LatenessStats::kLateThresholdNs) ++res_.engine_late;
  s_.progress_.last_lateness_ns.store(late, std::memory_order_relaxed);
}

void ReplaySession::Run::count_outcome(const trace::Op& op, engine::CallResult& result,
                                       RecordEvent& ev) {
  sampler_.count_record(result.failed, false);
  stats::OpStats*& op_stats = stats_by_kind_[static_cast<size_t>(op.kind)];
  if (!op_stats) op_stats = &res_.stats.op(op.qualname());
  if (result.failed) {
    ++res_.failed;
    op_stats->record_failure();
    ev.failed = true;
    error_text_ = std::move(result.error);
    ev.error = &error_text_;
    if (res_.failed <= 10) spdlog::warn("{} failed: {}", op.qualname(), error_text_);
    s_.progress_.failed.store(res_.failed, std::memory_order_relaxed);
  } else {
    ++res_.replayed;
    op_stats->record_success(ev.latency_ms);
  }
}

SessionResult ReplaySession::Run::finish() {
  res_.stopped_early = s_.stop_.load(std::memory_order_relaxed);
  stream_.reset();  // a decoding thread stops here, before the engine closes
  if (drives_engine_) s_.engine_.hold_wakeups(false);

  dispatcher_.close_dangling();
  // LMCache marks the end after closing dangling contexts and before closing the manager.
  res_.duration_s = std::max(0.0, static_cast<double>(clock_.now_ns() - wall_start_) / 1e9);
  // A stopped run (its coordinator is gone, an ABORT, Ctrl-C) does not drain its L2 stores: that
  // would be load on a shared L2 that nobody asked for any more, for as long as the queue lasts.
  const bool drain = s_.options_.drain_on_close && !res_.stopped_early;
  if (clock_.is_virtual() && drain) {
    s_.run_engine_events_until(clock_.now_ns() + s_.options_.virtual_drain_ns);
  }
  engine::Engine& eng = s_.engine_;
  eng.close(drain);
  res_.dispatch = dispatcher_.counters();
  res_.engine_name = std::string(eng.name());
  res_.engine_digest = eng.config_digest();
  const storage::EngineConfig* cfg = eng.engine_config();
  res_.engine_config = cfg ? storage::to_lmcache_json(*cfg) : nlohmann::json::object();
  res_.engine_counters = engine::to_json(eng.counters());
  res_.l2 = summarize_l2_ops(sampler_.finish(), t0_);
  res_.l2_failures = l2_failure_log_.finish();
  res_.windows = windows_;
  if (edges_) {
    pacing_.edges = edges_->counts();
    res_.pacing = std::move(pacing_);
  }
  if (classify_misses_) {
    res_.misses = eng.miss_summary();
    const double speed = s_.options_.speed;
    if (res_.misses) {
      res_.misses->sped_up = !clock_.is_virtual() && (speed == 0.0 || speed > 1.0);
      res_.misses->partial_schedule = partial_ != nullptr;
    }
    res_.miss_events = eng.take_misses();
  }
  return std::move(res_);
}

causal::EdgeFinderOptions edge_ttl_of(const storage::EngineConfig& cfg) {
  causal::EdgeFinderOptions o;
  o.read_ttl_s = static_cast<double>(cfg.l1_read_ttl_seconds);
  o.write_ttl_s = static_cast<double>(cfg.l1_write_ttl_seconds);
  return o;
}

wire::NodeResult to_node_result(SessionResult r, std::string name) {
  wire::NodeResult n;
  n.name = std::move(name);
  n.status = r.stopped_early ? wire::NodeStatus::Aborted : wire::NodeStatus::Ok;
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
  n.pacing = std::move(r.pacing);
  n.misses = std::move(r.misses);
  n.miss_events = std::move(r.miss_events);
  return n;
}

}  // namespace fleet::replay
