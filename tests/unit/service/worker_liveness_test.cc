// The worker's heartbeat and loss rules on a VirtualClock: a real WorkerService on loopback and
// a test playing its coordinator, with time moved only by the test. Every assertion waits for
// an event (a message, the service returning), never for time to pass, so the outcome does
// not depend on how loaded the machine is.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "fleet/util/clock.h"
#include "fleet/wire/protocol.h"
#include "fleet/worker/worker_service.h"

namespace fleet::service {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kStart = 1'000'000'000'000;  // the virtual clock's first reading
constexpr int64_t kBeat = int64_t{wire::kHeartbeatMs} * 1'000'000;
constexpr int64_t kLost = kBeat * wire::kLostAfterHeartbeats;

// A worker served on its own thread, on a virtual clock.
class VirtualWorker {
 public:
  explicit VirtualWorker(int max_runs = 0) : clock_(kStart) {
    WorkerOptions o;
    o.listen = "tcp://127.0.0.1:0";
    o.name = "vworker";
    o.engine.engine_name = "noop";
    o.max_runs = max_runs;
    o.clock = &clock_;
    service_ = std::make_unique<WorkerService>(o);
    done_ = std::async(std::launch::async, [this] { ASSERT_TRUE(service_->serve().ok()); });
    for (int i = 0; i < 500 && service_->endpoint().empty(); ++i) std::this_thread::sleep_for(10ms);
  }
  ~VirtualWorker() {
    service_->stop();
    done_.wait();
  }
  std::string endpoint() const { return service_->endpoint(); }
  util::VirtualClock& clock() { return clock_; }
  bool returned_within(std::chrono::seconds t) {
    return done_.wait_for(t) == std::future_status::ready;
  }

 private:
  util::VirtualClock clock_;
  std::unique_ptr<WorkerService> service_;
  std::future<void> done_;
};

// One coordinator's DEALER socket; collects what the worker sends.
class FakeCoordinator {
 public:
  FakeCoordinator(zmq::context_t& ctx, const std::string& endpoint, const std::string& id)
      : sock_(ctx, zmq::socket_type::dealer) {
    sock_.set(zmq::sockopt::routing_id, id);
    sock_.set(zmq::sockopt::linger, 0);
    sock_.connect(endpoint);
  }
  template <class Msg>
  void send(const Msg& m) {
    std::string bytes = wire::encode(m);
    sock_.send(zmq::buffer(bytes));
  }
  // The next message (within a generous real-time bound that only guards against a hang).
  std::optional<wire::Envelope> next() {
    zmq::pollitem_t item{sock_.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, 10s) <= 0) return std::nullopt;
    auto m = std::make_shared<zmq::message_t>();
    if (!sock_.recv(*m)) return std::nullopt;
    keep_.push_back(m);
    return wire::decode(m->data(), m->size());
  }
  // Messages up to and including the first of `kind`; the count of `count_kind` among them.
  int until(wire::MessageType kind, wire::MessageType count_kind) {
    int n = 0;
    while (auto env = next()) {
      if (env->kind == count_kind) ++n;
      if (env->kind == kind) return n;
    }
    ADD_FAILURE() << "no " << wire::message_type_name(kind) << " arrived";
    return n;
  }
  // Every duty the worker owes for the clock's current reading is done once two PINGs have
  // come back: the worker sends a PONG and then runs its periodic duties in the same loop
  // pass, so whatever the current time makes due precedes the second PONG. Returns the
  // heartbeats seen in between.
  int heartbeats_due() {
    int beats = 0;
    for (int seq = 0; seq < 2; ++seq) {
      wire::Ping p;
      p.seq = seq;
      send(p);
      beats += until(wire::MessageType::Pong, wire::MessageType::Heartbeat);
    }
    return beats;
  }
  wire::Welcome hello() {
    wire::Hello h;
    h.build_id = "test";
    send(h);
    while (auto env = next()) {
      if (env->kind == wire::MessageType::Welcome) return env->as<wire::Welcome>();
    }
    ADD_FAILURE() << "no welcome";
    return {};
  }

 private:
  zmq::socket_t sock_;
  std::vector<std::shared_ptr<zmq::message_t>> keep_;
};

TEST(WorkerLiveness, HeartbeatsFollowTheClockNotTheWallClock) {
  VirtualWorker w;
  ASSERT_FALSE(w.endpoint().empty());
  zmq::context_t ctx(1);
  FakeCoordinator c(ctx, w.endpoint(), "coord-a");
  ASSERT_TRUE(c.hello().reject.empty());
  EXPECT_EQ(c.heartbeats_due(), 1) << "the first heartbeat goes out at once";
  EXPECT_EQ(c.heartbeats_due(), 0) << "time stood still: no second heartbeat";
  w.clock().advance_by(kBeat - 1);
  EXPECT_EQ(c.heartbeats_due(), 0) << "one nanosecond before the period";
  w.clock().advance_by(1);
  EXPECT_EQ(c.heartbeats_due(), 1);
  w.clock().advance_by(kLost);  // the longest silence that is not yet a loss
  EXPECT_EQ(c.heartbeats_due(), 1) << "a long gap is one heartbeat, not a burst";
}

TEST(WorkerLiveness, PongsStampTheInjectedClock) {
  VirtualWorker w;
  zmq::context_t ctx(1);
  FakeCoordinator c(ctx, w.endpoint(), "coord-a");
  c.hello();
  w.clock().advance_to(kStart + 12345);
  wire::Ping p;
  p.seq = 7;
  p.coord_ns = 42;
  c.send(p);
  while (auto env = c.next()) {
    if (env->kind != wire::MessageType::Pong) continue;
    auto pong = env->as<wire::Pong>();
    EXPECT_EQ(pong.seq, 7);
    EXPECT_EQ(pong.coord_ns, 42);
    EXPECT_EQ(pong.worker_ns, kStart + 12345);
    return;
  }
  FAIL() << "no pong";
}

// Silence is "longer than three periods": at exactly 3 the coordinator still holds the worker
// (another coordinator is told it is busy); one nanosecond later the run is aborted and, with
// --max-runs 1, the worker exits instead of serving nobody.
TEST(WorkerLiveness, ACoordinatorSilentForLongerThanTheBudgetIsDropped) {
  VirtualWorker w(/*max_runs=*/1);
  zmq::context_t ctx(1);
  FakeCoordinator a(ctx, w.endpoint(), "coord-a");
  ASSERT_TRUE(a.hello().reject.empty());
  wire::Start s;
  s.speed = 0;
  s.engine_name = "noop";
  a.send(s);
  a.heartbeats_due();  // START handled; the worker last heard "a" at kStart
  w.clock().advance_to(kStart + kLost);
  FakeCoordinator b(ctx, w.endpoint(), "coord-b");
  EXPECT_EQ(b.hello().reject, "busy: running another coordinator's replay");
  EXPECT_FALSE(w.returned_within(0s));
  w.clock().advance_by(1);
  EXPECT_TRUE(w.returned_within(10s)) << "the lost coordinator's run counts against --max-runs";
}

// A GO whose T0 lies further ahead than any run asks for (--start-delay's limit) is refused
// with the reason, not waited out (a GO within it starts the run: protocol_test's runs).
TEST(WorkerLiveness, AGoTooFarAheadIsRefusedWithTheReason) {
  VirtualWorker w;
  zmq::context_t ctx(1);
  FakeCoordinator a(ctx, w.endpoint(), "coord-a");
  ASSERT_TRUE(a.hello().reject.empty());
  wire::Start s;
  s.speed = 0;
  s.engine_name = "noop";
  a.send(s);
  a.until(wire::MessageType::Ready, wire::MessageType::Ready);
  wire::Go go;
  go.t0_worker_ns = kStart + wire::kMaxGoLeadNs + 1;
  a.send(go);
  while (auto env = a.next()) {
    if (env->kind != wire::MessageType::Abort) continue;
    const auto abort = env->as<wire::Abort>();
    EXPECT_EQ(abort.kind, "protocol");
    EXPECT_NE(abort.reason.find("GO puts T0 3660 s ahead; at most 3660 s is accepted"),
              std::string::npos)
        << abort.reason;
    return;
  }
  FAIL() << "no ABORT for a GO 3660 s ahead";
}

TEST(WorkerLiveness, ALostCoordinatorFreesTheWorkerForTheNext) {
  VirtualWorker w;
  zmq::context_t ctx(1);
  FakeCoordinator a(ctx, w.endpoint(), "coord-a");
  ASSERT_TRUE(a.hello().reject.empty());
  a.heartbeats_due();
  w.clock().advance_by(kLost + 1);
  // The loss is noticed in the worker's next loop pass; "a"'s own PING after it is answered
  // by a worker that no longer knows it ("before hello": no PONG), so wait on "b" instead.
  FakeCoordinator b(ctx, w.endpoint(), "coord-b");
  wire::Welcome welcome;
  for (int i = 0; i < 100; ++i) {  // bounded: the loss takes effect within one poll (10 ms)
    welcome = b.hello();
    if (welcome.reject.empty()) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(welcome.reject, "");
}

// What keeps a worker from serving is a Status naming the flag, before any socket is bound.
TEST(WorkerServe, ARefusedListenAddressIsAnErrorNotAnException) {
  WorkerOptions o;
  o.listen = "tcp://0.0.0.0:0";  // every interface, without CURVE or --insecure
  o.engine.engine_name = "noop";
  WorkerService exposed(o);
  const Status s = exposed.serve();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("--listen tcp://0.0.0.0:0", 0), 0u) << s.message();
  EXPECT_EQ(s.code(), ExitCode::kBadInput);
  zmq::context_t ctx(1);
  zmq::socket_t taken(ctx, zmq::socket_type::router);
  taken.bind("tcp://127.0.0.1:0");  // the port another process holds
  o.listen = taken.get(zmq::sockopt::last_endpoint);
  WorkerService unbindable(o);
  const Status refused = unbindable.serve();
  EXPECT_EQ(refused.message().rfind("--listen " + o.listen + ": cannot bind: ", 0), 0u)
      << refused.message();
}

}  // namespace
}  // namespace fleet::service
