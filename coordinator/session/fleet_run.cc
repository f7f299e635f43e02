#include "fleet/util/build_info.h"
#include "fleet/session/fleet_run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>
#include <zmq.hpp>

#include "fleet/report/outputs.h"
#include "fleet/report/progress.h"
#include "fleet/report/run_report.h"
#include "fleet/session/batch_fanout.h"
#include "fleet/session/local_workers.h"
#include "fleet/session/worker_link.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/clock.h"
#include "fleet/util/pyjson.h"
#include "fleet/wire/poll.h"

namespace fleet::session {

namespace {

std::atomic<bool> g_interrupt{false};
void on_signal(int) { g_interrupt.store(true); }

int64_t now_ns() { return util::RealClock::instance().now_ns(); }

using Links = std::vector<std::unique_ptr<WorkerLink>>;

// Polls every unfinished link for up to `timeout_ms` and hands each message to `fn`.
template <class Fn>
void poll_links(Links& links, int timeout_ms, Fn&& fn) {
  std::vector<zmq::pollitem_t> items;
  std::vector<WorkerLink*> owners;
  for (auto& l : links) {
    if (l->finished()) continue;
    items.push_back({l->socket().handle(), 0, ZMQ_POLLIN, 0});
    owners.push_back(l.get());
  }
  if (items.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return;
  }
  wire::poll_sockets(items.data(), items.size(), std::chrono::milliseconds(timeout_ms));
  for (size_t i = 0; i < items.size(); ++i) {
    if (!(items[i].revents & ZMQ_POLLIN)) continue;
    while (auto env = owners[i]->receive_one()) {
      owners[i]->heard(now_ns());
      if (env->type.empty()) continue;
      fn(*owners[i], *env);
    }
  }
}

struct Liveness {
  int64_t beat_ns;
  int64_t lost_ns;
  int64_t last_beat = 0;
  int64_t last_tick = 0;
  // `fn` handles messages found while checking a silent worker (see below).
  template <class Fn>
  void tick(Links& links, Fn&& fn) {
    int64_t now = now_ns();
    if (last_tick != 0 && now - last_tick > 2 * beat_ns) {
      spdlog::warn("the coordinator's own loop stalled for {} ms (an overloaded host?)",
                   (now - last_tick) / 1'000'000);
    }
    last_tick = now;
    if (now - last_beat >= beat_ns) {
      last_beat = now;
      std::string hb = wire::encode(wire::Heartbeat{});
      for (auto& l : links)
        if (!l->finished()) l->send(hb);
    }
    for (auto& l : links) {
      if (l->finished() || l->state() == WorkerLink::State::Connecting) continue;
      if (now - l->last_heard_ns() > lost_ns) {
        // Silence is measured by what this loop has read: when the loop itself was slow (a
        // long DONE decode, a stalled VM), the worker's messages may be waiting in the socket.
        // Read them before declaring it lost.
        while (auto env = l->receive_one()) {
          l->heard(now_ns());
          if (!env->type.empty()) fn(*l, *env);
        }
        if (l->finished() || now_ns() - l->last_heard_ns() <= lost_ns) continue;
        now = now_ns();
        spdlog::error("worker {} silent for {} ms: lost", l->address().name(),
                      (now - l->last_heard_ns()) / 1'000'000);
        l->mark_lost("no heartbeat for " + std::to_string((now - l->last_heard_ns()) / 1'000'000) + " ms");
      }
    }
  }
};

bool any_lost(const Links& links) {
  for (const auto& l : links)
    if (l->state() == WorkerLink::State::Lost) return true;
  return false;
}

void abort_all(Links& links, const std::string& reason) {
  wire::Abort a;
  a.reason = reason;
  std::string payload = wire::encode(a);
  for (auto& l : links)
    if (!l->finished()) l->send(payload);
}

// Handshake: HELLO, WELCOME within the connect timeout; refusals are fatal with the worker's
// own message.
// --trace-access: the workers offered the trace file itself, so that records travel as
// references (trace/shared_trace.h), and what their copy must match.
struct TraceOffer {
  std::string path;  // as the workers see it
  trace::TraceIdentity identity;
  std::vector<bool> offered;  // per link
};

TraceOffer plan_trace_offer(const FleetOptions& o, const std::vector<WorkerAddress>& addresses) {
  TraceOffer offer;
  offer.offered.assign(addresses.size(), false);
  if (o.trace_access == "stream") return offer;
  const bool shared = o.trace_access == "shared";
  try {
    offer.identity = trace::identify_trace(o.replay.trace_path);
  } catch (const trace::TraceError& e) {
    if (shared) throw std::invalid_argument(std::string("--trace-access shared: ") + e.what());
    spdlog::info("records travel in batches: {}", e.what());  // e.g. a trace read from a pipe
    return offer;
  }
  offer.path = o.worker_trace_path.empty()
                   ? std::filesystem::absolute(o.replay.trace_path).lexically_normal().string()
                   : o.worker_trace_path;
  for (size_t i = 0; i < addresses.size(); ++i) {
    offer.offered[i] = shared || o.local > 0 || is_loopback_host(addresses[i].host);
  }
  return offer;
}

// After the handshake: references to every worker that mapped and verified the trace. With
// --trace-access shared a worker that could not is an error; with auto it gets batches.
bool apply_trace_offer(Links& links, const TraceOffer& offer, bool required, std::string& error) {
  for (size_t i = 0; i < links.size(); ++i) {
    if (!offer.offered[i]) continue;
    WorkerLink& l = *links[i];
    if (l.welcome.trace_shared) {
      l.use_shared_trace();
    } else if (required) {
      error = "worker " + l.address().name() + " cannot read the trace itself (--trace-access " +
              "shared): " + l.welcome.trace_error;
      return false;
    } else {
      spdlog::info("worker {}: records travel in batches (shared trace unavailable: {})",
                   l.address().name(), l.welcome.trace_error);
    }
  }
  return true;
}

bool handshake(Links& links, const TraceOffer& offer, int timeout_ms, std::string& error) {
  wire::Hello h;
  h.build_id = util::build_id();
  h.run_id = std::to_string(getpid()) + "-" + std::to_string(now_ns());
  const std::string plain = wire::encode(h);
  h.trace_path = offer.path;
  h.trace_size = offer.identity.size;
  h.trace_fingerprint = offer.identity.fingerprint;
  const std::string with_trace = wire::encode(h);
  for (size_t i = 0; i < links.size(); ++i) links[i]->send(offer.offered[i] ? with_trace : plain);
  int64_t deadline = now_ns() + int64_t{timeout_ms} * 1'000'000;
  size_t ready = 0;
  while (ready < links.size() && now_ns() < deadline) {
    poll_links(links, 50, [&](WorkerLink& l, const wire::Envelope& env) {
      if (env.type != "welcome" || l.state() != WorkerLink::State::Connecting) return;
      if (env.version != wire::kProtocolVersion) {
        l.mark_rejected("worker speaks protocol version " + std::to_string(env.version) +
                        ", this coordinator speaks " + std::to_string(wire::kProtocolVersion));
        return;
      }
      auto w = env.as<wire::Welcome>();
      if (!w.reject.empty()) {
        l.mark_rejected(w.reject);
        return;
      }
      l.welcome = w;
      l.state_ = WorkerLink::State::Ready;
      ++ready;
      if (w.build_id != util::build_id()) {
        spdlog::warn("worker {} runs build {}, coordinator {}", l.address().name(), w.build_id,
                     util::build_id());
      }
    });
    for (auto& l : links) {
      if (l->state() == WorkerLink::State::Rejected) {
        error = "worker " + l->address().name() + " refused the run: " + l->lost_reason;
        return false;
      }
    }
  }
  if (ready < links.size()) {
    for (auto& l : links) {
      if (l->state() == WorkerLink::State::Connecting) {
        error = "worker " + l->address().name() + " did not answer within " +
                std::to_string(timeout_ms) + " ms (--connect-timeout)";
      }
    }
    return false;
  }
  return true;
}

// NTP-style offset per worker: 8 round trips, keep the one with the smallest RTT.
void estimate_clocks(Links& links) {
  for (auto& l : links) {
    int64_t best_rtt = INT64_MAX;
    for (int i = 0; i < 8; ++i) {
      wire::Ping p;
      p.seq = i;
      p.coord_ns = now_ns();
      l->send(wire::encode(p));
      int64_t deadline = now_ns() + 1'000'000'000;
      bool got = false;
      while (!got && now_ns() < deadline) {
        zmq::pollitem_t item{l->socket().handle(), 0, ZMQ_POLLIN, 0};
        wire::poll_sockets(&item, 1, std::chrono::milliseconds(20));
        while (auto env = l->receive_one()) {
          int64_t t1 = now_ns();
          l->heard(t1);
          if (env->type != "pong") continue;
          auto pong = env->as<wire::Pong>();
          if (pong.seq != i) continue;
          int64_t rtt = t1 - pong.coord_ns;
          if (rtt < best_rtt) {
            best_rtt = rtt;
            l->clock_offset_ns = pong.worker_ns - (pong.coord_ns + t1) / 2;
            l->clock_uncertainty_ns = rtt / 2;
          }
          got = true;
        }
      }
    }
  }
}

// The record's routes; none for a record the deferred args check finds malformed, which the
// reader then counts and reports exactly as if it had refused the frame itself.
const std::vector<plan::Route>& route_or_reject(plan::ShardRouter& router,
                                                trace::FrameReader& reader,
                                                const trace::RecordView& rec) {
  static const std::vector<plan::Route> kNone;
  try {
    return router.route(rec);
  } catch (const trace::MalformedRecord& e) {
    reader.reject_malformed(rec, e.what());
    return kNone;
  }
}

std::string codec_label(wire::BatchCodec c, int level) {
  return c == wire::BatchCodec::None ? "none" : "zstd:" + std::to_string(level);
}

// --compression auto: no compression to a worker on this host (loopback), where it only costs
// CPU on both ends; zstd to every other (a real network, or a container bridge).
wire::BatchCodec choose_codec(const std::string& mode, bool local, const WorkerAddress& a) {
  if (mode == "none") return wire::BatchCodec::None;
  if (mode == "zstd") return wire::BatchCodec::Zstd;
  return local || is_loopback_host(a.host) ? wire::BatchCodec::None : wire::BatchCodec::Zstd;
}

// The coordinator's own cost, so a run can show that its memory stays bounded (credit flow)
// and how much CPU one coordinator spends per record (projecting to large fleets).
nlohmann::json coordinator_usage(int64_t t0_ns, uint64_t records_sent) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return {{"peak_rss_bytes", static_cast<uint64_t>(ru.ru_maxrss) * 1024},
          {"cpu_user_s", secs(ru.ru_utime)},
          {"cpu_system_s", secs(ru.ru_stime)},
          {"records_sent", records_sent},
          {"wall_since_t0_s", static_cast<double>(now_ns() - t0_ns) / 1e9}};
}

}  // namespace

int run_fleet(FleetOptions o) {
  const int64_t began_ns = now_ns();
  ReplayOptions& r = o.replay;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = r.max_frame_bytes;
  // The router's scan (or decode, for key sharding) validates each record's args in its own
  // walk; route_or_reject hands a record that fails to the reader's malformed count.
  ro.defer_args_check = true;
  std::unique_ptr<trace::FrameReader> reader;
  std::vector<WorkerAddress> addresses;
  std::unique_ptr<LocalWorkers> local;
  try {
    reader = std::make_unique<trace::FrameReader>(r.trace_path, ro);
    check_replayable(r.trace_path, reader->header().level, reader->header().trace_schema_version);
    if (o.send_engine_config) r.engine.validate();
    if (o.local > 0) {
      for (int i = 0; i < o.local; ++i) addresses.push_back({"local", i});
    } else {
      addresses = resolve_workers(o.workers_spec);
      // A headless service lists replicas as they become ready: with --expect-workers, keep
      // resolving until they are all there or --connect-timeout passes.
      const bool dns = o.workers_spec.rfind("dns:", 0) == 0;
      const int64_t until = now_ns() + int64_t{o.connect_timeout_ms} * 1'000'000;
      while (dns && o.expect_workers > 0 && static_cast<int>(addresses.size()) < o.expect_workers &&
             now_ns() < until) {
        spdlog::info("{}: {} of {} workers resolved; waiting", o.workers_spec, addresses.size(),
                     o.expect_workers);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        addresses = resolve_workers(o.workers_spec);
      }
    }
    if (o.expect_workers > 0 && static_cast<int>(addresses.size()) != o.expect_workers) {
      throw std::runtime_error("--expect-workers " + std::to_string(o.expect_workers) + ": found " +
                               std::to_string(addresses.size()) + " worker(s) in " +
                               (o.local ? std::string("--local") : o.workers_spec));
    }
    if (!o.plan_only) report::prepare_output_dir(r.output.output_dir);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 2;
  }

  o.router.worker_names.clear();
  for (size_t i = 0; i < addresses.size(); ++i) {
    o.router.worker_names.push_back(o.local > 0 ? "local-" + std::to_string(i) : addresses[i].name());
  }

  if (o.plan_only) {
    try {
      plan::ShardRouter router(o.router);
      trace::RecordView rec;
      while (reader->next(rec)) route_or_reject(router, *reader, rec);
      std::string text = router.render_plan();
      std::fwrite(text.data(), 1, text.size(), stdout);
      if (r.output.format == "json") {
        std::string j = util::py_json_dumps_indent(router.plan_json(), 2) + "\n";
        std::fwrite(j.data(), 1, j.size(), stdout);
      }
      return 0;
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return 2;
    }
  }

  if (o.local > 0) {
    try {
      local = std::make_unique<LocalWorkers>(o.local, o.local_worker_args);
      addresses = local->addresses();
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return 2;
    }
  }

  zmq::context_t ctx(1);
  Links links;
  std::string ident_prefix = "coord-" + std::to_string(getpid()) + "-";
  for (size_t i = 0; i < addresses.size(); ++i) {
    links.push_back(std::make_unique<WorkerLink>(ctx, addresses[i], ident_prefix + std::to_string(i)));
    links.back()->set_codec(choose_codec(o.compression, o.local > 0, addresses[i]),
                            o.compression_level);
  }
  std::string error;
  TraceOffer offer;
  try {
    offer = plan_trace_offer(o, addresses);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  if (!handshake(links, offer, o.connect_timeout_ms, error) ||
      !apply_trace_offer(links, offer, o.trace_access == "shared", error)) {
    spdlog::error("{}", error);
    return 2;
  }
  estimate_clocks(links);
  for (auto& l : links) {
    spdlog::info("worker {} ({}, {} cores): clock offset {:.1f} us +/- {:.1f} us",
                 l->address().name(), l->welcome.hostname, l->welcome.cores,
                 l->clock_offset_ns / 1e3, l->clock_uncertainty_ns / 1e3);
  }

  plan::ShardRouter router(o.router);
  std::unique_ptr<BatchFanout> fanout;
  if (o.router.mode == plan::ShardMode::None) {
    std::vector<WorkerLink*> all;
    for (auto& l : links) all.push_back(l.get());
    if (BatchFanout::can_share(all)) fanout = std::make_unique<BatchFanout>(std::move(all));
  }
  trace::RecordView rec;
  // T0 stands for the first *replayable* record: with the deferred args check, a first frame
  // whose args turn out malformed is counted and skipped here, as the router would.
  bool have_first = false;
  while ((have_first = reader->next(rec))) {
    try {
      trace::check_deferred_args(rec);
      break;
    } catch (const trace::MalformedRecord& e) {
      reader->reject_malformed(rec, e.what());
    }
  }
  const double t_origin = have_first ? rec.t_mono : 0.0;
  const int64_t connected_ns = now_ns();
  const int64_t t0 = connected_ns + static_cast<int64_t>(o.start_delay_s * 1e9);
  int64_t streamed_ns = t0;
  for (size_t i = 0; i < links.size(); ++i) {
    wire::Start s;
    s.t0_worker_ns = t0 + links[i]->clock_offset_ns;
    s.speed = r.speed;
    s.t_origin = r.from_zero ? 0.0 : t_origin;
    s.clock = r.virtual_clock ? "virtual" : "real";
    if (o.send_engine_config) s.engine_config_json = r.engine.lmcache_json_text();
    if (o.send_engine_name) s.engine_name = r.engine.engine_name;
    s.node_index = static_cast<int>(i);
    s.node_count = static_cast<int>(links.size());
    s.trace_level = reader->header().level;
    s.trace_schema = reader->header().trace_schema_version;
    s.credit_window = o.credit_window;
    links[i]->send(wire::encode(s));
    links[i]->state_ = WorkerLink::State::Running;
    links[i]->heard(now_ns());
  }
  spdlog::info("start: T0 in {:.1f} s; streaming {} to {} worker(s), shard={}", o.start_delay_s,
               r.trace_path, links.size(), plan::shard_mode_name(o.router.mode));

  g_interrupt.store(false);
  auto old_int = std::signal(SIGINT, on_signal);
  auto old_term = std::signal(SIGTERM, on_signal);
  Liveness live{int64_t{o.heartbeat_ms} * 1'000'000,
                int64_t{o.heartbeat_ms} * 1'000'000 * wire::kLostAfterHeartbeats};
  auto on_msg = [&](WorkerLink& l, const wire::Envelope& env) { l.handle(env); };
  bool aborted = false;
  std::string abort_reason;
  auto check_abort = [&]() {
    if (aborted) return true;
    if (g_interrupt.load()) {
      aborted = true;
      abort_reason = "interrupted";
    } else if (any_lost(links) && o.on_worker_loss == "abort") {
      aborted = true;
      abort_reason = "a worker was lost (--on-worker-loss abort)";
    }
    if (aborted) {
      spdlog::warn("stopping every worker: {}", abort_reason);
      abort_all(links, abort_reason);
    }
    return aborted;
  };

  {
    report::ProgressReporter progress(
        [&] {
          report::ProgressSample s;
          for (auto& l : links) {
            s.records += static_cast<uint64_t>(l->progress.records);
            s.failed += static_cast<uint64_t>(l->progress.failed);
            s.trace_time_s = std::max(s.trace_time_s, l->progress.trace_time_s - t_origin);
            s.lag_ns = std::max(s.lag_ns, l->progress.last_lateness_ns);
          }
          s.fraction = reader->file_size()
                           ? static_cast<double>(reader->counters().bytes_consumed) / reader->file_size()
                           : -1.0;
          return s;
        },
        r.output.quiet ? report::ProgressReporter::Mode::Never : r.progress);

    // Stream: route, batch, send under credit; block on the slowest worker's queue.
    uint64_t since_service = 0;
    while (have_first && !check_abort()) {
      const auto& routes = route_or_reject(router, *reader, rec);
      if (fanout) {
        // --shard none: the same record for every worker, batched and encoded once.
        if (!routes.empty()) fanout->add_record(routes[0].body, rec.file_offset, routes[0].original);
      } else {
        for (const auto& route : routes) {
          auto& link = links[static_cast<size_t>(route.worker)];
          if (!link->finished()) {
            link->add_record(route.body, route.t_shift, rec.file_offset, route.original);
          }
        }
      }
      bool blocked = false;
      for (auto& l : links) {
        l->pump(o.credit_window);
        if (l->queued_batches() > static_cast<size_t>(o.max_pending_batches)) blocked = true;
      }
      while (blocked && !check_abort()) {
        poll_links(links, 20, on_msg);
        live.tick(links, on_msg);
        blocked = false;
        for (auto& l : links) {
          l->pump(o.credit_window);
          if (l->queued_batches() > static_cast<size_t>(o.max_pending_batches)) blocked = true;
        }
      }
      if (++since_service >= 256) {
        since_service = 0;
        poll_links(links, 0, on_msg);
        live.tick(links, on_msg);
      }
      try {
        have_first = reader->next(rec);
      } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        abort_all(links, "trace read error");
        aborted = true;
        abort_reason = e.what();
        break;
      }
    }
    if (fanout) fanout->flush();
    for (auto& l : links) l->send_end_when_drained();
    streamed_ns = now_ns();

    // Drain: remaining batches, then wait for every DONE (partial ones after an abort).
    int64_t abort_deadline = 0;
    while (true) {
      for (auto& l : links) l->pump(o.credit_window);
      bool all_done = std::all_of(links.begin(), links.end(), [](const auto& l) { return l->finished(); });
      if (all_done) break;
      if (check_abort() && abort_deadline == 0) abort_deadline = now_ns() + 2'000'000'000;
      if (abort_deadline && now_ns() > abort_deadline) {
        for (auto& l : links)
          if (!l->finished()) l->mark_lost("no result within 2 s of ABORT");
        break;
      }
      poll_links(links, 20, on_msg);
      live.tick(links, on_msg);
    }
  }
  const int64_t collected_ns = now_ns();
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);

  report::RunReport rep;
  rep.mode = "fleet";
  rep.speed = r.speed;
  rep.clock = r.virtual_clock ? "virtual" : "real";
  rep.trace = report::trace_info(*reader);
  rep.plan = router.plan_json();
  bool lost = false;
  uint64_t records_sent = 0;
  for (const auto& l : links) records_sent += l->records_sent;
  std::vector<wire::NodeResult> nodes;
  for (auto& l : links) {
    wire::NodeResult node;
    if (l->result) {
      node = std::move(*l->result);
    } else {
      lost = true;
      node.name = l->welcome.hostname.empty() ? l->address().name() : l->welcome.hostname;
      node.status = "lost";
      node.total = static_cast<uint64_t>(l->progress.records);
      node.failed = static_cast<uint64_t>(l->progress.failed);
      // Exactly where it got to, as far as anyone can know: its records are dispatched in the
      // order they were sent, and PROGRESS confirmed the first `records_confirmed` of them.
      node.engine_counters = {
          {"lost_reason", l->lost_reason},
          {"records_finished_at_last_heartbeat", l->progress.records},
          {"records_confirmed_finished", l->records_confirmed},
          {"last_confirmed_trace_offset", l->last_confirmed_offset},
          {"records_unconfirmed", l->records_sent - l->records_confirmed},
          {"first_unconfirmed_trace_offset", l->first_unconfirmed_offset()}};
    }
    node.address = l->address().name();
    node.records_received = l->records_sent;
    node.clock_offset_ns = l->clock_offset_ns;
    node.clock_uncertainty_ns = l->clock_uncertainty_ns;
    if (aborted && node.status == "ok") node.status = "aborted";
    nodes.push_back(std::move(node));
  }
  report::add_nodes(rep, std::move(nodes));
  if (aborted) rep.stopped_early = true;
  rep.extra["coordinator"] = coordinator_usage(t0, records_sent);
  // Where the coordinator's wall time went (writing the outputs comes after and is not here).
  auto secs = [](int64_t a, int64_t b) { return static_cast<double>(b - a) / 1e9; };
  rep.extra["coordinator"]["phase_s"] = {
      {"connect", secs(began_ns, connected_ns)},     // workers started, handshake, clocks
      {"stream", secs(connected_ns, streamed_ns)},   // start delay, routing every record
      {"collect", secs(streamed_ns, collected_ns)},  // last batches, every DONE decoded
      {"merge", secs(collected_ns, now_ns())}};      // union of the nodes' results
  // What the batches cost on the wire: per link codec, and raw vs sent bytes over all links.
  // How records reached each worker: "shared" (references into its own copy of the trace) or
  // "stream" (the records themselves).
  uint64_t raw_bytes = 0, wire_bytes = 0, by_reference = 0;
  nlohmann::json codecs = nlohmann::json::array(), access = nlohmann::json::array();
  for (const auto& l : links) {
    raw_bytes += l->raw_bytes_sent;
    wire_bytes += l->batch_bytes_sent;
    by_reference += l->records_by_reference;
    codecs.push_back(codec_label(l->codec(), l->codec_level()));
    access.push_back(l->shared_trace() ? "shared" : "stream");
  }
  rep.extra["coordinator"]["trace_access"] = access;
  rep.extra["coordinator"]["batch_fanout"] = fanout != nullptr;
  rep.extra["coordinator"]["records_by_reference"] = by_reference;
  rep.extra["coordinator"]["batch_codecs"] = codecs;
  rep.extra["coordinator"]["batch_raw_bytes"] = raw_bytes;
  rep.extra["coordinator"]["batch_wire_bytes"] = wire_bytes;
  int status;
  try {
    status = report::write_outputs(rep, r.output);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  if (local) local->stop();
  if (g_interrupt.load()) return 130;
  for (const auto& l : links) {
    if (l->abort_kind == "config") {
      spdlog::error("run stopped: worker {} refused the engine config (exit 2)", l->address().name());
      return 2;
    }
    if (l->abort_kind == "trace") {
      spdlog::error("run stopped: worker {} could not read the run's records from its copy of "
                    "the trace (its reason is above; exit 2; --trace-access stream sends the "
                    "records instead)", l->address().name());
      return 2;
    }
    if (l->abort_kind == "protocol") {
      spdlog::error("run stopped: worker {} received a damaged or incomplete batch stream, so "
                    "it could not replay every record sent to it (its reason is above; exit 2)",
                    l->address().name());
      return 2;
    }
  }
  if (lost || aborted) {
    spdlog::error("run incomplete: {}", abort_reason.empty() ? "a worker was lost" : abort_reason);
    return 3;
  }
  return status;
}

}  // namespace fleet::session
