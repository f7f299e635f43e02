// The coordinator's T0, credit and loss rules on a VirtualClock: a real run_fleet on its own
// thread against a test playing its one worker over loopback, with time moved only by the
// test. Assertions wait for messages (bounded by a real-time guard against a hang), never for
// time to pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/session/t0_decision.h"
#include "fleet/trace/synthetic_trace.h"
#include "fleet/util/build_info.h"
#include "fleet/util/clock.h"
#include "fleet/wire/protocol.h"
#include "scratch_dir.h"

namespace fleet::session {
namespace {

using namespace std::chrono_literals;
using wire::MessageType;

constexpr int64_t kStart = 5'000'000'000'000;
constexpr int64_t kBeat = int64_t{wire::kHeartbeatMs} * 1'000'000;
constexpr int64_t kLost = kBeat * wire::kLostAfterHeartbeats;
constexpr int64_t kWorkerAhead = 7777;  // the fake worker's clock runs this far ahead

// Enough records for many batches, so that a credit window of 2 holds the stream back.
std::string write_trace(const std::filesystem::path& dir) {
  trace::SyntheticOptions o;
  o.seed = 3;
  o.records = 3000;
  o.rate = 100.0;
  o.duration_s = 1e9;
  const std::string path = dir / "t.lct";
  trace::write_synthetic_trace(path, o);
  return path;
}

// The one worker of the run: a ROUTER socket that answers the handshake and then does what a
// test tells it.
class FakeWorker {
 public:
  explicit FakeWorker(zmq::context_t& ctx) : sock_(ctx, zmq::socket_type::router) {
    sock_.set(zmq::sockopt::linger, 0);
    sock_.bind("tcp://127.0.0.1:0");
    const std::string ep = sock_.get(zmq::sockopt::last_endpoint);
    host_port_ = ep.substr(ep.find("//") + 2);
  }
  const std::string& host_port() const { return host_port_; }

  std::optional<wire::Envelope> next() {
    zmq::pollitem_t item{sock_.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, 10s) <= 0) return std::nullopt;
    zmq::message_t id;
    auto body = std::make_shared<zmq::message_t>();
    if (!sock_.recv(id) || !sock_.recv(*body)) return std::nullopt;
    peer_.assign(static_cast<const char*>(id.data()), id.size());
    keep_.push_back(body);
    auto env = wire::decode(body->data(), body->size());
    if (env.kind == MessageType::Batch) ++batches;
    if (env.kind == MessageType::Heartbeat) ++heartbeats;
    if (env.kind == MessageType::Hello) peer_hello = peer_;
    if (on_message) on_message(env);
    return env;
  }
  template <class Msg>
  void send(const Msg& m) {
    const std::string bytes = wire::encode(m);
    sock_.send(zmq::buffer(peer_), zmq::send_flags::sndmore);
    sock_.send(zmq::buffer(bytes));
  }
  void welcome() {
    wire::Welcome w;
    w.build_id = util::build_id();
    w.hostname = "fake";
    send(w);
  }
  // The PONG of a worker whose clock runs `ahead`, read the moment the PING arrives.
  void answer(const wire::Ping& p) {
    wire::Pong pong;
    pong.seq = p.seq;
    pong.coord_ns = p.coord_ns + echo_shift;
    pong.worker_ns = p.coord_ns + ahead;
    send(pong);
  }
  // HELLO, the eight PINGs, and START, which is returned.
  wire::Start handshake() {
    while (auto env = next()) {
      if (env->kind == MessageType::Hello) {
        welcome();
      } else if (env->kind == MessageType::Ping) {
        answer(env->as<wire::Ping>());
      } else if (env->kind == MessageType::Start) {
        return env->as<wire::Start>();
      }
    }
    ADD_FAILURE() << "no START";
    return {};
  }
  // Reads until `pred` holds (checked after every message).
  template <class Pred>
  bool read_until(Pred pred) {
    while (!pred()) {
      if (!next()) return false;
    }
    return true;
  }

  std::string peer_hello;        // the identity of the last HELLO's sender
  int64_t ahead = kWorkerAhead;  // how far this worker's clock runs ahead of the coordinator's
  int64_t echo_shift = 0;        // a PONG echoes the PING's time shifted by this (a bad worker)
  int batches = 0;
  int heartbeats = 0;
  std::function<void(const wire::Envelope&)> on_message;  // sees every message read

 private:
  zmq::socket_t sock_;
  std::string host_port_;
  std::string peer_;
  std::vector<std::shared_ptr<zmq::message_t>> keep_;
};

struct VirtualRun {
  explicit VirtualRun(const std::string& host_port) : dir(scratch.path()), clock(kStart) {
    options.replay.trace_path = write_trace(dir);
    options.replay.speed = 0;
    options.replay.output.output_dir = (dir / "out").string();
    options.replay.output.quiet = true;
    options.replay.progress = report::ProgressReporter::Mode::Never;
    options.workers_spec = host_port;
    options.trace_access = TraceAccess::Stream;
    options.credit_window = 2;
    options.clock = &clock;
  }
  void start() {
    result = std::async(std::launch::async, [this] { return run_fleet(options); });
  }
  std::optional<ExitCode> exit_within(std::chrono::seconds t) {
    if (result.wait_for(t) != std::future_status::ready) return std::nullopt;
    return result.get();
  }
  nlohmann::json summary() const {
    std::ifstream in(dir / "out" / "fleet_summary.json");
    return nlohmann::json::parse(in);
  }
  // A run left waiting on the frozen clock (a test that failed before it could answer) would
  // block here forever: end the test binary with the reason instead of hanging.
  ~VirtualRun() {
    if (result.valid() && result.wait_for(60s) != std::future_status::ready) {
      std::fprintf(stderr, "FATAL: run_fleet did not end within 60 s of the test's end\n");
      std::_Exit(1);
    }
  }

  test::ScratchDir scratch;  // first: removed last, after the run has ended
  std::filesystem::path dir;
  util::VirtualClock clock;
  FleetOptions options;
  std::future<ExitCode> result;
};

// T0 waits for readiness: no GO while the worker has not answered READY, even once the stream
// is held back by credit; then T0 = READY + the GO margin (the ping RTT was 0: time stood
// still), carried on the worker's own clock (offset from the min-RTT ping).
TEST(FleetClock, GoFollowsReadinessAndCarriesT0OnTheWorkersClock) {
  zmq::context_t ctx(1);
  FakeWorker w(ctx);
  VirtualRun run(w.host_port());
  run.start();
  const wire::Start s = w.handshake();
  EXPECT_EQ(s.credit_window, 2);
  bool go = false;
  int64_t t0_worker_ns = 0;
  auto saw_go = [&](const wire::Envelope& env) {
    if (env.kind != MessageType::Go) return;
    go = true;
    t0_worker_ns = env.as<wire::Go>().t0_worker_ns;
  };
  w.on_message = saw_go;
  ASSERT_TRUE(w.read_until([&] { return w.batches >= 2 && w.heartbeats >= 1; }));
  run.clock.advance_by(kBeat);
  w.send(wire::Heartbeat{});
  ASSERT_TRUE(w.read_until([&] { return w.heartbeats >= 2; }));
  EXPECT_FALSE(go) << "GO before the worker was ready";
  wire::Ready ready;
  ready.engine_build_ns = 3'000'000;
  w.send(ready);
  ASSERT_TRUE(w.read_until([&] { return go; }));
  EXPECT_EQ(t0_worker_ns, kStart + kBeat + kGoProcessingNs + kWorkerAhead);
  wire::Abort a;
  a.reason = "the test ends the run";
  w.send(a);
  auto code = run.exit_within(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, ExitCode::kRunIncomplete);
  const auto summary = run.summary();
  const auto node = summary["nodes"][0];
  EXPECT_EQ(node["status"], "lost");
  EXPECT_DOUBLE_EQ(node["clock_offset_us"].get<double>(), kWorkerAhead / 1e3);
  EXPECT_EQ(node["clock_uncertainty_us"].get<double>(), 0.0) << "time stood still: RTT 0";
  const auto start = summary["coordinator"]["start"];
  EXPECT_EQ(start["waited_for"], "readiness");
  EXPECT_DOUBLE_EQ(start["last_ready_after_handshake_ms"].get<double>(), kBeat / 1e6);
  EXPECT_DOUBLE_EQ(start["slowest_engine_build_ms"].get<double>(), 3.0);
  EXPECT_EQ(start["slowest_engine_node"], "fake");
}

// The clock estimate pings a wave of workers (up to 8) at once: the second worker gets its first
// PING while the first has not answered its own (one worker after another, the second would wait
// for a PONG that never comes: time stands still here). Each offset is its own worker's.
TEST(FleetClock, ClockPingsGoToAWaveOfWorkersAtOnce) {
  zmq::context_t ctx(1);
  FakeWorker a(ctx);
  FakeWorker b(ctx);
  b.ahead = -5000;
  VirtualRun run(a.host_port() + "," + b.host_port());
  run.start();
  // Both handshakes first (the coordinator pings once every worker has welcomed it).
  for (FakeWorker* w : {&a, &b}) {
    ASSERT_TRUE(w->read_until([&] { return !w->peer_hello.empty(); }));
    w->welcome();
  }
  auto first_ping = [](FakeWorker& w) -> std::optional<wire::Ping> {
    while (auto env = w.next()) {
      if (env->kind == MessageType::Ping) return env->as<wire::Ping>();
    }
    return std::nullopt;
  };
  const auto ping_a = first_ping(a);
  ASSERT_TRUE(ping_a);
  const auto ping_b = first_ping(b);  // a has not answered
  ASSERT_TRUE(ping_b) << "the second worker got no PING while the first had not answered";
  EXPECT_EQ(ping_a->seq, ping_b->seq);
  a.answer(*ping_a);
  b.answer(*ping_b);
  // The remaining rounds need both workers answering at once.
  auto start_b = std::async(std::launch::async, [&] { return b.handshake(); });
  a.handshake();
  start_b.get();
  wire::Abort abort;
  abort.reason = "the test ends the run";
  a.send(abort);
  b.send(abort);
  ASSERT_TRUE(run.exit_within(10s));
  const auto nodes = run.summary()["nodes"];
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(nodes[0]["clock_offset_us"].get<double>(), kWorkerAhead / 1e3);
  EXPECT_DOUBLE_EQ(nodes[1]["clock_offset_us"].get<double>(), -5.0);
}

// A worker's PONG echoes when the PING left; the estimate does not trust it: the coordinator
// kept the time itself. An echo 300 s early once made the round trip 300 s, the uncertainty
// +/- 150 s and T0 wait 600 s; an echo near INT64_MIN overflowed it.
TEST(FleetClock, APongsEchoOfThePingTimeIsNotTrusted) {
  for (const int64_t shift : {int64_t{-300'000'000'000}, INT64_MIN / 2}) {
    zmq::context_t ctx(1);
    FakeWorker w(ctx);
    w.echo_shift = shift;
    VirtualRun run(w.host_port());
    run.start();
    w.handshake();
    wire::Abort abort;
    abort.reason = "the test ends the run";
    w.send(abort);
    ASSERT_TRUE(run.exit_within(10s));
    const auto nodes = run.summary()["nodes"];
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_DOUBLE_EQ(nodes[0]["clock_offset_us"].get<double>(), kWorkerAhead / 1e3) << shift;
    EXPECT_DOUBLE_EQ(nodes[0]["clock_uncertainty_us"].get<double>(), 0.0) << shift;
  }
}

// --start-delay stays an explicit floor: T0 = the end of the handshake + the delay when the
// workers are ready sooner, and the summary says that is what T0 waited for.
TEST(FleetClock, StartDelayIsAFloorOnT0) {
  zmq::context_t ctx(1);
  FakeWorker w(ctx);
  VirtualRun run(w.host_port());
  run.options.start_delay_s = 2.0;
  run.start();
  w.handshake();
  int64_t t0_worker_ns = 0;
  w.on_message = [&](const wire::Envelope& env) {
    if (env.kind == MessageType::Go) t0_worker_ns = env.as<wire::Go>().t0_worker_ns;
  };
  w.send(wire::Ready{});
  ASSERT_TRUE(w.read_until([&] { return t0_worker_ns != 0; }));
  EXPECT_EQ(t0_worker_ns, kStart + 2'000'000'000 + kWorkerAhead);
  wire::Abort a;
  a.reason = "the test ends the run";
  w.send(a);
  ASSERT_TRUE(run.exit_within(10s));
  EXPECT_EQ(run.summary()["coordinator"]["start"]["waited_for"], "--start-delay");
}

// At most --credit-window batches are in flight; each CREDIT lets exactly that many more go.
// A coordinator heartbeat (one per period of the virtual clock) marks the point by which
// anything the coordinator would have sent has arrived.
TEST(FleetClock, CreditWindowBoundsBatchesInFlight) {
  zmq::context_t ctx(1);
  FakeWorker w(ctx);
  VirtualRun run(w.host_port());
  run.start();
  w.handshake();
  ASSERT_TRUE(w.read_until([&] { return w.batches >= 2 && w.heartbeats >= 1; }));
  EXPECT_EQ(w.batches, 2);
  run.clock.advance_by(kBeat);
  w.send(wire::Heartbeat{});
  ASSERT_TRUE(w.read_until([&] { return w.heartbeats >= 2; }));
  EXPECT_EQ(w.batches, 2) << "no credit, no third batch";
  wire::Credit c;
  c.batches = 1;
  w.send(c);
  ASSERT_TRUE(w.read_until([&] { return w.batches >= 3; }));
  run.clock.advance_by(kBeat);
  w.send(wire::Heartbeat{});
  ASSERT_TRUE(w.read_until([&] { return w.heartbeats >= 3; }));
  EXPECT_EQ(w.batches, 3) << "one credit, one batch";
  c.batches = 2;
  w.send(c);
  ASSERT_TRUE(w.read_until([&] { return w.batches >= 5; }));
  run.clock.advance_by(kBeat);
  w.send(wire::Heartbeat{});
  ASSERT_TRUE(w.read_until([&] { return w.heartbeats >= 4; }));
  EXPECT_EQ(w.batches, 5);
  wire::Abort a;
  a.reason = "the test ends the run";
  w.send(a);
  EXPECT_TRUE(run.exit_within(10s));
}

// A worker silent for longer than three heartbeat periods is lost: the coordinator ends the
// run (--on-worker-loss abort; the lost worker itself is sent nothing more) and reports how
// long the silence was. At exactly three periods it is still alive.
TEST(FleetClock, AWorkerSilentPastTheBudgetIsLost) {
  zmq::context_t ctx(1);
  FakeWorker w(ctx);
  VirtualRun run(w.host_port());
  run.start();
  w.handshake();  // the coordinator last heard the worker at kStart
  ASSERT_TRUE(w.read_until([&] { return w.heartbeats >= 1; }));
  run.clock.advance_to(kStart + kLost);
  // A heartbeat to a lost worker is never sent: this one proves it still counts as alive.
  ASSERT_TRUE(w.read_until([&] { return w.heartbeats >= 2; }));
  run.clock.advance_by(1);
  auto code = run.exit_within(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, ExitCode::kRunIncomplete);
  const auto summary = run.summary();
  const auto node = summary["nodes"][0];
  EXPECT_EQ(node["status"], "lost");
  EXPECT_EQ(node["engine"]["counters"]["lost_reason"], "no heartbeat for 1500 ms");
  // The worker never answered READY: no T0 was decided, and the run's time counts from the
  // end of the handshake to the clock's last reading.
  EXPECT_TRUE(summary["coordinator"]["start"].is_null());
  EXPECT_DOUBLE_EQ(summary["coordinator"]["wall_since_t0_s"].get<double>(),
                   static_cast<double>(kLost + 1) / 1e9);
}

// Routing runs on its own thread: a routing thread that makes no progress (here held before its
// first record; in life a slow disk or a slow decode) does not hold the control thread. The
// coordinator keeps beating, and a worker that falls silent is still lost within the budget and
// the run stopped, all while routing has not moved. (With routing on the control thread, the
// coordinator sent nothing once routing stalled: the second heartbeat never came.)
TEST(FleetClock, HeartbeatsAndLossDoNotWaitBehindAStalledRoutingThread) {
  zmq::context_t ctx(1);
  FakeWorker a(ctx);
  FakeWorker b(ctx);
  VirtualRun run(a.host_port() + "," + b.host_port());
  std::promise<void> stalled, release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> routed{0};
  run.options.before_route = [&] {
    if (routed++ == 0) {
      stalled.set_value();
      released.wait();
    }
  };
  run.start();
  auto start_b = std::async(std::launch::async, [&] { return b.handshake(); });
  a.handshake();
  start_b.get();
  ASSERT_EQ(stalled.get_future().wait_for(10s), std::future_status::ready);
  for (FakeWorker* w : {&a, &b}) ASSERT_TRUE(w->read_until([&] { return w->heartbeats >= 1; }));
  run.clock.advance_by(kBeat);
  for (FakeWorker* w : {&a, &b}) {
    w->send(wire::Heartbeat{});
    ASSERT_TRUE(w->read_until([&] { return w->heartbeats >= 2; }))
        << "no heartbeat while routing was stalled";
  }
  // a falls silent; b answers every beat. Past three silent beats a is lost, and the run is
  // stopped (--on-worker-loss abort): b is told, routing still stalled.
  std::optional<std::string> abort_reason;
  b.on_message = [&](const wire::Envelope& env) {
    if (env.kind == MessageType::Abort) abort_reason = env.as<wire::Abort>().reason;
  };
  for (int beat = 0; beat < 6 && !abort_reason; ++beat) {
    run.clock.advance_by(kBeat);
    b.send(wire::Heartbeat{});
    const int seen = b.heartbeats;
    ASSERT_TRUE(b.read_until([&] { return b.heartbeats > seen || abort_reason; }));
  }
  ASSERT_TRUE(b.read_until([&] { return abort_reason.has_value(); }));
  EXPECT_EQ(*abort_reason, "a worker was lost (--on-worker-loss abort)");
  EXPECT_EQ(routed.load(), 1) << "routing moved: the test did not hold it";
  release.set_value();
  wire::Abort end;
  end.reason = "the test ends the run";
  b.send(end);
  auto code = run.exit_within(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, ExitCode::kRunIncomplete);
  const auto summary = run.summary();
  EXPECT_EQ(summary["nodes"][0]["status"], "lost");
  EXPECT_EQ(summary["nodes"][0]["engine"]["counters"]["lost_reason"], "no heartbeat for 2000 ms");
  EXPECT_TRUE(summary["accounting"]["balanced"].get<bool>()) << summary["accounting"].dump();
}

// The offset of the frame with index `index` (the header is frame 0).
uint64_t frame_offset(const std::string& path, int index) {
  std::ifstream in(path, std::ios::binary);
  uint64_t offset = 0;
  for (int i = 0; i < index; ++i) {
    unsigned char len[4];
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(len), 4);
    offset += 4 + ((uint64_t{len[0]} << 24) | (uint64_t{len[1]} << 16) | (uint64_t{len[2]} << 8) |
                   uint64_t{len[3]});
  }
  return offset;
}

// A trace that fails mid-read fails on the routing thread: the control thread ends the run as
// it always did. Every worker gets ABORT "trace read error", the exit status is "incomplete",
// and the accounting names the damaged frame and still balances.
TEST(FleetClock, ATraceErrorOnTheRoutingThreadStopsTheRun) {
  zmq::context_t ctx(1);
  FakeWorker w(ctx);
  VirtualRun run(w.host_port());
  const uint64_t bad = frame_offset(run.options.replay.trace_path, 1500);
  {
    std::fstream f(run.options.replay.trace_path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(bad));
    const char huge[4] = {'\xff', '\xff', '\xff', '\xff'};  // a length above any frame limit
    f.write(huge, 4);
  }
  run.start();
  w.handshake();
  std::optional<std::string> abort_reason;
  w.on_message = [&](const wire::Envelope& env) {
    if (env.kind == MessageType::Abort) abort_reason = env.as<wire::Abort>().reason;
  };
  ASSERT_TRUE(w.read_until([&] { return abort_reason.has_value(); }));
  EXPECT_EQ(*abort_reason, "trace read error");
  wire::Abort end;
  end.reason = "the test ends the run";
  w.send(end);
  auto code = run.exit_within(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, ExitCode::kRunIncomplete);
  const auto accounting = run.summary()["accounting"];
  EXPECT_TRUE(accounting["balanced"].get<bool>()) << accounting.dump();
  EXPECT_NE(accounting.value("remainder_error", "").find("frame at offset " + std::to_string(bad)),
            std::string::npos)
      << accounting.dump();
}

}  // namespace
}  // namespace fleet::session
