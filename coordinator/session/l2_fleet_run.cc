#include "fleet/coordinator/session/l2_fleet_run.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <optional>

#include "fleet/coordinator/session/known_workers.h"
#include "fleet/coordinator/session/l2_local_run.h"
#include "fleet/coordinator/session/local_workers.h"
#include "fleet/coordinator/session/t0_decision.h"
#include "fleet/insight/report/outputs.h"
#include "fleet/insight/report/progress.h"
#include "fleet/l2replay/l2_fleet_stats.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/util/clock.h"
#include "fleet/util/clock_kind.h"
#include "fleet/util/output_file.h"
#include "fleet/wire/protocol.h"
#include "fleet_keys.h"
#include "handshake.h"
#include "l2_fleet_inputs.h"
#include "link_set.h"

namespace fleet::session {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

class L2FleetRun {
 public:
  L2FleetRun(FleetOptions o, util::Clock& clock)
      : o_(std::move(o)),
        clock_(clock),
        links_(clock, int64_t{o_.heartbeat_ms} * 1'000'000,
               int64_t{o_.heartbeat_ms} * 1'000'000 * wire::kLostAfterHeartbeats) {}

  ExitCode run() {
    if (Status s = prepare(); !s) return fail(s);
    if (Status s = connect(); !s) {
      release_workers(s.message());
      return fail(s);
    }
    estimate_clocks(links_, clock_);
    start_workers();
    g_stop.store(false);
    auto old_int = std::signal(SIGINT, on_signal);
    auto old_term = std::signal(SIGTERM, on_signal);
    {
      report::ProgressReporter progress(
          [this] { return progress_sample(); },
          o_.replay.output.quiet ? report::ProgressReporter::Mode::Never : o_.replay.progress);
      wait_for_results();
    }
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
    return report();
  }

 private:
  ExitCode fail(const Status& s) const {
    spdlog::error("{}", s.message());
    return s.code();
  }

  Status prepare() {
    auto shard = l2_fleet_shard(o_);
    if (!shard) return shard.status();
    shard_ = shard.value();
    files_ = l2_trace_files(o_.replay);
    if (files_.size() > wire::kMaxL2TraceFiles) {
      return Status::error("FILE: " + std::to_string(files_.size()) +
                           " L2 trace files; a worker takes at most " +
                           std::to_string(wire::kMaxL2TraceFiles));
    }
    auto shifts = l2_file_shifts(files_, o_.replay.max_frame_bytes);
    if (!shifts) return shifts.status();
    shifts_ = std::move(shifts).value();
    // No engine.validate(): its L1 checks mean nothing without an L1; the L2 adapter is
    // checked where it is built (each worker's L2Target).
    if (o_.local > 0) {
      for (int i = 0; i < o_.local; ++i) addresses_.push_back({"local", i, ""});
    } else {
      auto resolved = resolve_workers(o_.workers_spec);
      if (!resolved) return resolved.status();
      addresses_ = std::move(resolved).value();
    }
    if (o_.expect_workers > 0 && static_cast<int>(addresses_.size()) != o_.expect_workers)
      return Status::error("--expect-workers " + std::to_string(o_.expect_workers) + ": found " +
                           std::to_string(addresses_.size()) + " worker(s)");
    if (Status s = load_fleet_keys(o_, addresses_, curve_); !s) return s;
    for (size_t i = 0; i < addresses_.size(); ++i)
      names_.push_back(o_.local > 0 ? "local-" + std::to_string(i) : addresses_[i].name());
    return report::prepare_output_dir(o_.replay.output.output_dir);
  }

  Status connect() {
    if (o_.local > 0) {
      auto started =
          LocalWorkers::start(o_.local, o_.local_worker_args, curve_ ? &*curve_ : nullptr);
      if (!started) return started.status();
      local_ = std::move(started).value();
      addresses_ = local_->addresses();
    }
    const std::string prefix = "coord-" + std::to_string(getpid()) + "-";
    links_.open(ctx_, curve_ ? &*curve_ : nullptr);  // one socket for every link (LinkRouter)
    const std::string fingerprint = curve_ ? security::fingerprint(curve_->public_z85) : "";
    for (size_t i = 0; i < addresses_.size(); ++i)
      links_.add(std::make_unique<WorkerLink>(links_.router(), addresses_[i],
                                              prefix + std::to_string(i), links_.next_peer_id(),
                                              fingerprint));
    TraceOffer none;  // the workers open the L2 files named in START, not a mapped trace
    none.offered.assign(addresses_.size(), false);
    return handshake(links_, none, o_.connect_timeout_ms, clock_);
  }

  // The paths as the workers see them: absolute, or --worker-trace-path for a single file.
  std::vector<std::string> worker_paths() const {
    std::vector<std::string> out;
    for (const std::string& f : files_)
      out.push_back(std::filesystem::absolute(f).lexically_normal().string());
    if (files_.size() == 1 && !o_.worker_trace_path.empty()) out[0] = o_.worker_trace_path;
    return out;
  }

  void start_workers() {
    const ReplayOptions& r = o_.replay;
    wire::L2Run l2;
    l2.on = true;
    l2.trace_paths = worker_paths();
    l2.shift_s = shifts_;
    l2.shard = std::string(l2replay::l2_shard_name(shard_));
    if (shard_ == l2replay::L2Shard::Key) l2.worker_names = names_;
    l2.trace_percent = r.l2.trace_percent;
    l2.drain_timeout_s = r.l2.drain_timeout_s;
    l2.max_frame_bytes = r.max_frame_bytes;
    l2.prepare = r.l2.prepare || r.l2.prepare_only;
    l2.prepare_only = r.l2.prepare_only;
    started_ns_ = clock_.now_ns();
    for (size_t i = 0; i < links_.size(); ++i) {
      wire::Start s;
      s.speed = r.speed;
      s.clock = util::clock_name(util::clock_kind(r.virtual_clock));
      if (o_.send_engine_config) s.engine_config_json = r.engine.lmcache_json_text();
      s.l2_key_namespace = r.engine.l2_key_namespace;
      s.node_index = static_cast<int>(i);
      s.node_count = static_cast<int>(links_.size());
      s.trace_level = "l2";
      s.l2 = l2;
      const int64_t sent_ns = clock_.now_ns();  // before it leaves (fleet_run.cc: the same)
      links_[i].send(wire::encode(s));
      links_[i].mark_running(sent_ns);
    }
    for (size_t f = 0; f < files_.size(); ++f) {
      spdlog::info("L2 file {} ({}): {}", f, files_[f],
                   shard_ == l2replay::L2Shard::Source ? "on " + names_[f % names_.size()]
                                                       : std::string("read by every worker"));
    }
    spdlog::info(
        "start: {} L2 file(s) to {} worker(s), --shard {}; T0 once every adapter is ready{}",
        files_.size(), links_.size(), l2replay::l2_shard_name(shard_),
        l2.prepare ? " and has seeded its prepared objects" : "");
  }

  void send_go_when_ready() {
    if (t0_) return;
    std::vector<NodeReadiness> nodes;
    for (const auto& l : links_)
      nodes.push_back({l->node_name(), l->finished(), l->ready(), l->ready_ns(),
                       l->engine_build_ns(), l->clock_uncertainty_ns()});
    T0Inputs in;
    in.handshake_end_ns = started_ns_;
    in.now_ns = clock_.now_ns();
    in.queued_ns = started_ns_;  // nothing to queue: the workers read the files
    in.start_delay_ns = static_cast<int64_t>(o_.start_delay_s * 1e9);
    in.start_at_ns = o_.start_at_mono_ns;
    t0_ = decide_t0(nodes, in);
    if (!t0_) return;
    spdlog::info(
        "T0: every worker ready {:.0f} ms after START (slowest: {}, {:.0f} ms to plan, "
        "build its adapter{})",
        static_cast<double>(t0_->ready_ns - started_ns_) / 1e6, t0_->slowest_node,
        static_cast<double>(t0_->slowest_engine_build_ns) / 1e6,
        o_.replay.l2.prepare || o_.replay.l2.prepare_only ? " and seed" : "");
    for (auto& l : links_) {
      if (l->finished()) continue;
      wire::Go go;
      go.t0_worker_ns = t0_->t0_ns + l->clock_offset_ns();
      l->send(wire::encode(go));
    }
  }

  // The live line from the workers' PROGRESS (l2_replay_run.cc): operations issued as the
  // records, the slowest node's finished share as the fraction (its ETA is the run's). The
  // reporter's thread: atomics only.
  report::ProgressSample progress_sample() const {
    report::ProgressSample s;
    double least = 2.0;
    for (const auto& l : links_) {
      const WorkerLink::LiveProgress& p = l->live();
      s.records += p.records.load(std::memory_order_relaxed);
      s.failed += p.failed.load(std::memory_order_relaxed);
      s.trace_time_s = std::max(s.trace_time_s, p.trace_time_s.load(std::memory_order_relaxed));
      s.lag_ns = std::max(s.lag_ns, p.last_lateness_ns.load(std::memory_order_relaxed));
      const double f = p.read_fraction.load(std::memory_order_relaxed);
      least = std::min(least, f < 0.0 ? 0.0 : f);  // a node not replaying yet: nothing done
    }
    s.fraction = least > 1.0 ? -1.0 : least;
    s.nodes_alive = nodes_alive_.load(std::memory_order_relaxed);
    s.nodes_total = static_cast<int>(links_.size());
    return s;
  }

  // Heartbeats, loss, GO, every DONE; an interrupt or a loss (--on-worker-loss abort) sends
  // ABORT and waits at most 2 s for the partial results.
  void wait_for_results() {
    static const LinkSet::Handler on_msg = [](WorkerLink& l, const wire::Envelope& env) {
      l.handle(env);
    };
    int64_t abort_deadline = 0;
    while (!links_.all_finished()) {
      const bool lost = links_.any_lost() && o_.on_worker_loss == OnWorkerLoss::Abort;
      if ((g_stop.load() || lost) && abort_deadline == 0) {
        abort_reason_ =
            g_stop.load() ? "interrupted" : "a worker was lost (--on-worker-loss abort)";
        spdlog::warn("stopping every worker: {}", abort_reason_);
        wire::Abort a;
        a.reason = abort_reason_;
        links_.send_to_unfinished(wire::encode(a));
        abort_deadline = clock_.now_ns() + 2'000'000'000;
      }
      if (abort_deadline && clock_.now_ns() > abort_deadline) {
        for (auto& l : links_)
          if (!l->finished()) l->mark_unresponsive("no result within 2 s of ABORT");
        break;
      }
      links_.poll(20, on_msg);
      links_.tick(on_msg);
      send_go_when_ready();
      int alive = 0;
      for (const auto& l : links_) alive += l->state() != WorkerLink::State::Lost;
      nodes_alive_.store(alive, std::memory_order_relaxed);
    }
  }

  std::vector<l2replay::L2FleetNode> collect() {
    std::vector<l2replay::L2FleetNode> nodes;
    for (auto& l : links_) {
      l2replay::L2FleetNode n;
      n.name = l->node_name();
      std::optional<wire::NodeResult> res = l->take_result();
      n.status = res ? wire::node_status_name(res->status) : "lost";
      n.why = res ? "" : (l->abort_reason().empty() ? l->lost_reason() : l->abort_reason());
      if (res && !res->l2_replay.is_object()) {
        n.status = "lost";
        n.why = "its result carries no L2 replay (a worker of another build?)";
      } else if (res) {
        auto parsed = l2replay::l2_node_result_from(res->l2_replay, res->stats);
        if (parsed) {
          n.result = std::move(parsed).value();
        } else {
          n.status = "lost";
          n.why = "malformed L2 result: " + parsed.status().message();
        }
      }
      nodes.push_back(std::move(n));
    }
    return nodes;
  }

  ExitCode report() {
    std::vector<size_t> unresponsive;
    for (size_t i = 0; i < links_.size(); ++i)
      if (links_[i].unresponsive()) unresponsive.push_back(i);
    if (local_) local_->stop(unresponsive);
    const std::vector<l2replay::L2FleetNode> nodes = collect();
    const l2replay::L2FleetRunInfo info{shard_, o_.replay.l2.trace_percent, files_,
                                        o_.replay.speed};
    const ReplayOptions& r = o_.replay;
    // Before report.html: its plan section shows what --prepare-l2 seeded.
    if (const auto manifest = l2replay::l2_fleet_prepare_manifest_text(nodes)) {
      const std::string path =
          (std::filesystem::path(r.output.output_dir) / "l2_prepare_manifest.json").string();
      if (Status s = util::write_file_atomically(path, {*manifest}); !s) return fail(s);
      if (!r.output.quiet) std::fputs(l2replay::l2_fleet_prepare_summary(nodes).c_str(), stdout);
    }
    if (r.l2.prepare_only) return final_status(nodes);  // seeded, nothing replayed
    const std::string stats =
        r.l2.stats_out.empty()
            ? (std::filesystem::path(r.output.output_dir) / "l2_replay_stats.json").string()
            : r.l2.stats_out;
    if (Status s = util::write_file_atomically(stats, {l2replay::l2_fleet_stats_text(info, nodes)});
        !s)
      return fail(s);
    write_l2_report_page(r);
    if (!r.output.quiet) {
      std::fputs(l2replay::l2_fleet_terminal_summary(info, nodes).c_str(), stdout);
      std::printf("  stats: %s\n", stats.c_str());
    }
    return final_status(nodes);
  }

  ExitCode final_status(const std::vector<l2replay::L2FleetNode>& nodes) const {
    if (g_stop.load()) return ExitCode::kInterrupted;
    for (const auto& l : links_) {
      if (l->abort_kind() != wire::AbortKind::None) {
        spdlog::error(
            "run stopped: worker {} refused or could not do its share (its reason is "
            "above; exit 2)",
            l->address().name());
        return ExitCode::kBadInput;
      }
    }
    for (const auto& n : nodes) {
      if (n.result) continue;
      spdlog::error("node {} gave no result ({}): the stats hold the other nodes only (exit 3)",
                    n.name, n.why);
      return ExitCode::kRunIncomplete;
    }
    return ExitCode::kOk;
  }

  // Before START: the workers that welcomed the run are freed now, not when they miss us.
  void release_workers(const std::string& reason) {
    wire::Abort a;
    a.reason = reason;
    const std::string payload = wire::encode(a);
    for (auto& l : links_)
      if (l->state() == WorkerLink::State::Ready) l->send_last(payload);
  }

  FleetOptions o_;
  util::Clock& clock_;
  l2replay::L2Shard shard_ = l2replay::L2Shard::None;
  std::vector<std::string> files_;
  std::vector<double> shifts_;
  std::vector<WorkerAddress> addresses_;
  std::vector<std::string> names_;
  std::optional<security::CurveKeyPair> curve_;
  std::unique_ptr<LocalWorkers> local_;
  zmq::context_t ctx_{1};
  LinkSet links_;
  int64_t started_ns_ = 0;
  std::optional<T0Decision> t0_;
  std::string abort_reason_;
  std::atomic<int> nodes_alive_{0};
};

}  // namespace

bool is_l2_trace_file(const std::string& path) {
  // Only a regular file is peeked at: reading a pipe's header here would take it from the run.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    trace::FrameReader reader(path);
    return reader.header().level == trace::kLevelL2;
  } catch (const std::exception&) {  // unreadable: the storage path says why
    return false;
  }
}

ExitCode run_l2_fleet(FleetOptions options, util::Clock& clock) {
  L2FleetRun run(std::move(options), clock);
  return run.run();
}

}  // namespace fleet::session
