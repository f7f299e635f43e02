#include "worker_protocol.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "fleet/causal/pacing.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/replay/replay_session.h"
#include "fleet/trace/msgpack_value.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/build_info.h"
#include "fleet/util/clock.h"
#include "fleet/util/clock_kind.h"
#include "fleet/util/malloc_tuning.h"
#include "fleet/wire/batch.h"
#include "fleet/wire/owned_message.h"
#include "fleet/wire/poll.h"
#include "self_routed_source.h"
#include "start_limits.h"

namespace fleet::service {

namespace {

std::string default_engine_digest(const storage::EngineConfig& cfg) {
  try {
    return cfg.digest();
  } catch (const std::exception& e) {  // an invalid default: each run brings its own config
    spdlog::debug("the default engine config has no digest: {}", e.what());
    return std::string();
  }
}

std::string hex_id(const std::string& id) { return trace::to_hex(id); }

// A START's engine_config_json: a config file's JSON, or why it is not one.
Result<storage::EngineConfig> run_engine_config(const std::string& text) {
  Result<nlohmann::json> j = storage::parse_engine_config_json(text, "engine_config_json");
  if (!j) return j.status();
  return storage::engine_config_from_config_file_json(j.value());
}

}  // namespace

std::string_view worker_state_name(WorkerProtocol::State s) {
  switch (s) {
    case WorkerProtocol::State::Idle:
      return "idle";
    case WorkerProtocol::State::Connected:
      return "connected";
    case WorkerProtocol::State::Running:
      return "running";
    case WorkerProtocol::State::Exiting:
      return "exiting";
    case WorkerProtocol::State::Stopped:
      return "stopped";
  }
  return "?";
}

WorkerProtocol::WorkerProtocol(zmq::socket_t& sock, const WorkerOptions& options,
                               util::Clock& clock, const std::atomic<bool>& stop)
    : sock_(sock),
      options_(options),
      clock_(clock),
      stop_(stop),
      beat_ns_(int64_t{options.heartbeat_ms} * 1'000'000),
      lost_ns_(beat_ns_ * options.lost_after_heartbeats),
      default_digest_(default_engine_digest(options.engine)) {}

WorkerProtocol::~WorkerProtocol() = default;

void WorkerProtocol::run() {
  while (state_ != State::Stopped && !stop_.load()) {
    zmq::pollitem_t items[kMaxPollItems];
    const size_t n = poll_items(items);
    wire::poll_sockets(items, n, std::chrono::milliseconds(10));
    after_poll(items, n);
  }
}

// The socket, and while a run is on, its queue's "a batch was consumed" wakeup: credit goes
// back as soon as a batch is done, not at the next poll timeout.
size_t WorkerProtocol::poll_items(zmq::pollitem_t* out) {
  out[0] = {sock_.handle(), 0, ZMQ_POLLIN, 0};
  if (!run_) return 1;
  out[1] = {nullptr, run_->queue().wakeup_fd(), ZMQ_POLLIN, 0};
  return 2;
}

void WorkerProtocol::after_poll(const zmq::pollitem_t* items, size_t n) {
  if (n > 1 && run_ && (items[1].revents & ZMQ_POLLIN)) run_->queue().drain_wakeups();
  if (items[0].revents & ZMQ_POLLIN) receive();
  if (state_ != State::Stopped) tick();
}

// One message (identity + body); anything else is dropped with a reason.
void WorkerProtocol::receive() {
  std::vector<zmq::message_t> parts;
  while (true) {
    zmq::message_t m;
    if (!sock_.recv(m, zmq::recv_flags::dontwait)) break;
    const bool more = m.more();
    parts.push_back(std::move(m));
    if (!more) break;
  }
  if (parts.size() != 2) {
    warn_peer(
        fmt::format("ignoring a message with {} frames (expected identity + body)", parts.size()));
    return;
  }
  Incoming in;
  in.from.assign(static_cast<const char*>(parts[0].data()), parts[0].size());
  try {
    in.env = wire::decode(parts[1].data(), parts[1].size());
  } catch (const wire::ProtocolError& e) {
    warn_peer(fmt::format("peer {}: rejected message: {}", hex_id(in.from), e.what()));
    return;
  }
  if (!admit(in)) return;
  last_heard_ns_ = clock_.now_ns();
  try {
    dispatch(in);
  } catch (const std::exception& e) {  // a message that does not decode as its type
    warn_peer(
        fmt::format("peer {}: bad \"{}\" message: {}", hex_id(in.from), in.env.type, e.what()));
  }
}

// Who may say what in which state; a false return has answered or logged the message.
bool WorkerProtocol::admit(const Incoming& in) {
  using wire::MessageType;
  const MessageType kind = in.env.kind;
  if (in.env.version != wire::kProtocolVersion) {
    std::string why = "protocol version " + std::to_string(in.env.version) +
                      " is not supported: this worker speaks version " +
                      std::to_string(wire::kProtocolVersion) + " (build " + util::build_id() + ")";
    warn_peer(fmt::format("peer {}: {}", hex_id(in.from), why));
    refuse_hello(in.from, std::move(why));
    return false;
  }
  if (state_ == State::Exiting) {
    if (kind == MessageType::Hello) refuse_hello(in.from, "exiting: --max-runs reached");
    if (kind == MessageType::DoneAck) state_ = State::Stopped;
    return false;
  }
  if (peer_.empty() && (kind == MessageType::DoneAck || kind == MessageType::Heartbeat)) {
    return false;  // from the coordinator whose run just ended: nothing to do
  }
  if (!peer_.empty() && in.from != peer_) {
    if (kind == MessageType::Hello) {
      refuse_hello(in.from, "busy: running another coordinator's replay");
    } else {
      warn_peer(fmt::format("peer {}: ignoring \"{}\" from a coordinator that is not ours",
                            hex_id(in.from), in.env.type));
    }
    return false;
  }
  return true;
}

void WorkerProtocol::dispatch(const Incoming& in) {
  using wire::MessageType;
  const MessageType kind = in.env.kind;
  if (kind == MessageType::Hello) return on_hello(in);
  if (state_ == State::Idle) {
    warn_peer(fmt::format("peer {}: \"{}\" before hello; ignored", hex_id(in.from), in.env.type));
    return;
  }
  switch (kind) {
    case MessageType::Ping:
      return on_ping(in);
    case MessageType::Start:
      return on_start(in);
    case MessageType::Batch:
      return on_batch(in);
    case MessageType::Go:
      return on_go(in);
    case MessageType::End:
      return on_end(in);
    case MessageType::Abort:
      return on_abort(in);
    case MessageType::Heartbeat:
      return;  // last_heard_ns_ counts every message of ours
    default:
      warn_peer(fmt::format("peer {}: unknown message type \"{}\"; ignored", hex_id(in.from),
                            in.env.type));
  }
}

void WorkerProtocol::on_hello(const Incoming& in) {
  auto h = in.env.as<wire::Hello>();
  if (run_) end_session("the coordinator opened a new run");
  peer_ = in.from;
  state_ = State::Connected;
  wire::Welcome w;
  w.build_id = util::build_id();
  w.hostname = options_.name;
  w.cores = static_cast<int>(std::thread::hardware_concurrency());
  w.engine_digest = default_digest_;
  if (!h.trace_path.empty()) {
    // Only a path the operator's --trace-root allows is opened; otherwise, as for any trace
    // this worker cannot map, the coordinator streams the records (or stops, if it must share).
    auto path = options_.policy.check_trace_path(h.trace_path);
    if (!path) {
      w.trace_error = path.status().message();
    } else {
      try {
        shared_trace_ = std::make_shared<const trace::SharedTrace>(
            path.value(), trace::TraceIdentity{h.trace_size, h.trace_fingerprint});
        w.trace_shared = true;
      } catch (const std::exception& e) {
        w.trace_error = e.what();
      }
    }
  }
  send_to(in.from, wire::encode(w));
  spdlog::info("coordinator {} connected (run {}, build {})", hex_id(in.from), h.run_id,
               h.build_id);
}

void WorkerProtocol::on_ping(const Incoming& in) {
  auto p = in.env.as<wire::Ping>();
  wire::Pong pong;
  pong.seq = p.seq;
  pong.coord_ns = p.coord_ns;
  pong.worker_ns = clock_.now_ns();
  send_to(in.from, wire::encode(pong));
}

void WorkerProtocol::on_start(const Incoming& in) {
  auto s = in.env.as<wire::Start>();
  if (run_) throw wire::ProtocolError("start while a run is active");
  if (const std::string bad = start_limits_error(s); !bad.empty())
    return abort_run(wire::AbortKind::Protocol, "worker " + options_.name + ": start: " + bad,
                     "a start outside this worker's limits");
  storage::EngineConfig cfg = options_.engine;
  const bool from_run = !s.engine_config_json.empty();
  if (from_run) {
    Result<storage::EngineConfig> over = run_engine_config(s.engine_config_json);
    if (!over) {
      abort_run(wire::AbortKind::Config,
                "worker " + options_.name +
                    ": engine config from the coordinator: " + over.status().message(),
                "engine config rejected");
      return;
    }
    over->eviction_tick_ms = cfg.eviction_tick_ms;
    over->engine_name = cfg.engine_name;  // the name travels separately (engine_name)
    over->drain_on_close = cfg.drain_on_close;
    over->l2_key_namespace = cfg.l2_key_namespace;  // the operator's, unless START names one
    cfg = over.value();
  }
  if (!s.engine_name.empty()) cfg.engine_name = s.engine_name;
  if (!s.l2_key_namespace.empty()) cfg.l2_key_namespace = s.l2_key_namespace;
  // Before any engine memory, file or connection: what the run brought must be within what
  // this worker's operator allows. The worker's own defaults are the operator's already.
  if (Status p = from_run ? options_.policy.check_run_config(cfg) : Status(); !p) {
    abort_run(wire::AbortKind::Policy, "worker " + options_.name + ": " + p.message(),
              "the run's config is outside this worker's policy");
    return;
  }
  const std::optional<causal::Pacing> pacing = causal::pacing_from_name(s.pacing);
  if (!pacing || (*pacing == causal::Pacing::Causal && !(s.speed > 0)) ||
      (s.schedule != "ordered" && s.schedule != "partial") || !(s.causal_horizon_s >= 0) ||
      !std::isfinite(s.causal_horizon_s)) {
    abort_run(wire::AbortKind::Protocol,
              "worker " + options_.name + ": start: pacing '" + s.pacing + "', schedule '" +
                  s.schedule + "', horizon " + std::to_string(s.causal_horizon_s) + " s at speed " +
                  std::to_string(s.speed) +
                  " (uniform, or causal at a speed > 0; ordered or partial; horizon >= 0)",
              "bad start");
    return;
  }
  cfg.time_scale = causal::engine_time_scale(*pacing, s.speed);
  cfg.follow_trace_time = causal::engine_follows_trace(*pacing, s.speed);
  cfg.classify_misses = s.classify_misses;
  RunSetup setup;
  setup.node_name = options_.name;
  setup.session.speed = s.speed;
  setup.session.pacing = *pacing;
  setup.session.edge_ttl = replay::edge_ttl_of(cfg);
  setup.session.edge_ttl.horizon_s = s.causal_horizon_s;
  setup.session.schedule =
      s.schedule == "partial" ? causal::Schedule::Partial : causal::Schedule::Ordered;
  setup.session.engine_time_scale = cfg.time_scale;
  setup.session.engine_follows_trace = cfg.follow_trace_time;
  setup.session.t_origin = s.t_origin;
  setup.session.drain_on_close = cfg.drain_on_close;
  setup.virtual_clock = util::clock_kind_of(s.clock) == util::ClockKind::Virtual;
  setup.real_clock = &clock_;
  setup.trace = shared_trace_;
  setup.credit_window = std::max(1, s.credit_window);
  if (!apply_self_routing(s, setup)) return;
  if (!apply_l2(s, setup)) return;
  const std::string engine_name = cfg.engine_name;
  setup.engine = std::move(cfg);
  // An unpaced run's batches arrive as fast as it replays them: their frame buffers (filled on
  // this thread, from the main heap) fault in 2 MiB at a time, not 4 KiB (~2,000 faults of
  // ~10 us each per worker for a credit window of ~1 MB batches). The replay thread allocates
  // from its own arena, so a huge-page fault never stalls dispatch. A shared trace below the
  // threshold is a small run (a streamed one's size is not known here).
  const bool small = shared_trace_ && shared_trace_->size() < util::kHugeHeapFromTraceBytes;
  if (s.speed == 0 && !small) util::back_heap_with_huge_pages();
  run_ = std::make_unique<ReplayRun>(std::move(setup));
  state_ = State::Running;
  spdlog::info("run started: node {}/{}, speed {}, clock {}, engine {}", s.node_index + 1,
               s.node_count, s.speed, s.clock, engine_name);
}

bool WorkerProtocol::apply_self_routing(const wire::Start& s, RunSetup& setup) {
  if (!s.self_routing.on) return true;
  if (!shared_trace_) {
    abort_run(wire::AbortKind::Trace,
              "worker " + options_.name +
                  ": self-routing: this worker does not read the trace (HELLO offered none, or "
                  "it could not be mapped)",
              "self-routing without a shared trace");
    return false;
  }
  auto router = self_routing_options(s.self_routing, s.node_index, s.node_count);
  if (!router) {
    abort_run(wire::AbortKind::Protocol,
              "worker " + options_.name + ": start: " + router.status().message(),
              "bad self-routing parameters");
    return false;
  }
  RunSetup::SelfRoute& route = setup.self_route.emplace(RunSetup::SelfRoute{});
  route.router = std::move(router).value();
  route.node_index = s.node_index;
  route.node_count = s.node_count;
  route.max_frame_bytes = s.self_routing.max_frame_bytes;
  route.read_ahead = s.self_routing.read_ahead;
  if (s.self_routing.plan_path.empty()) return true;
  // A saved plan is a file the run makes this worker read: the operator's --trace-root
  // bounds it as it bounds the trace. Checked here, before any engine is built.
  auto plan_path = options_.policy.check_plan_path(s.self_routing.plan_path);
  if (!plan_path) {
    abort_run(wire::AbortKind::Policy,
              "worker " + options_.name + ": --route-cache: " + plan_path.status().message() +
                  " (put --route-cache under this worker's --trace-root, or route live: "
                  "--routing coordinator, or no --route-cache)",
              "the route plan is outside this worker's policy");
    return false;
  }
  route.plan_path = plan_path.value();
  route.plan_key = s.self_routing.plan_key;
  return true;
}

// Every batch of the run must arrive, in order, whole: anything else would replay fewer
// records than the coordinator accounts for, so it stops the run instead.
void WorkerProtocol::on_batch(const Incoming& in) {
  if (!run_) throw wire::ProtocolError("batch before start");
  wire::RawBatch raw;
  wire::SplitBatch frames;
  wire::Batch b;
  try {
    b = in.env.as<wire::Batch>();
    const auto expected = static_cast<int64_t>(run_->batches_received());
    if (b.seq != expected) {
      throw wire::ProtocolError("batch " + std::to_string(b.seq) + " arrived where " +
                                std::to_string(expected) + " was due");
    }
    if (run_->queue().queued() > static_cast<size_t>(4 * run_->credit_window())) {
      throw wire::ProtocolError("the coordinator ignores flow control (too many batches queued)");
    }
    raw = wire::decode_batch(std::string_view(b.data.ptr, b.data.size), b.codec,
                             static_cast<uint64_t>(b.raw_bytes));
    frames = wire::split_frames(raw, run_->trace());
    if (frames.frames.size() != static_cast<size_t>(b.records)) {
      throw wire::ProtocolError("batch " + std::to_string(b.seq) + " holds " +
                                std::to_string(frames.frames.size()) + " records, " +
                                std::to_string(b.records) + " announced");
    }
  } catch (const wire::SharedTraceMismatch& e) {
    // Replaying other records than the coordinator's would be silently wrong: stop.
    abort_run(wire::AbortKind::Trace, "worker " + options_.name + ": shared trace: " + e.what(),
              "the shared trace cannot serve the coordinator's references");
    return;
  } catch (const std::exception& e) {
    abort_run(wire::AbortKind::Protocol,
              "worker " + options_.name + ": damaged batch stream: " + e.what(),
              "damaged batch stream");
    return;
  }
  run_->count_batch(frames.frames.size());
  run_->queue().push(std::move(raw), std::move(frames), b.t_shift, b.seq);
}

void WorkerProtocol::on_go(const Incoming& in) {
  if (!run_) throw wire::ProtocolError("go before start");
  const auto g = in.env.as<wire::Go>();
  const int64_t lead = g.t0_worker_ns - clock_.now_ns();
  if (lead > wire::kMaxGoLeadNs) {
    abort_run(
        wire::AbortKind::Protocol,
        fmt::format("worker {}: GO puts T0 {:.0f} s ahead; at most {} s is accepted", options_.name,
                    static_cast<double>(lead) / 1e9, wire::kMaxGoLeadNs / 1'000'000'000),
        "T0 too far ahead");
    return;
  }
  run_->start(g.t0_worker_ns);
  spdlog::info("go: T0 in {:.2f} ms", static_cast<double>(lead) / 1e6);
}

void WorkerProtocol::on_end(const Incoming& in) {
  if (!run_) return;
  auto e = in.env.as<wire::End>();
  if (e.batches != static_cast<int64_t>(run_->batches_received()) ||
      e.records != static_cast<int64_t>(run_->records_received())) {
    abort_run(wire::AbortKind::Protocol,
              "worker " + options_.name + ": damaged batch stream: the coordinator sent " +
                  std::to_string(e.batches) + " batches (" + std::to_string(e.records) +
                  " records), " + std::to_string(run_->batches_received()) + " (" +
                  std::to_string(run_->records_received()) + " records) arrived",
              "damaged batch stream");
    return;
  }
  run_->queue().close_input();
}

void WorkerProtocol::on_abort(const Incoming& in) {
  auto a = in.env.as<wire::Abort>();
  spdlog::warn("coordinator aborted the run: {}", a.reason);
  if (run_) {
    run_->request_stop();  // the run still ends with its partial DONE
  } else {
    end_session("aborted before start");
  }
}

void WorkerProtocol::tick() {
  const int64_t now = clock_.now_ns();
  if (const uint64_t n = peer_log_.take_suppressed(now); n > 0) {
    spdlog::warn("{} more refused or malformed messages from peers (not logged one by one)", n);
  }
  if (state_ == State::Exiting) {
    if (now > exit_deadline_ns_) {
      spdlog::warn(
          "--max-runs reached; no acknowledgement from the coordinator within {} ms: "
          "exiting",
          lost_ns_ / 1'000'000);
      state_ = State::Stopped;
    }
    return;
  }
  if (run_) send_credit_and_result();
  if (peer_.empty()) return;
  if (now - last_beat_ns_ >= beat_ns_) send_heartbeat();
  check_coordinator_alive(now);
}

void WorkerProtocol::send_credit_and_result() {
  if (const auto build_ns = run_->take_ready()) {
    wire::Ready r;
    r.engine_build_ns = *build_ns;
    send_to(peer_, wire::encode(r));
  }
  if (const uint64_t due = run_->take_credit(); due > 0) {
    wire::Credit c;
    c.batches = static_cast<int64_t>(due);
    send_to(peer_, wire::encode(c));
  }
  ReplayRun::Outcome out = run_->take_outcome();
  if (!out.engine_error.empty()) {
    abort_run(wire::AbortKind::Config, std::move(out.engine_error), "engine could not be built");
    return;
  }
  if (!out.trace_error.empty()) {
    abort_run(wire::AbortKind::Trace, std::move(out.trace_error), "the trace failed its share");
    return;
  }
  if (!out.done) return;
  if (std::string why = run_->queue().corruption(); !why.empty()) {
    abort_run(wire::AbortKind::Protocol,
              "worker " + options_.name + ": damaged batch stream: " + why, "damaged batch stream");
    return;
  }
  // The run's last windows first (as many PROGRESS as they need): the coordinator writes its
  // time series before the result.
  for (auto progress = run_->progress(); progress; progress = run_->progress()) {
    send_to(peer_, wire::encode(*progress));
    if (!run_->windows_pending()) break;
  }
  send_to(peer_, std::move(*out.done));  // the whole DONE message
  end_session("result sent");
  count_run();
}

void WorkerProtocol::send_heartbeat() {
  last_beat_ns_ = clock_.now_ns();
  send_to(peer_, wire::encode(wire::Heartbeat{}));
  if (!run_) return;
  if (auto progress = run_->progress()) send_to(peer_, wire::encode(*progress));
}

void WorkerProtocol::check_coordinator_alive(int64_t now) {
  if (now - last_heard_ns_ <= lost_ns_) return;
  spdlog::error("coordinator silent for {} ms: aborting the run (no orphan load)",
                (now - last_heard_ns_) / 1'000'000);
  const bool had_run = run_ != nullptr;
  end_session("coordinator lost");
  // A run ended by a lost coordinator is still a run: a --max-runs 1 worker (a --local
  // child, a batch job) must exit instead of serving forever with nobody to serve.
  if (had_run && options_.max_runs > 0 && ++runs_done_ >= options_.max_runs) {
    state_ = State::Stopped;
  }
}

template <class Payload>
void WorkerProtocol::send_to(const std::string& id, Payload payload) {
  zmq::message_t idm(id.data(), id.size());
  zmq::message_t body = wire::owned_message(std::move(payload));
  sock_.send(idm, zmq::send_flags::sndmore);
  sock_.send(body, zmq::send_flags::dontwait);
}

void WorkerProtocol::warn_peer(const std::string& line) {
  if (peer_log_.allow(clock_.now_ns())) spdlog::warn("{}", line);
}

void WorkerProtocol::refuse_hello(const std::string& id, std::string why) {
  wire::Welcome w;
  w.build_id = util::build_id();
  w.hostname = options_.name;
  w.reject = std::move(why);
  send_to(id, wire::encode(w));
}

void WorkerProtocol::abort_run(wire::AbortKind kind, std::string reason, const char* why) {
  spdlog::error("{}", reason);
  wire::Abort a;
  a.reason = std::move(reason);
  a.kind = wire::abort_kind_name(kind);
  send_to(peer_, wire::encode(a));
  end_session(why);
  count_run();
}

void WorkerProtocol::end_session(const char* why) {
  if (!peer_.empty()) spdlog::info("run with {} ended: {}", hex_id(peer_), why);
  run_.reset();
  shared_trace_.reset();
  peer_.clear();
  state_ = State::Idle;
}

// A started run ended (result sent, or aborted for its config or trace): with --max-runs
// reached, linger for the last messages and exit once the coordinator acknowledged (or gave
// up: 3 silent intervals).
void WorkerProtocol::count_run() {
  ++runs_done_;
  if (options_.max_runs > 0 && runs_done_ >= options_.max_runs) {
    sock_.set(zmq::sockopt::linger, 5000);  // 0 until now: give our last messages time to leave
    exit_deadline_ns_ = clock_.now_ns() + lost_ns_;
    state_ = State::Exiting;
  }
}

}  // namespace fleet::service
