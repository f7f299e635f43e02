#include "fleet/util/build_info.h"
#include "fleet/service/worker_service.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>
#include <zmq.hpp>

#include "fleet/replay/replay_session.h"
#include "fleet/service/batch_queue.h"
#include "fleet/storage/engine_factory.h"
#include "fleet/trace/msgpack_value.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/clock.h"
#include "fleet/wire/batch.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/owned_message.h"
#include "fleet/wire/poll.h"
#include "fleet/wire/protocol.h"

namespace fleet::service {

namespace {

int64_t mono_ns() { return util::RealClock::instance().now_ns(); }

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string peer_hex(const zmq::message_t& id) {
  return trace::to_hex(std::string_view(static_cast<const char*>(id.data()), id.size()));
}

// One replay run: the session thread and what it shares with the network thread.
struct Run {
  std::string peer;
  // The trace this run's record references are read from.
  std::shared_ptr<const trace::SharedTrace> trace;
  BatchQueue queue;
  std::unique_ptr<util::Clock> vclock;
  std::unique_ptr<engine::Engine> engine;
  std::unique_ptr<replay::ReplaySession> session;
  std::thread thread;
  std::mutex mu;
  std::optional<util::HugeString> done_payload;  // the DONE message, set by the session thread
  std::string error;                        // set when the engine could not be built
  std::atomic<bool> session_ready{false};
  uint64_t credits_sent = 0;
  uint64_t batches_received = 0;
  uint64_t records_received = 0;
  int credit_window = 8;

  ~Run() {
    if (session_ready.load()) session->request_stop();
    queue.abort();
    if (thread.joinable()) thread.join();
  }
};

}  // namespace

WorkerService::WorkerService(WorkerOptions options) : options_(std::move(options)) {
  if (options_.name.empty()) options_.name = host_name();
}

WorkerService::~WorkerService() = default;

void WorkerService::serve() {
  zmq::context_t ctx(1);
  zmq::socket_t sock(ctx, zmq::socket_type::router);
  sock.set(zmq::sockopt::linger, 0);
  sock.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(wire::kMaxMessageBytes));
  sock.set(zmq::sockopt::ipv6, 1);  // tcp://[::]:P and tcp://*:P are dual-stack
  try {
    sock.bind(options_.listen);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("--listen " + options_.listen + ": cannot bind: " + e.what());
  }
  std::string endpoint = sock.get(zmq::sockopt::last_endpoint);
  // An IPv4 bind on a dual-stack socket reports "[::ffff:a.b.c.d]": announce the plain address.
  if (auto p = endpoint.find("[::ffff:"); p != std::string::npos) {
    if (auto q = endpoint.find(']', p); q != std::string::npos)
      endpoint = endpoint.substr(0, p) + endpoint.substr(p + 8, q - p - 8) + endpoint.substr(q + 1);
  }
  spdlog::info("worker {} listening on {}", options_.name, endpoint);
  if (options_.announce) {
    std::printf("LISTENING %s\n", endpoint.c_str());
    std::fflush(stdout);
  }

  const std::string default_digest = [&] {
    try {
      return options_.engine.digest();
    } catch (...) {
      return std::string();
    }
  }();
  std::unique_ptr<Run> run;
  std::string peer;  // identity of the coordinator we are talking to ("" = idle)
  std::shared_ptr<const trace::SharedTrace> shared_trace;  // offered in HELLO and verified
  int64_t last_heard = 0;
  int64_t last_beat = 0;
  int runs_done = 0;
  // --max-runs reached: the last DONE is out, waiting for the coordinator's DONE_ACK (until
  // this deadline) before exiting, so the result is never cut off by our own close.
  int64_t exit_deadline = 0;
  const int64_t beat_ns = int64_t{options_.heartbeat_ms} * 1'000'000;
  const int64_t lost_ns = beat_ns * options_.lost_after_heartbeats;

  auto send_to = [&](const std::string& id, auto payload) {  // std::string or util::HugeString
    zmq::message_t idm(id.data(), id.size());
    zmq::message_t body = wire::owned_message(std::move(payload));
    sock.send(idm, zmq::send_flags::sndmore);
    sock.send(body, zmq::send_flags::dontwait);
  };
  // A started run ended (result sent, or aborted for its config or trace): with --max-runs
  // reached, linger for the last messages and exit once the coordinator acknowledged (or gave
  // up: 3 silent intervals).
  auto count_run = [&] {
    ++runs_done;
    if (options_.max_runs > 0 && runs_done >= options_.max_runs && exit_deadline == 0) {
      sock.set(zmq::sockopt::linger, 5000);  // 0 until now: give our last messages time to leave
      exit_deadline = mono_ns() + lost_ns;
    }
  };
  auto reset = [&](const char* why) {
    if (!peer.empty()) spdlog::info("run with {} ended: {}", trace::to_hex(peer), why);
    run.reset();
    shared_trace.reset();
    peer.clear();
  };
  // The run cannot go on (its engine config, a record reference its trace copy cannot serve,
  // a damaged batch stream): tell the coordinator why, end the run and count it.
  auto abort_run = [&](const char* kind, std::string reason, const char* why) {
    spdlog::error("{}", reason);
    wire::Abort a;
    a.reason = std::move(reason);
    a.kind = kind;
    send_to(peer, wire::encode(a));
    reset(why);
    count_run();
  };

  while (!stop_.load()) {
    // The socket, and while a run is on, its queue's "a batch was consumed" wakeup: credit
    // goes back as soon as a batch is done, not at the next poll timeout.
    zmq::pollitem_t items[] = {{sock.handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, run ? run->queue.wakeup_fd() : -1, ZMQ_POLLIN, 0}};
    wire::poll_sockets(items, run ? 2 : 1, std::chrono::milliseconds(10));
    if (run && (items[1].revents & ZMQ_POLLIN)) run->queue.drain_wakeups();
    if (items[0].revents & ZMQ_POLLIN) {
      std::vector<zmq::message_t> parts;
      while (true) {
        zmq::message_t m;
        if (!sock.recv(m, zmq::recv_flags::dontwait)) break;
        bool more = m.more();
        parts.push_back(std::move(m));
        if (!more) break;
      }
      if (parts.size() != 2) {
        spdlog::warn("ignoring a message with {} frames (expected identity + body)", parts.size());
        continue;
      }
      std::string id(static_cast<const char*>(parts[0].data()), parts[0].size());
      wire::Envelope env;
      try {
        env = wire::decode(parts[1].data(), parts[1].size());
      } catch (const wire::ProtocolError& e) {
        spdlog::warn("peer {}: rejected message: {}", peer_hex(parts[0]), e.what());
        continue;
      }
      if (env.version != wire::kProtocolVersion) {
        std::string why = "protocol version " + std::to_string(env.version) +
                          " is not supported: this worker speaks version " +
                          std::to_string(wire::kProtocolVersion) + " (build " + util::build_id() + ")";
        spdlog::error("peer {}: {}", peer_hex(parts[0]), why);
        wire::Welcome w;
        w.build_id = util::build_id();
        w.hostname = options_.name;
        w.reject = why;
        send_to(id, wire::encode(w));
        continue;
      }
      if (exit_deadline != 0 && env.type == "hello") {
        wire::Welcome w;
        w.build_id = util::build_id();
        w.hostname = options_.name;
        w.reject = "exiting: --max-runs reached";
        send_to(id, wire::encode(w));
        continue;
      }
      if (peer.empty() && (env.type == "done_ack" || env.type == "heartbeat")) {
        // From the coordinator whose run just ended: nothing to do, unless we were waiting.
        if (exit_deadline != 0 && env.type == "done_ack") break;
        continue;
      }
      if (!peer.empty() && id != peer) {
        if (env.type == "hello") {
          wire::Welcome w;
          w.build_id = util::build_id();
          w.hostname = options_.name;
          w.reject = "busy: running another coordinator's replay";
          send_to(id, wire::encode(w));
        } else {
          spdlog::warn("peer {}: ignoring \"{}\" from a coordinator that is not ours",
                       peer_hex(parts[0]), env.type);
        }
        continue;
      }
      last_heard = mono_ns();
      try {
        if (env.type == "hello") {
          auto h = env.as<wire::Hello>();
          if (run) reset("the coordinator opened a new run");
          peer = id;
          wire::Welcome w;
          w.build_id = util::build_id();
          w.hostname = options_.name;
          w.cores = static_cast<int>(std::thread::hardware_concurrency());
          w.engine_digest = default_digest;
          if (!h.trace_path.empty()) {
            try {
              shared_trace = std::make_shared<const trace::SharedTrace>(
                  h.trace_path, trace::TraceIdentity{h.trace_size, h.trace_fingerprint});
              w.trace_shared = true;
            } catch (const std::exception& e) {
              w.trace_error = e.what();
            }
          }
          send_to(id, wire::encode(w));
          spdlog::info("coordinator {} connected (run {}, build {})", trace::to_hex(id), h.run_id,
                       h.build_id);
        } else if (peer.empty()) {
          spdlog::warn("peer {}: \"{}\" before hello; ignored", peer_hex(parts[0]), env.type);
        } else if (env.type == "ping") {
          auto p = env.as<wire::Ping>();
          wire::Pong pong;
          pong.seq = p.seq;
          pong.coord_ns = p.coord_ns;
          pong.worker_ns = mono_ns();
          send_to(id, wire::encode(pong));
        } else if (env.type == "start") {
          auto s = env.as<wire::Start>();
          if (run) throw wire::ProtocolError("start while a run is active");
          storage::EngineConfig cfg = options_.engine;
          try {
            if (!s.engine_config_json.empty()) {
              storage::EngineConfig over = storage::EngineConfig::from_config_file_json(
                  nlohmann::json::parse(s.engine_config_json));
              over.eviction_tick_ms = cfg.eviction_tick_ms;
              over.engine_name = cfg.engine_name;  // the name travels separately (engine_name)
              over.drain_on_close = cfg.drain_on_close;
              cfg = over;
            }
            if (!s.engine_name.empty()) cfg.engine_name = s.engine_name;
          } catch (const std::exception& e) {
            abort_run("config", "worker " + options_.name + ": engine config from the coordinator: " + e.what(),
                      "engine config rejected");
            continue;
          }
          run = std::make_unique<Run>();
          run->peer = id;
          run->trace = shared_trace;
          run->credit_window = std::max(1, s.credit_window);
          util::Clock* clock = &util::RealClock::instance();
          if (s.clock == "virtual") {
            run->vclock = std::make_unique<util::VirtualClock>(s.t0_worker_ns);
            clock = run->vclock.get();
          }
          replay::SessionOptions so;
          so.speed = s.speed;
          so.t0_ns = s.t0_worker_ns;
          so.t_origin = s.t_origin;
          so.drain_on_close = cfg.drain_on_close;
          Run* r = run.get();
          std::string name = options_.name;
          // The engine is built on the run's own thread: connecting to a remote L2 may take
          // time, and heartbeats must keep flowing meanwhile.
          r->thread = std::thread([r, name, cfg, clock, so] {
            try {
              cfg.validate();
              r->engine = storage::make_engine(cfg, *clock);
              r->session = std::make_unique<replay::ReplaySession>(*r->engine, *clock, so);
            } catch (const std::exception& e) {
              std::lock_guard<std::mutex> lock(r->mu);
              r->error = "worker " + name + ": engine: " + e.what();
              return;
            }
            r->session_ready.store(true);
            replay::SessionResult res = r->session->run(r->queue);
            wire::NodeResult node = replay::to_node_result(std::move(res), name);
            node.records_received = r->records_received;
            util::HugeString payload = wire::encode_done_message(node);
            std::lock_guard<std::mutex> lock(r->mu);
            r->done_payload = std::move(payload);
          });
          spdlog::info("run started: node {}/{}, speed {}, clock {}, engine {}", s.node_index + 1,
                       s.node_count, s.speed, s.clock, cfg.engine_name);
        } else if (env.type == "batch") {
          if (!run) throw wire::ProtocolError("batch before start");
          // Every batch of the run must arrive, in order, whole: anything else would replay
          // fewer records than the coordinator accounts for, so it stops the run instead.
          wire::RawBatch raw;
          wire::SplitBatch frames;
          wire::Batch b;
          try {
            b = env.as<wire::Batch>();
            const auto expected = static_cast<int64_t>(run->batches_received);
            if (b.seq != expected) {
              throw wire::ProtocolError("batch " + std::to_string(b.seq) + " arrived where " +
                                        std::to_string(expected) + " was due");
            }
            if (run->queue.queued() > static_cast<size_t>(4 * run->credit_window)) {
              throw wire::ProtocolError("the coordinator ignores flow control (too many batches queued)");
            }
            raw = wire::decode_batch(std::string_view(b.data.ptr, b.data.size), b.codec,
                                     static_cast<uint64_t>(b.raw_bytes));
            frames = wire::split_frames(raw, run->trace.get());
            if (frames.frames.size() != static_cast<size_t>(b.records)) {
              throw wire::ProtocolError("batch " + std::to_string(b.seq) + " holds " +
                                        std::to_string(frames.frames.size()) + " records, " +
                                        std::to_string(b.records) + " announced");
            }
          } catch (const wire::SharedTraceMismatch& e) {
            // Replaying other records than the coordinator's would be silently wrong: stop.
            abort_run("trace", "worker " + options_.name + ": shared trace: " + e.what(),
                      "the shared trace cannot serve the coordinator's references");
            continue;
          } catch (const std::exception& e) {
            abort_run("protocol", "worker " + options_.name + ": damaged batch stream: " + e.what(),
                      "damaged batch stream");
            continue;
          }
          run->records_received += frames.frames.size();
          ++run->batches_received;
          run->queue.push(std::move(raw), std::move(frames), b.t_shift, b.seq);
        } else if (env.type == "end") {
          if (!run) continue;
          auto e = env.as<wire::End>();
          if (e.batches != static_cast<int64_t>(run->batches_received) ||
              e.records != static_cast<int64_t>(run->records_received)) {
            abort_run("protocol",
                      "worker " + options_.name + ": damaged batch stream: the coordinator sent " +
                          std::to_string(e.batches) + " batches (" + std::to_string(e.records) +
                          " records), " + std::to_string(run->batches_received) + " (" +
                          std::to_string(run->records_received) + " records) arrived",
                      "damaged batch stream");
            continue;
          }
          run->queue.close_input();
        } else if (env.type == "abort") {
          auto a = env.as<wire::Abort>();
          spdlog::warn("coordinator aborted the run: {}", a.reason);
          if (run) {
            if (run->session_ready.load()) run->session->request_stop();
            run->queue.abort();
          } else {
            reset("aborted before start");
          }
        } else if (env.type == "heartbeat") {
          // last_heard is updated above for every message of our coordinator
        } else {
          spdlog::warn("peer {}: unknown message type \"{}\"; ignored", peer_hex(parts[0]), env.type);
        }
      } catch (const std::exception& e) {
        spdlog::warn("peer {}: bad \"{}\" message: {}", peer_hex(parts[0]), env.type, e.what());
      }
    }

    int64_t now = mono_ns();
    if (exit_deadline != 0 && now > exit_deadline) {
      spdlog::warn("--max-runs reached; no acknowledgement from the coordinator within {} ms: "
                   "exiting", lost_ns / 1'000'000);
      break;
    }
    if (run) {
      uint64_t consumed = run->queue.consumed_batches();
      if (consumed > run->credits_sent) {
        wire::Credit c;
        c.batches = static_cast<int64_t>(consumed - run->credits_sent);
        run->credits_sent = consumed;
        send_to(peer, wire::encode(c));
      }
      std::optional<util::HugeString> done;
      std::string failure;
      {
        std::lock_guard<std::mutex> lock(run->mu);
        done.swap(run->done_payload);
        failure.swap(run->error);
      }
      if (!failure.empty()) {
        abort_run("config", std::move(failure), "engine could not be built");
        continue;
      }
      if (done) {
        if (std::string why = run->queue.corruption(); !why.empty()) {
          abort_run("protocol", "worker " + options_.name + ": damaged batch stream: " + why,
                    "damaged batch stream");
          continue;
        }
        send_to(peer, std::move(*done));  // the whole DONE message
        reset("result sent");
        count_run();
        continue;
      }
    }
    if (!peer.empty()) {
      if (now - last_beat >= beat_ns) {
        last_beat = now;
        send_to(peer, wire::encode(wire::Heartbeat{}));
        if (run && run->session_ready.load()) {
          const auto& p = run->session->progress();
          wire::Progress pr;
          pr.records = static_cast<int64_t>(p.records.load(std::memory_order_relaxed));
          pr.failed = static_cast<int64_t>(p.failed.load(std::memory_order_relaxed));
          pr.last_lateness_ns = p.last_lateness_ns.load(std::memory_order_relaxed);
          pr.trace_time_s = p.trace_time_s.load(std::memory_order_relaxed);
          send_to(peer, wire::encode(pr));
        }
      }
      if (now - last_heard > lost_ns) {
        spdlog::error("coordinator silent for {} ms: aborting the run (no orphan load)",
                      (now - last_heard) / 1'000'000);
        const bool had_run = run != nullptr;
        reset("coordinator lost");
        // A run ended by a lost coordinator is still a run: a --max-runs 1 worker (a --local
        // child, a batch job) must exit instead of serving forever with nobody to serve.
        if (had_run && options_.max_runs > 0 && ++runs_done >= options_.max_runs) break;
      }
    }
  }
}

}  // namespace fleet::service
