// A DONE whose result is malformed in a field the coordinator reads only when it writes the
// report (the L2 windows, the engine counters' L2 adapters) is refused when it arrives: the
// coordinator names the peer and the field, counts that worker lost, writes the partial report
// with every other node's result, and exits 3. Before, a mistyped L2 adapter counter passed
// and then threw from the terminal summary after the run: a json type_error naming no peer,
// and a run that exited 1 with its summary unprinted.
#include <zmq.hpp>

#include "fleet/replay/l2_windows.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

// Plays a worker on a ROUTER socket: answers the handshake, READY after START, a credit per
// batch and a heartbeat every 250 ms, and once END arrives, sends the DONE it was given.
class FakeWorker {
 public:
  FakeWorker(std::string name, std::string done) : name_(std::move(name)), done_(std::move(done)) {
    router_.set(zmq::sockopt::linger, 0);
    router_.set(zmq::sockopt::maxmsgsize, int64_t{-1});
    router_.bind("tcp://127.0.0.1:0");
  }
  std::string host_port() {
    const std::string ep = router_.get(zmq::sockopt::last_endpoint);
    return ep.substr(ep.find("//") + 2);
  }
  // Serves until `coord` exits (or `timeout` passes); true once the DONE went out.
  bool serve_until_exit(Process& coord, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    auto next_beat = Clock::now();
    while (coord.running() && Clock::now() < deadline) {
      zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, 20ms) > 0) answer_one();
      if (!coordinator_.empty() && Clock::now() >= next_beat) {
        send(wire::encode(wire::Heartbeat{}));
        next_beat = Clock::now() + 250ms;
      }
    }
    return done_sent_;
  }

 private:
  void answer_one() {
    zmq::message_t id, body;
    if (!router_.recv(id) || !router_.recv(body)) return;
    coordinator_ = id.to_string();
    const auto env = wire::decode(body.data(), body.size());
    if (env.type == "hello") {
      wire::Welcome w;
      w.build_id = "fake";
      w.hostname = name_;
      send(wire::encode(w));
    } else if (env.type == "ping") {
      const auto p = env.as<wire::Ping>();
      wire::Pong pong;
      pong.seq = p.seq;
      pong.coord_ns = p.coord_ns;
      send(wire::encode(pong));
    } else if (env.type == "start") {
      send(wire::encode(wire::Ready{}));
    } else if (env.type == "batch") {
      wire::Credit c;
      c.batches = 1;
      send(wire::encode(c));
    } else if (env.type == "end") {
      send(done_);
      done_sent_ = true;
    }
  }
  void send(const std::string& payload) {
    router_.send(zmq::buffer(coordinator_), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(payload));
  }

  std::string name_, done_;
  zmq::context_t ctx_{1};
  zmq::socket_t router_{ctx_, zmq::socket_type::router};
  std::string coordinator_;  // its routing id, once it has said something
  bool done_sent_ = false;
};

// A worker's result with L2 traffic (so the terminal summary has its L2 section) and an adapter
// with eviction on: what the report reads, as a worker writes it.
wire::NodeResult result_with_l2(const std::string& name) {
  wire::NodeResult r;
  r.name = name;
  r.status = wire::NodeStatus::Ok;
  r.duration_s = 0.5;
  std::vector<engine::L2Op> ops;
  for (int i = 0; i < 20; ++i)
    ops.push_back({0, i % 2 ? "store" : "load", 0, 2000 + i, 4096, true});
  r.l2_windows = replay::summarize_l2_ops(ops, 0);
  r.engine_counters = {
      {"l2_adapters", {{{"type", "resp"}, {"eviction_enabled", true}, {"evicted_keys", 3}}}}};
  return r;
}

struct BadField {
  const char* label;
  const char* refusal;  // what the coordinator says about the field
  void (*mutate)(wire::NodeResult&);
};

class DoneShape : public ::testing::TestWithParam<BadField> {};

TEST_P(DoneShape, AMistypedFieldLosesThatWorkerNamingItAndThePartialReportIsWritten) {
  const BadField& bad = GetParam();
  ScratchDir dir;
  const std::string path = synthetic_trace("small", 300);
  WorkerProcess real(dir.path().string(), "w", {"--engine", "noop"});
  ASSERT_TRUE(real.ok()) << real.proc().err();
  wire::NodeResult result = result_with_l2("fake-peer");
  bad.mutate(result);
  const auto done = wire::encode_done_message(result);
  FakeWorker fake("fake-peer", std::string(done.data(), done.size()));
  std::filesystem::create_directories(dir / "run");
  // Not -q: the terminal summary is where the mistyped counter used to throw. `continue`: the
  // real worker's whole result, whenever the fake's DONE comes.
  Process coord(
      {coordinator_bin(), path, "--progress", "never", "--workers",
       real.host_port() + "," + fake.host_port(), "--speed", "0", "--start-delay", "0",
       "--trace-access", "stream", "--on-worker-loss", "continue", "--output-dir", dir / "run"},
      dir / "run", "coordinator");
  ASSERT_TRUE(fake.serve_until_exit(coord, 30s)) << "no END reached the fake worker\n"
                                                 << coord.err();
  const auto code = coord.wait_exit(10s);
  ASSERT_TRUE(code) << coord.err();
  const std::string err = coord.err();
  EXPECT_EQ(*code, 3) << err;
  // The peer (address and name) and the field, at once; nothing thrown afterwards.
  const std::string peer = fake.host_port() + " (fake-peer)";
  EXPECT_NE(err.find("worker " + peer +
                     ": its result could not be decoded: malformed node "
                     "result: " +
                     bad.refusal),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("json.exception"), std::string::npos) << err;
  EXPECT_NE(err.find("run incomplete"), std::string::npos) << err;
  EXPECT_NE(coord.out().find("Fleet Replay"), std::string::npos) << "the terminal summary";
  // The partial report: the real worker's whole result, the fake node lost with the reason.
  const auto summary = nlohmann::json::parse(read_file(dir / "run/fleet_summary.json"));
  ASSERT_EQ(summary["nodes"].size(), 2u) << summary.dump();
  const auto& ok = summary["nodes"][0];
  const auto& lost = summary["nodes"][1];
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_GT(ok["records"]["total"].get<uint64_t>(), 0u);
  EXPECT_EQ(summary["records"]["total"], ok["records"]["total"]);
  EXPECT_EQ(lost["status"], "lost");
  EXPECT_EQ(lost["address"], fake.host_port());
  EXPECT_NE(lost["engine"]["counters"].value("lost_reason", "").find(bad.refusal),
            std::string::npos)
      << lost.dump();
  EXPECT_TRUE(std::filesystem::exists(dir / "run/report.html"));
  EXPECT_TRUE(real.proc().running()) << "the real worker serves the next run";
}

INSTANTIATE_TEST_SUITE_P(
    Fleet, DoneShape,
    ::testing::Values(BadField{"l2_windows", "l2_windows: must be an object",
                               [](wire::NodeResult& r) { r.l2_windows = "not an object"; }},
                      BadField{"l2_adapter_eviction",
                               "engine_counters.l2_adapters[0].eviction_enabled: must be a boolean",
                               [](wire::NodeResult& r) {
                                 r.engine_counters["l2_adapters"][0]["eviction_enabled"] = "yes";
                               }}),
    [](const ::testing::TestParamInfo<BadField>& info) { return std::string(info.param.label); });

}  // namespace
}  // namespace fleet::test
