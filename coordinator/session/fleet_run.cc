#include "fleet/coordinator/session/fleet_run.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "fleet/causal/pacing.h"
#include "fleet/coordinator/session/batch_fanout.h"
#include "fleet/coordinator/session/causal_preview.h"
#include "fleet/coordinator/session/known_workers.h"
#include "fleet/coordinator/session/l2_fleet_run.h"
#include "fleet/coordinator/session/local_workers.h"
#include "fleet/insight/report/outputs.h"
#include "fleet/insight/report/progress.h"
#include "fleet/plan/route_cache.h"
#include "fleet/plan/route_record.h"
#include "fleet/replay/replay_session.h"
#include "fleet/security/certificate.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/util/clock.h"
#include "fleet/util/clock_kind.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/thread_cpu.h"
#include "fleet_causal_preview.h"
#include "fleet_keys.h"
#include "fleet_run_machine.h"
#include "handshake.h"

namespace fleet::session {

namespace {

std::atomic<bool> g_interrupt{false};
void on_signal(int) { g_interrupt.store(true); }

// SIGINT/SIGTERM set g_interrupt while a run streams and drains; the run then stops every
// worker and still writes its partial report.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupt.store(false);
    old_int_ = std::signal(SIGINT, on_signal);
    old_term_ = std::signal(SIGTERM, on_signal);
  }
  ~InterruptGuard() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*old_int_)(int) = nullptr;
  void (*old_term_)(int) = nullptr;
};

wire::BatchCodec choose_codec(Compression mode, bool local, const WorkerAddress& a) {
  if (mode == Compression::None) return wire::BatchCodec::None;
  if (mode == Compression::Zstd) return wire::BatchCodec::Zstd;
  return local || is_loopback_host(a.host) ? wire::BatchCodec::None : wire::BatchCodec::Zstd;
}

}  // namespace

ExitCode run_fleet(FleetOptions options) {
  util::Clock& clock = options.clock ? *options.clock : util::RealClock::instance();
  // An L2 adapter-level trace has its own fleet run (docs/l2-traces.md, "Across the fleet").
  if (is_l2_trace_file(options.replay.trace_path)) return run_l2_fleet(std::move(options), clock);
  if (options.shard_source || !options.replay.more_trace_paths.empty()) {
    spdlog::error("{}: {} applies to L2 adapter-level traces only (one file per recorded server)",
                  options.replay.trace_path,
                  options.shard_source ? "--shard source" : "more than one trace file");
    return ExitCode::kBadInput;
  }
  FleetRun run(std::move(options), clock);
  return run.run();
}

FleetRun::FleetRun(FleetOptions options, util::Clock& clock)
    : o_(std::move(options)),
      clock_(clock),
      links_(clock, int64_t{o_.heartbeat_ms} * 1'000'000,
             int64_t{o_.heartbeat_ms} * 1'000'000 * wire::kLostAfterHeartbeats) {
  // A link is a DEALER plus, until WELCOME, a handshake monitor's two PAIR sockets: libzmq's
  // default of 1,023 sockets per context aborted a 1,000-worker run at connect ("Too many
  // open files", docs/scaling.md). libzmq clips this to the process's file limit.
  ctx_.set(zmq::ctxopt::max_sockets, kMaxSockets);
}

FleetRun::~FleetRun() = default;

ExitCode FleetRun::fail(const Status& s) const {
  spdlog::error("{}", s.message());
  return s.code();
}

ExitCode FleetRun::run() {
  began_ns_ = clock_.now_ns();
  if (Status s = prepare(); !s) return fail(s);
  if (o_.plan_only) return print_plan();
  phase_ = Phase::Connect;
  if (Status s = connect(); !s) {
    release_workers(s.message());
    return fail(s);
  }
  phase_ = Phase::SyncClocks;
  sync_clocks();
  phase_ = Phase::Start;
  start_workers();
  {
    InterruptGuard interrupts;
    report::ProgressReporter progress(
        [&] {
          report::ProgressSample s;
          uint64_t sent = 0;
          for (const auto& l : links_) {  // the reporter's thread: atomics only
            const WorkerLink::LiveProgress& p = l->live();
            sent += p.sent.load(std::memory_order_relaxed);
            s.records += p.records.load(std::memory_order_relaxed);
            s.failed += p.failed.load(std::memory_order_relaxed);
            s.trace_time_s = std::max(s.trace_time_s, p.trace_time_s.load() - t_origin_);
            s.lag_ns = std::max(s.lag_ns, p.last_lateness_ns.load(std::memory_order_relaxed));
          }
          s.hit_rate = timeseries_ ? timeseries_->current_hit_rate() : -1.0;
          s.nodes_alive = nodes_alive_.load(std::memory_order_relaxed);
          s.nodes_total = static_cast<int>(links_.size());
          // Read share of the trace times the share of what was sent that the workers have
          // replayed: the reader runs ahead of a paced replay by the credit window.
          const double read = read_fraction();
          s.fraction = read < 0 || sent == 0
                           ? read
                           : read * std::min(1.0, static_cast<double>(s.records) / sent);
          return s;
        },
        o_.replay.output.quiet ? report::ProgressReporter::Mode::Never : o_.replay.progress);
    phase_ = Phase::Stream;
    stream();
    phase_ = Phase::Drain;
    drain();
  }
  phase_ = Phase::Report;
  const ExitCode status = report();
  phase_ = Phase::Finished;
  return status;
}

Status FleetRun::prepare() {
  const ReplayOptions& r = o_.replay;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = r.max_frame_bytes;
  // The router's scan (or decode, for key sharding) validates each record's args in its own
  // walk; route_or_reject hands a record that fails to the reader's malformed count.
  ro.defer_args_check = true;
  // Reading ahead overlaps the kernel's copy with routing on a spare core; --local workers on
  // this host leave none on a small one (measured on 2 cores: no gain, -3% for --shard time).
  ro.read_ahead = o_.local == 0 || std::thread::hardware_concurrency() > unsigned(o_.local) + 1;
  try {
    reader_ = std::make_unique<trace::FrameReader>(r.trace_path, ro);
    const trace::Header& h = reader_->header();
    if (Status s = check_replayable(r.trace_path, h.level, h.trace_schema_version); !s) return s;
    if (Status s = o_.send_engine_config ? r.engine.validate() : Status(); !s) return s;
    if (Status s = resolve_addresses(); !s) return s;
    if (Status s = o_.plan_only ? Status() : load_keys(); !s) return s;
    if (!o_.route_cache_dir.empty() && !o_.plan_only) {  // --plan-only saves no plan
      if (Status s = plan::check_route_cache_dir(o_.route_cache_dir); !s) return s;
    }
    if (!o_.plan_only) {
      if (Status s = report::prepare_output_dir(r.output.output_dir); !s) return s;
      timeseries_ = std::make_unique<report::TimeseriesSink>(r.output.output_dir);
    }
  } catch (const std::exception& e) {  // the trace, the config, the workers or the output dir
    return Status::error(e.what());
  }
  o_.router.worker_names.clear();
  for (size_t i = 0; i < addresses_.size(); ++i) {
    o_.router.worker_names.push_back(o_.local > 0 ? "local-" + std::to_string(i)
                                                  : addresses_[i].name());
  }
  // Workers that route themselves read a saved plan too (fleet_run_plan_read.cc).
  if (!o_.route_cache_dir.empty() && !o_.plan_only) find_saved_routes();
  return Status();
}

// --local N, or --workers (a hosts file, a list, or dns:NAME:PORT).
Status FleetRun::resolve_addresses() {
  if (o_.local > 0) {
    for (int i = 0; i < o_.local; ++i) addresses_.push_back({"local", i, ""});
  } else {
    auto resolved = resolve_workers(o_.workers_spec);
    if (!resolved) return resolved.status();
    addresses_ = std::move(resolved).value();
    // A headless service lists replicas as they become ready: with --expect-workers, keep
    // resolving until they are all there or --connect-timeout passes.
    const bool dns = o_.workers_spec.rfind("dns:", 0) == 0;
    const int64_t until = clock_.now_ns() + int64_t{o_.connect_timeout_ms} * 1'000'000;
    while (dns && o_.expect_workers > 0 &&
           static_cast<int>(addresses_.size()) < o_.expect_workers && clock_.now_ns() < until) {
      spdlog::info("{}: {} of {} workers resolved; waiting", o_.workers_spec, addresses_.size(),
                   o_.expect_workers);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      resolved = resolve_workers(o_.workers_spec);
      if (!resolved) return resolved.status();
      addresses_ = std::move(resolved).value();
    }
  }
  if (o_.expect_workers > 0 && static_cast<int>(addresses_.size()) != o_.expect_workers) {
    return Status::error("--expect-workers " + std::to_string(o_.expect_workers) + ": found " +
                         std::to_string(addresses_.size()) + " worker(s) in " +
                         (o_.local ? std::string("--local") : o_.workers_spec));
  }
  return Status();
}

Status FleetRun::load_keys() { return load_fleet_keys(o_, addresses_, curve_); }

ExitCode FleetRun::print_plan() {
  try {
    const session::ReplayOptions& r = o_.replay;
    const bool paced = causal::tracks_edges(r.pacing, r.speed);
    plan::RouterOptions ro = o_.router;
    ro.encode_split_parts = true;  // the per-node preview decodes each node's part of a call
    plan::ShardRouter router(ro);
    std::optional<FleetCausalPreview> per_node;
    if (paced && ro.mode != plan::ShardMode::None) per_node.emplace(r, ro);
    trace::RecordView rec;
    while (reader_->next(rec)) {
      const std::vector<plan::Route>& routes = plan::route_or_reject(router, *reader_, rec);
      if (per_node) per_node->add(rec, routes);
    }
    std::string text = router.render_plan();
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (paced) {
      if (Status s = print_causal_preview(r); !s) return fail(s);
    }
    if (per_node) {
      const std::string nodes = per_node->finish_text();
      std::fwrite(nodes.data(), 1, nodes.size(), stdout);
    }
    if (o_.replay.output.format == "json") {
      std::string j = util::py_json_dumps_indent(router.plan_json(), 2) + "\n";
      std::fwrite(j.data(), 1, j.size(), stdout);
    }
    return ExitCode::kOk;
  } catch (const std::exception& e) {  // the trace failed mid-read
    return fail(Status::error(e.what()));
  }
}

Status FleetRun::connect() {
  if (o_.local > 0) {
    auto started = LocalWorkers::start(o_.local, o_.local_worker_args, curve_ ? &*curve_ : nullptr);
    if (!started) return started.status();  // a worker binary that would not start
    local_ = std::move(started).value();
    addresses_ = local_->addresses();
  }
  const std::string ident_prefix = "coord-" + std::to_string(getpid()) + "-";
  links_.open(ctx_, curve_ ? &*curve_ : nullptr);
  const std::string fingerprint = curve_ ? security::fingerprint(curve_->public_z85) : "";
  for (size_t i = 0; i < addresses_.size(); ++i) {
    auto link = std::make_unique<WorkerLink>(links_.router(), addresses_[i],
                                             ident_prefix + std::to_string(i),
                                             links_.next_peer_id(), fingerprint);
    link->set_codec(choose_codec(o_.compression, o_.local > 0, addresses_[i]),
                    o_.compression_level);
    links_.add(std::move(link));
  }
  // --trace-access shared on a trace that cannot be shared is an error.
  const Result<TraceOffer> offer = plan_trace_offer(o_, addresses_);
  if (!offer) return offer.status();
  if (Status s = handshake(links_, offer.value(), o_.connect_timeout_ms, clock_); !s) return s;
  if (Status s = apply_trace_offer(links_, offer.value(), o_.trace_access == TraceAccess::Shared);
      !s)
    return s;
  return decide_routing();
}

void FleetRun::sync_clocks() {
  estimate_clocks(links_, clock_);
  for (const auto& l : links_) {
    spdlog::info("worker {} ({}, {} cores): clock offset {:.1f} us +/- {:.1f} us",
                 l->address().name(), l->welcome().hostname, l->welcome().cores,
                 l->clock_offset_ns() / 1e3, l->clock_uncertainty_ns() / 1e3);
  }
}

// START to every worker; T0 comes later, in GO (send_go_when_ready).
void FleetRun::start_workers() {
  const ReplayOptions& r = o_.replay;
  // Parts of split calls travel as masked references when every worker reads the trace;
  // re-encoded only if some worker gets its records inline.
  plan::RouterOptions router = o_.router;
  router.encode_split_parts = false;
  for (const auto& l : links_) router.encode_split_parts |= !l->shared_trace();
  if (!self_routing_) {
    router_ = std::make_unique<plan::ShardRouter>(router);
    open_feed();
  }
  // A saved plan replays routes without reading the records: it counts no cut edges.
  if (!self_routing_ && o_.router.mode == plan::ShardMode::Time &&
      causal::tracks_edges(r.pacing, r.speed))
    cut_edges_ = std::make_unique<causal::CutEdgeCounter>(replay::edge_ttl_of(r.engine),
                                                          o_.router.worker_names.size());
  if (self_routing_) offer_saved_plan();
  if (!self_routing_ && open_saved_routes()) {
    cut_edges_.reset();
    t_origin_ = saved_routes_->meta()["t_origin"].get<double>();
  } else {
    // T0 stands for the first *replayable* record: with the deferred args check, a first frame
    // whose args turn out malformed is counted and skipped here, as the router would.
    while ((have_record_ = reader_->next(rec_))) {
      try {
        trace::check_deferred_args(rec_);
        break;
      } catch (const trace::MalformedRecord& e) {
        reader_->reject_malformed(rec_, e.what());
      }
    }
    t_origin_ = have_record_ ? rec_.t_mono : 0.0;
    have_record_ = have_record_ && !self_routing_;  // the workers read the rest
  }
  connected_ns_ = clock_.now_ns();
  t0_ns_ = connected_ns_;
  streamed_ns_ = connected_ns_;
  for (size_t i = 0; i < links_.size(); ++i) {
    wire::Start s;
    s.speed = r.speed;
    s.pacing = std::string(causal::pacing_name(r.pacing));
    s.schedule = r.schedule == causal::Schedule::Partial ? "partial" : "ordered";
    s.causal_horizon_s = r.causal_horizon_s;
    s.classify_misses = r.classify_misses;
    s.t_origin = r.from_zero ? 0.0 : t_origin_;
    s.clock = util::clock_name(util::clock_kind(r.virtual_clock));
    if (o_.send_engine_config) s.engine_config_json = r.engine.lmcache_json_text();
    s.l2_key_namespace = r.engine.l2_key_namespace;
    if (o_.send_engine_name) s.engine_name = r.engine.engine_name;
    s.node_index = static_cast<int>(i);
    s.node_count = static_cast<int>(links_.size());
    s.trace_level = reader_->header().level;
    s.trace_schema = reader_->header().trace_schema_version;
    s.credit_window = o_.credit_window;
    s.self_routing = self_routing_params();
    // Silence counts from the START we send, read before it leaves: a worker can answer (and
    // a test can step the virtual clock) before send() returns.
    const int64_t sent_ns = clock_.now_ns();
    links_[i].send(wire::encode(s));
    links_[i].mark_running(sent_ns);
  }
  spdlog::info("start: {} {} to {} worker(s), shard={}; T0 once every engine is ready",
               plan_read_      ? "each worker reads its share (saved plan) of"
               : self_routing_ ? "each worker reads and routes"
                               : "streaming",
               r.trace_path, links_.size(), plan::shard_mode_name(o_.router.mode));
}

// The routing thread's queues and one packer per link, each encoding as its link travels.
void FleetRun::open_feed() {
  feed_ = std::make_unique<RouteFeed>(links_.size(), static_cast<size_t>(o_.max_pending_batches));
  packers_.reserve(links_.size());  // the fan-out keeps pointers
  for (size_t i = 0; i < links_.size(); ++i) {
    packers_.emplace_back(*feed_, i, links_[i].codec(), links_[i].codec_level(),
                          links_[i].shared_trace());
  }
  if (o_.router.mode == plan::ShardMode::None) {
    std::vector<BatchPacker*> all;
    for (BatchPacker& p : packers_) all.push_back(&p);
    if (BatchFanout::can_share(all)) fanout_ = std::make_unique<BatchFanout>(std::move(all));
  }
  links_.feed_from(feed_.get());
}

void FleetRun::send_go_when_ready() {
  if (t0_ || phase_ < Phase::Stream) return;
  std::vector<NodeReadiness> nodes;
  for (const auto& l : links_) {
    nodes.push_back({l->node_name(), l->finished(), l->ready(), l->ready_ns(), l->engine_build_ns(),
                     l->clock_uncertainty_ns()});
  }
  T0Inputs in;
  in.handshake_end_ns = connected_ns_;
  in.now_ns = clock_.now_ns();
  in.queued_ns = queued_ns_;
  in.start_delay_ns = static_cast<int64_t>(o_.start_delay_s * 1e9);
  in.start_at_ns = o_.start_at_mono_ns;
  t0_ = decide_t0(nodes, in);
  if (!t0_) return;
  t0_ns_ = t0_->t0_ns;
  // The workers start replaying at T0 (protocol.md § 3: at every speed); a virtual clock's T0
  // is no instant of the real one, and its replay starts as GO arrives.
  go_lead_ns_ = o_.replay.virtual_clock ? 0 : std::max<int64_t>(0, t0_ns_ - clock_.now_ns());
  go_real_ns_ = util::RealClock::instance().now_ns();
  go_cpu_s_ = util::process_cpu_s();
  for (auto& l : links_) {
    if (l->finished()) continue;
    wire::Go go;
    go.t0_worker_ns = t0_ns_ + l->clock_offset_ns();
    l->send(wire::encode(go));
  }
  if (t0_->start_at_missed_ns > 0) {
    spdlog::warn("--start-at: the workers were ready {:.0f} ms too late; T0 moved",
                 static_cast<double>(t0_->start_at_missed_ns) / 1e6);
  }
  spdlog::info(
      "start: T0 {:.1f} ms after the handshake (waited for {}; slowest engine {} {:.1f} ms)",
      static_cast<double>(t0_ns_ - connected_ns_) / 1e6, t0_->waited_for, t0_->slowest_node,
      static_cast<double>(t0_->slowest_engine_build_ns) / 1e6);
}

bool FleetRun::interrupted() { return g_interrupt.load(); }

bool FleetRun::should_stop() {
  if (aborted_) return true;
  if (g_interrupt.load()) {
    aborted_ = true;
    abort_reason_ = "interrupted";
  } else if (links_.any_lost() && o_.on_worker_loss == OnWorkerLoss::Abort) {
    aborted_ = true;
    abort_reason_ = "a worker was lost (--on-worker-loss abort)";
  }
  if (aborted_) {
    spdlog::warn("stopping every worker: {}", abort_reason_);
    abort_workers(abort_reason_);
  }
  return aborted_;
}

void FleetRun::abort_workers(const std::string& reason) {
  wire::Abort a;
  a.reason = reason;
  links_.send_to_unfinished(wire::encode(a));
}

// The run ends before START: the workers that welcomed it would hold their run slot for
// this coordinator until its silence counts as lost (1.5 s); an ABORT frees them now.
void FleetRun::release_workers(const std::string& reason) {
  wire::Abort a;
  a.reason = reason;
  const std::string payload = wire::encode(a);
  for (auto& l : links_) {
    if (l->state() == WorkerLink::State::Ready) l->send_last(payload);
  }
}

void FleetRun::service_links(int timeout_ms) {
  static const LinkSet::Handler on_msg = [](WorkerLink& l, const wire::Envelope& env) {
    l.handle(env);
  };
  links_.poll(timeout_ms, on_msg);
  links_.tick(on_msg);
  collect_windows();
  send_go_when_ready();
}

void FleetRun::collect_windows() {
  int alive = 0;
  for (auto& l : links_) {
    alive += l->state() != WorkerLink::State::Lost;
    if (!timeseries_) continue;
    const std::string name = l->node_name();
    for (const stats::RunWindow& w : l->take_windows()) timeseries_->add(name, w);
  }
  nodes_alive_.store(alive, std::memory_order_relaxed);
}

// The control thread while the routing thread routes (route_all): ready batches to the socket
// under credit, the workers' messages, heartbeats, loss and GO. It never waits on routing: the
// routing thread wakes it (RouteFeed's eventfd) when a link's queue gets a batch or routing ends.
void FleetRun::stream() {
  if (have_record_) routing_ = std::thread([this] { route_all(); });
  while (routing_.joinable() && !should_stop()) {
    pump_batches();
    if (feed_->finished()) break;
    service_links(20);
  }
  end_routing();
  for (auto& l : links_) l->want_end();
  streamed_ns_ = clock_.now_ns();
  save_routes();
  if (queued_ns_ == 0) {  // all of it fit before the first wait
    queued_ns_ = streamed_ns_;
    send_go_when_ready();
  }
}

void FleetRun::end_routing() {
  if (!routing_.joinable()) return;
  feed_->stop();  // a stop (interrupt, loss): the thread returns at its next record
  routing_.join();
  if (routing_error_.what.empty()) return;
  // A damaged trace (or plan) mid-read: stop every worker.
  spdlog::error("{}", routing_error_.what);
  abort_workers(routing_error_.abort_reason);
  aborted_ = true;
  abort_reason_ = routing_error_.what;
}

void FleetRun::pump_batches() {
  note_first_batches();
  const bool blocked = links_.pump(o_.credit_window);
  if (blocked && queued_ns_ == 0) {
    // The workers send nothing while they wait for GO: decide now, not after a poll timeout.
    queued_ns_ = clock_.now_ns();
    send_go_when_ready();
  }
}

// The routing thread: route, pack, queue; blocks while some worker's queue is full.
void FleetRun::route_all() {
  // Ctrl-C goes to the control thread, whose poll it ends at once.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    while (have_record_ && !feed_->stop_requested()) {
      if (!(saved_routes_ ? replay_saved_one() : route_one())) break;
    }
    if (fanout_) fanout_->flush();
    for (BatchPacker& p : packers_) p.flush();
  } catch (const std::exception& e) {  // not the trace's: the run still stops in order
    routing_failed(e.what(), "routing error");
  }
  routing_cpu_s_ = util::thread_cpu_s();
  feed_->finish(routing_error_.what);
}

void FleetRun::routing_failed(std::string what, std::string abort_reason) {
  routing_error_ = {std::move(what), std::move(abort_reason)};
}

bool FleetRun::route_one() {
  if (o_.before_route) o_.before_route();
  const auto& routes = plan::route_or_reject(*router_, *reader_, rec_);
  if (cut_edges_ && !routes.empty())
    cut_edges_->add(rec_, static_cast<uint32_t>(routes.front().worker));
  if (routes_writer_)  // --shard none: one entry for every worker
    routes_writer_->add_record(routes, rec_.file_offset, o_.router.mode == plan::ShardMode::None);
  if (fanout_) {
    // --shard none: the same record for every worker, batched and encoded once.
    if (!routes.empty()) fanout_->add_record(routes[0].body, rec_.file_offset, routes[0].original);
  } else {
    for (const auto& route : routes) {
      BatchPacker& link = packers_[static_cast<size_t>(route.worker)];
      if (!link.closed())
        link.add_record(route.body, route.t_shift, rec_.file_offset, route.original, route.key_mask,
                        route.mask_keys);
    }
  }
  feed_->wait_for_room();  // false: stopped; the next record is still read (accounting)
  try {
    have_record_ = reader_->next(rec_);
  } catch (const std::exception& e) {  // a damaged trace mid-read: the control thread stops all
    routing_failed(e.what(), "trace read error");
    return false;
  }
  return true;
}

// Every live worker has a batch to start on (queued or already sent): T0 need not wait until the
// coordinator blocks on credit. With time sharding that took routing every worker's whole
// credit window first (a third of a 100k-record trace at --local 4, ~70 ms) while the workers
// sat idle.
void FleetRun::note_first_batches() {
  if (queued_ns_ != 0) return;
  for (size_t i = 0; i < links_.size(); ++i) {
    const WorkerLink& l = links_[i];
    if (!l.finished() && l.counters().batches_sent + feed_->queued(i) == 0) return;
  }
  queued_ns_ = clock_.now_ns();
  send_go_when_ready();
}

// Remaining batches, then every DONE (partial ones after an abort, for at most 2 s).
void FleetRun::drain() {
  int64_t abort_deadline = 0;
  while (true) {
    links_.pump(o_.credit_window);
    if (links_.all_finished()) break;
    if (should_stop() && abort_deadline == 0) abort_deadline = clock_.now_ns() + 2'000'000'000;
    if (abort_deadline && clock_.now_ns() > abort_deadline) {
      for (auto& l : links_)
        if (!l->finished()) l->mark_unresponsive("no result within 2 s of ABORT");
      break;
    }
    service_links(20);
  }
  links_.settle();  // what was never sent counts as sent to its link, never confirmed
  collected_ns_ = clock_.now_ns();
  collected_real_ns_ = util::RealClock::instance().now_ns();
  collected_cpu_s_ = util::process_cpu_s();
}

}  // namespace fleet::session
