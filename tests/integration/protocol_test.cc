// The wire protocol against real processes: a version mismatch is refused with a clear message
// on both sides, garbage on a worker's port during a run is rejected without harming it, and a
// damaged batch stream from the run's own coordinator stops the run with the reason.
#include "fleet/wire/protocol.h"

#include <random>
#include <zmq.hpp>

#include "fleet/wire/batch.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

std::optional<zmq::message_t> recv_within(zmq::socket_t& s, std::chrono::milliseconds t) {
  zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, t) <= 0) return std::nullopt;
  zmq::message_t m;
  if (!s.recv(m, zmq::recv_flags::dontwait)) return std::nullopt;
  return m;
}

TEST(ProtocolVersion, WorkerRefusesAHelloOfAnotherVersion) {
  ScratchDir dir;
  WorkerProcess w(dir.path().string(), "w");
  ASSERT_TRUE(w.ok()) << w.proc().err();
  zmq::context_t ctx(1);
  zmq::socket_t dealer(ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(w.endpoint());
  wire::Hello h;
  h.v = 99;
  h.build_id = "future";
  std::string bytes = wire::encode(h);
  dealer.send(zmq::buffer(bytes));
  auto reply = recv_within(dealer, 5s);
  ASSERT_TRUE(reply) << "no answer; worker stderr:\n" << w.proc().err();
  auto env = wire::decode(reply->data(), reply->size());
  ASSERT_EQ(env.type, "welcome");
  EXPECT_EQ(env.version, wire::kProtocolVersion);
  auto welcome = env.as<wire::Welcome>();
  EXPECT_NE(welcome.reject.find("protocol version 99"), std::string::npos) << welcome.reject;
  EXPECT_NE(welcome.reject.find("version " + std::to_string(wire::kProtocolVersion)),
            std::string::npos)
      << welcome.reject;
  EXPECT_TRUE(w.proc().wait_stderr("protocol version 99", 2s));
  EXPECT_TRUE(w.proc().running());
}

TEST(ProtocolVersion, CoordinatorRefusesAWorkerOfAnotherVersion) {
  ScratchDir dir;
  zmq::context_t ctx(1);
  zmq::socket_t router(ctx, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:0");
  std::string ep = router.get(zmq::sockopt::last_endpoint);
  std::string host_port = ep.substr(ep.find("//") + 2);
  std::filesystem::create_directories(dir / "run");
  Process coord({coordinator_bin(), synthetic_trace("small", 300), "-q", "--workers", host_port,
                 "--connect-timeout", "5000", "--output-dir", dir / "run"},
                dir / "run", "coordinator");
  // Play a worker from the future: answer the hello with a version-99 welcome.
  bool answered = false;
  auto deadline = Clock::now() + 10s;
  while (!answered && Clock::now() < deadline && coord.running()) {
    zmq::pollitem_t item{router.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, 50ms) <= 0) continue;
    zmq::message_t id, body;
    ASSERT_TRUE(router.recv(id));
    ASSERT_TRUE(id.more());
    ASSERT_TRUE(router.recv(body));
    auto env = wire::decode(body.data(), body.size());
    if (env.type != "hello") continue;
    wire::Welcome w;
    w.v = 99;
    w.build_id = "future";
    w.hostname = "fake";
    std::string bytes = wire::encode(w);
    router.send(id, zmq::send_flags::sndmore);
    router.send(zmq::buffer(bytes));
    answered = true;
  }
  ASSERT_TRUE(answered) << coord.err();
  auto code = coord.wait_exit(10s);
  ASSERT_TRUE(code) << coord.err();
  EXPECT_EQ(*code, 2);
  EXPECT_NE(coord.err().find("protocol version 99"), std::string::npos) << coord.err();
  EXPECT_NE(coord.err().find(host_port), std::string::npos) << "the message names the worker";
}

// Everything a confused or hostile peer might send; none of it may disturb the run.
std::vector<std::string> garbage() {
  std::vector<std::string> g;
  std::mt19937_64 rng(3);
  std::string random(4096, '\0');
  for (auto& c : random) c = static_cast<char>(rng());
  g.push_back(random);
  g.push_back(std::string("\x93\x01\x02\x03", 4));      // [1,2,3]: not a map
  g.push_back(std::string("\xdd\xff\xff\xff\xff", 5));  // array of 2^32-1, no data
  g.push_back(std::string("\xdd\x00\xff\xff\xff", 5));  // array of 2^24-1, no data
  g.push_back(std::string("\xdf\x7f\xff\xff\xff", 5));  // map of 2^31-1, no data
  g.push_back(std::string("\xc6\x7f\xff\xff\xff", 5));  // bin of 2 GiB, no data
  g.push_back(
      std::string("\x81\xa1t\xa5"
                  "batch",
                  8));  // map without "v"
  g.push_back(
      std::string("\x82\xa1v\x01\xa1t\xa5"
                  "batch",
                  11));        // a v1 "batch" from a stranger
  g.push_back(std::string());  // empty
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += '\x91';  // nesting 200 deep
  deep += '\x01';
  g.push_back(deep);
  return g;
}

TEST(Garbage, RejectedWithoutHarmingARunningReplay) {
  const std::string path = synthetic_trace("long", 1800, 1, 50.0);
  const TraceCounts tc = count_trace(path);
  ScratchDir dir;
  WorkerProcess w(dir.path().string(), "w", {"--engine", "noop"});
  ASSERT_TRUE(w.ok()) << w.proc().err();
  std::filesystem::create_directories(dir / "run");
  Process coord({coordinator_bin(), path, "-q", "--progress", "never", "--workers", w.host_port(),
                 "--speed", "3", "--start-delay", "0.2", "--output-dir", dir / "run"},
                dir / "run", "coordinator");
  ASSERT_TRUE(w.proc().wait_stderr("run started", 15s)) << coord.err();

  zmq::context_t ctx(1);
  zmq::socket_t dealer(ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(w.endpoint());
  for (int round = 0; round < 20; ++round) {
    for (const auto& g : garbage()) dealer.send(zmq::buffer(g));
    // Multi-frame junk too (a ROUTER expects identity + one body).
    dealer.send(zmq::str_buffer("a"), zmq::send_flags::sndmore);
    dealer.send(zmq::str_buffer("b"));
  }
  auto code = coord.wait_exit(30s);
  ASSERT_TRUE(code) << coord.err();
  EXPECT_EQ(*code, 0) << coord.err();
  auto summary = nlohmann::json::parse(read_file(dir / "run/fleet_summary.json"));
  EXPECT_EQ(summary["records"]["total"].get<uint64_t>(), tc.records);
  EXPECT_EQ(summary["records"]["failed"], 0);
  EXPECT_EQ(summary["nodes"][0]["status"], "ok");
  const std::string log = w.proc().err();
  EXPECT_NE(log.find("rejected message"), std::string::npos);
  EXPECT_TRUE(w.proc().running());
  const uint64_t hwm = vm_hwm_bytes(w.proc().pid());
  std::cout << "[ measured ] worker VmHWM after garbage: " << hwm / 1024 << " KiB\n";
  EXPECT_LT(hwm, 256ull << 20) << "garbage must not make the worker allocate what it declares";
}

}  // namespace
}  // namespace fleet::test

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

// A worker listening on IPv6 loopback and a coordinator given "[::1]:port": a complete run.
TEST(Ipv6, WorkerOnIpv6LoopbackCompletesARun) {
  if (::system("ip -6 addr show lo 2>/dev/null | grep -q '::1'") != 0)
    GTEST_SKIP() << "no IPv6 loopback on this host: IPv6 test SKIPPED";
  ScratchDir dir;
  Process w(
      {worker_bin(), "--listen", "tcp://[::1]:0", "--announce", "--name", "v6", "--engine", "noop"},
      dir.path().string(), "w6");
  auto line = w.wait_stdout_line("LISTENING ", 20s);
  ASSERT_TRUE(line) << w.err();
  ASSERT_NE(line->find("[::1]"), std::string::npos) << *line;
  const std::string host_port = line->substr(line->find("//") + 2);
  const std::string path = synthetic_trace("ipv6", 300);
  RunResult r = run_coordinator(
      {path, "-q", "--workers", host_port, "--start-delay", "0.2", "--speed", "0"}, dir / "run");
  EXPECT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(r.summary.is_object()) << r.err;
  EXPECT_EQ(r.summary["records"]["total"].get<uint64_t>(), count_trace(path).records);
  EXPECT_EQ(r.summary["nodes"][0]["address"], host_port);
}

// dns: with --expect-workers larger than what the name lists: re-resolved until
// --connect-timeout, then a clear error (exit 2) that names what was found.
TEST(DnsWorkers, ExpectWorkersWaitsForTheNameThenFailsClearly) {
  ScratchDir dir;
  const std::string path = synthetic_trace("dns_wait", 50);
  const auto start = Clock::now();
  RunResult r = run_coordinator({path, "-q", "--workers", "dns:localhost:5999", "--expect-workers",
                                 "9", "--connect-timeout", "1200"},
                                dir / "run");
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--expect-workers 9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dns:localhost:5999"), std::string::npos) << r.err;
  EXPECT_GE(waited, 1.0) << "the name was resolved once instead of until the timeout";
}

}  // namespace
}  // namespace fleet::test

namespace fleet::test {
namespace {

zmq::socket_t dealer_to(zmq::context_t& ctx, WorkerProcess& w) {
  zmq::socket_t dealer(ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  if (w.ok()) dealer.connect(w.endpoint());
  return dealer;
}

// Plays a coordinator's opening: HELLO, the WELCOME, then START of a noop run at full speed
// and its GO with T0 = now.
void start_noop_run(zmq::socket_t& dealer, WorkerProcess& w) {
  dealer.send(zmq::buffer(wire::encode(wire::Hello{})));
  auto welcome = recv_within(dealer, 5s);
  ASSERT_TRUE(welcome) << w.proc().err();
  ASSERT_EQ(wire::decode(welcome->data(), welcome->size()).type, "welcome");
  wire::Start s;
  s.speed = 0;
  s.engine_name = "noop";
  dealer.send(zmq::buffer(wire::encode(s)));
  wire::Go go;
  go.t0_worker_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
  dealer.send(zmq::buffer(wire::encode(go)));
}

// Plays a coordinator through a whole (empty) run against a --max-runs 1 worker and returns
// once the worker's DONE has arrived.
void run_empty_replay(zmq::socket_t& dealer, WorkerProcess& w) {
  start_noop_run(dealer, w);
  if (::testing::Test::HasFatalFailure()) return;
  dealer.send(zmq::buffer(wire::encode(wire::End{})));
  auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline) {
    auto m = recv_within(dealer, 1s);
    if (m && wire::decode(m->data(), m->size()).type == "done") return;
  }
  FAIL() << "no DONE; worker stderr:\n" << w.proc().err();
}

// A --max-runs 1 worker, and a DEALER that plays its coordinator.
class MaxRunsWorker : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(w_.ok()) << w_.proc().err(); }
  ScratchDir dir_;
  WorkerProcess w_{dir_.path().string(), "w", {"--max-runs", "1"}};
  zmq::context_t ctx_{1};
  zmq::socket_t dealer_ = dealer_to(ctx_, w_);
};

// It must not close its connection while its DONE may still be in flight (a close with
// unread input resets TCP and the result is lost): it waits for DONE_ACK.
TEST_F(MaxRunsWorker, ExitsOnlyOnceItsResultIsAcknowledged) {
  run_empty_replay(dealer_, w_);
  // The claim is that an exit does not come, so it gets a window to show up in (elapsed time
  // is the test here): an early exit follows DONE at once, an unacknowledged worker lingers
  // 1.5 s.
  EXPECT_FALSE(w_.proc().wait_exit(400ms).has_value())
      << "exited before its result was acknowledged";
  dealer_.send(zmq::buffer(wire::encode(wire::DoneAck{})));
  auto code = w_.proc().wait_exit(3s);
  ASSERT_TRUE(code) << "still running after DONE_ACK";
  EXPECT_EQ(*code, 0);
}

TEST_F(MaxRunsWorker, ExitsWithoutAnAcknowledgementToo) {
  run_empty_replay(dealer_, w_);
  auto code = w_.proc().wait_exit(6s);  // 3 heartbeat intervals (1.5 s) plus slack
  ASSERT_TRUE(code) << "a worker whose coordinator vanished after DONE kept running";
  EXPECT_EQ(*code, 0);
  EXPECT_NE(w_.proc().err().find("no acknowledgement from the coordinator"), std::string::npos)
      << w_.proc().err();
}

// A run it refused (its engine config) still counts: it exits instead of idling forever with
// nobody to serve (a Slurm step would never end).
TEST_F(MaxRunsWorker, CountsARefusedRun) {
  dealer_.send(zmq::buffer(wire::encode(wire::Hello{})));
  ASSERT_TRUE(recv_within(dealer_, 5s)) << w_.proc().err();
  wire::Start s;
  s.engine_config_json = "{ not json";
  dealer_.send(zmq::buffer(wire::encode(s)));
  bool aborted = false;
  for (int i = 0; i < 20 && !aborted; ++i) {
    auto m = recv_within(dealer_, 500ms);
    if (m) aborted = wire::decode(m->data(), m->size()).type == "abort";
  }
  EXPECT_TRUE(aborted) << w_.proc().err();
  auto code = w_.proc().wait_exit(6s);
  ASSERT_TRUE(code) << "a --max-runs 1 worker kept serving after its refused run";
  EXPECT_EQ(*code, 0);
}

}  // namespace
}  // namespace fleet::test

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

// A worker whose coordinator's batch stream arrives damaged must stop the run and say why
// (ABORT kind "protocol"), never replay fewer records than the coordinator accounts for.
class DamagedBatchStream : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(w_.ok()) << w_.proc().err();
    start_noop_run(dealer_, w_);
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_TRUE(w_.proc().wait_stderr("run started", 5s)) << w_.proc().err();
  }
  void send(const std::string& bytes) { dealer_.send(zmq::buffer(bytes)); }
  // A batch of the given record bodies, sent uncompressed.
  void send_batch(int64_t seq, const std::vector<std::string>& bodies) {
    wire::BatchBuilder b;
    for (const auto& body : bodies) b.add(body);
    send(wire::finish_batch_message(b, seq, 0.0, wire::BatchCodec::None, 0).bytes);
  }
  // The worker's answer: an ABORT of kind "protocol" whose reason holds `what`.
  void expect_protocol_abort(const std::string& what) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto m = recv_within(dealer_, 500ms);
      if (!m) continue;
      auto env = wire::decode(m->data(), m->size());
      ASSERT_NE(env.type, "done") << "the run ended as if nothing was lost";
      if (env.type != "abort") continue;
      auto a = env.as<wire::Abort>();
      EXPECT_EQ(a.kind, "protocol");
      EXPECT_NE(a.reason.find(what), std::string::npos) << a.reason;
      EXPECT_TRUE(w_.proc().running()) << "the worker must survive and serve the next run";
      return;
    }
    FAIL() << "no ABORT; worker stderr:\n" << w_.proc().err();
  }
  const std::string record_ = [] {  // one valid record frame body, from a real trace
    trace::FrameReader reader(synthetic_trace("damaged-stream", 5));
    trace::RecordView rec;
    EXPECT_TRUE(reader.next(rec));
    return std::string(reinterpret_cast<const char*>(rec.body), rec.body_size);
  }();
  ScratchDir dir_;
  WorkerProcess w_{dir_.path().string(), "w", {"--engine", "noop"}};
  zmq::context_t ctx_{1};
  zmq::socket_t dealer_ = dealer_to(ctx_, w_);
};

TEST_F(DamagedBatchStream, AGapInBatchNumbersStopsTheRun) {
  send_batch(0, {record_});
  send_batch(2, {record_});  // batch 1 never arrived
  expect_protocol_abort("batch 2 arrived where 1 was due");
}

TEST_F(DamagedBatchStream, ABatchHoldingOtherThanItsAnnouncedRecordsStopsTheRun) {
  wire::BatchBuilder b;
  b.add(record_);
  auto msg = wire::finish_batch_message(b, 0, 0.0, wire::BatchCodec::None, 0);
  auto env = wire::decode(msg.bytes.data(), msg.bytes.size());
  auto batch = env.as<wire::Batch>();
  batch.records = 2;
  send(wire::encode(batch));
  expect_protocol_abort("holds 1 records, 2 announced");
}

TEST_F(DamagedBatchStream, AnUndecodableBatchStopsTheRun) {
  wire::Batch batch;
  batch.records = 1;
  batch.raw_bytes = 64;
  batch.codec = "zstd";
  const std::string junk(40, '\x55');
  batch.data = msgpack::type::raw_ref(junk.data(), static_cast<uint32_t>(junk.size()));
  send(wire::encode(batch));
  expect_protocol_abort("damaged batch stream");
}

TEST_F(DamagedBatchStream, ARecordThatDoesNotParseStopsTheRun) {
  send_batch(0, {record_, std::string("\x93\x01\x02\x03", 4), record_});
  wire::End e;
  e.batches = 1;
  e.records = 3;
  send(wire::encode(e));
  expect_protocol_abort("batch 0, record 1 does not parse");
}

TEST_F(DamagedBatchStream, AnEndAnnouncingOtherCountsStopsTheRun) {
  send_batch(0, {record_, record_});
  wire::End e;
  e.batches = 2;
  e.records = 3;
  send(wire::encode(e));
  expect_protocol_abort("the coordinator sent 2 batches (3 records), 1 (2 records) arrived");
}

}  // namespace
}  // namespace fleet::test

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

// A worker whose DONE cannot be decoded is reported lost for that reason at once, not as a
// worker that merely fell silent afterwards.
TEST(UndecodableResult, TheNodeIsLostWithTheDecodeError) {
  ScratchDir dir;
  zmq::context_t ctx(1);
  zmq::socket_t router(ctx, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:0");
  std::string ep = router.get(zmq::sockopt::last_endpoint);
  std::string host_port = ep.substr(ep.find("//") + 2);
  std::filesystem::create_directories(dir / "run");
  Process coord(
      {coordinator_bin(), synthetic_trace("small", 300), "-q", "--workers", host_port, "--speed",
       "0", "--start-delay", "0", "--trace-access", "stream", "--output-dir", dir / "run"},
      dir / "run", "coordinator");
  // Play a worker that answers everything and, once the run ends, sends a damaged result.
  bool sent_done = false;
  const auto deadline = Clock::now() + 15s;
  while (!sent_done && Clock::now() < deadline && coord.running()) {
    zmq::pollitem_t item{router.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, 50ms) <= 0) continue;
    zmq::message_t id, body;
    ASSERT_TRUE(router.recv(id));
    ASSERT_TRUE(router.recv(body));
    const auto env = wire::decode(body.data(), body.size());
    std::string reply;
    if (env.type == "hello") {
      wire::Welcome w;
      w.build_id = "fake";
      w.hostname = "fake";
      reply = wire::encode(w);
    } else if (env.type == "ping") {
      const auto p = env.as<wire::Ping>();
      wire::Pong pong;
      pong.seq = p.seq;
      pong.coord_ns = p.coord_ns;
      reply = wire::encode(pong);
    } else if (env.type == "end") {
      const std::string junk = std::string("\0\0\0\x05", 4) + "\xc1\xc1\xc1\xc1\xc1";
      wire::Done d;
      d.result = msgpack::type::raw_ref(junk.data(), static_cast<uint32_t>(junk.size()));
      reply = wire::encode(d);
      sent_done = true;
    }
    if (reply.empty()) continue;
    router.send(id, zmq::send_flags::sndmore);
    router.send(zmq::buffer(reply));
  }
  ASSERT_TRUE(sent_done) << coord.err();
  const auto sent = Clock::now();
  auto code = coord.wait_exit(10s);
  ASSERT_TRUE(code) << coord.err();
  EXPECT_LT(Clock::now() - sent, 1s) << "reported at once, not after the heartbeat timeout";
  EXPECT_EQ(*code, 3) << coord.err();
  EXPECT_NE(coord.err().find("its result could not be decoded"), std::string::npos) << coord.err();
  auto summary = nlohmann::json::parse(read_file(dir / "run/fleet_summary.json"));
  EXPECT_EQ(summary["nodes"][0]["status"], "lost");
  EXPECT_NE(summary["nodes"][0]["engine"]["counters"]["lost_reason"].get<std::string>().find(
                "could not be decoded"),
            std::string::npos);
}

}  // namespace
}  // namespace fleet::test
