// What a START may ask of a worker (worker/service/start_limits.h): a coordinator that sends a
// node count of 0 with an L2 source shard (a division by zero once), a credit window near
// INT_MAX, a 100-character or ':'-holding key namespace for an L2 run, an infinite drain
// timeout, a NaN file shift, more L2 files than a worker takes, or a NaN speed or origin gets
// an ABORT of kind "protocol" naming the field, and the worker lives on to serve the next run.
#include <fstream>
#include <functional>
#include <zmq.hpp>

#include "fleet/wire/protocol.h"
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

struct Case {
  const char* name;
  std::function<void(wire::Start&, const std::string& l2_file)> spoil;
  const char* expected;  // in the ABORT's reason
};

// An L2 run by source over one file under the worker's --trace-root: the shape the division by
// zero needed; each case spoils one field of it.
wire::Start l2_start(const std::string& file) {
  wire::Start s;
  s.speed = 0;
  s.engine_config_json =
      R"({"l2_adapter":[{"type":"mock","max_size_gb":1,"mock_bandwidth_gb":10}]})";
  s.l2.on = true;
  s.l2.shard = "source";
  s.l2.trace_paths = {file};
  s.l2.shift_s = {0.0};
  return s;
}

class StartLimits : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::ofstream(l2_file_) << "not read: the start is refused first";
    ASSERT_TRUE(w_.ok()) << w_.proc().err();
    dealer_.set(zmq::sockopt::linger, 0);
    dealer_.connect(w_.endpoint());
  }
  // HELLO, WELCOME, then `s`: the worker's answer must be an ABORT of kind `kind` whose reason
  // holds `expected`.
  void expect_refused(const wire::Start& s, const std::string& expected,
                      const std::string& kind = "protocol") {
    dealer_.send(zmq::buffer(wire::encode(wire::Hello{})));
    auto welcome = recv_within(dealer_, 5s);
    ASSERT_TRUE(welcome) << w_.proc().err();
    ASSERT_EQ(wire::decode(welcome->data(), welcome->size()).type, "welcome");
    dealer_.send(zmq::buffer(wire::encode(s)));
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto m = recv_within(dealer_, 500ms);
      if (!m) continue;
      auto env = wire::decode(m->data(), m->size());
      ASSERT_NE(env.type, "ready") << "the worker accepted the start";
      if (env.type != "abort") continue;
      auto a = env.as<wire::Abort>();
      EXPECT_EQ(a.kind, kind) << a.reason;
      EXPECT_NE(a.reason.find(expected), std::string::npos) << a.reason;
      EXPECT_TRUE(w_.proc().running()) << w_.proc().err();
      return;
    }
    FAIL() << "no ABORT; worker stderr:\n" << w_.proc().err();
  }
  ScratchDir dir_;
  const std::string l2_file_ = (dir_.path() / "server0.lct").string();
  WorkerProcess w_{dir_.path().string(), "w", {"--trace-root", dir_.path().string()}};
  zmq::context_t ctx_{1};
  zmq::socket_t dealer_{ctx_, zmq::socket_type::dealer};
};

TEST_P(StartLimits, RefusedByNameAndTheWorkerLivesOn) {
  wire::Start s = l2_start(l2_file_);
  GetParam().spoil(s, l2_file_);
  expect_refused(s, GetParam().expected);
  if (HasFailure()) return;
  // The next (valid-shaped) start is served as usual: past the limits, to the file (not a trace).
  expect_refused(l2_start(l2_file_), "server0.lct: frame at offset 0", "trace");
}

INSTANTIATE_TEST_SUITE_P(
    Fields, StartLimits,
    ::testing::Values(
        Case{"NodeCountZero", [](wire::Start& s, auto&) { s.node_count = 0; }, "node 0 of 0"},
        Case{"NodeIndexPastTheCount", [](wire::Start& s, auto&) { s.node_index = 1; },
             "node 1 of 1"},
        Case{"NodeCountHuge", [](wire::Start& s, auto&) { s.node_count = INT32_MAX; },
             "1 to 65536 nodes"},
        Case{"CreditWindowHuge", [](wire::Start& s, auto&) { s.credit_window = INT32_MAX; },
             "credit window 2147483647"},
        Case{"NamespaceTooLong",
             [](wire::Start& s, auto&) { s.l2_key_namespace = std::string(100, 'a'); },
             "at most 64 characters, got 100"},
        Case{"NamespaceWithAColon", [](wire::Start& s, auto&) { s.l2_key_namespace = "a:b"; },
             "only letters, digits"},
        Case{"DrainTimeoutInfinite", [](wire::Start& s, auto&) { s.l2.drain_timeout_s = INFINITY; },
             "drain timeout"},
        Case{"ShiftNotFinite", [](wire::Start& s, auto&) { s.l2.shift_s = {NAN}; },
             "time shift is not finite"},
        Case{"TooManyFiles",
             [](wire::Start& s, const std::string& f) {
               s.l2.trace_paths.assign(wire::kMaxL2TraceFiles + 1, f);
               s.l2.shift_s.assign(wire::kMaxL2TraceFiles + 1, 0.0);
             },
             "1025 trace files (at most 1024)"},
        Case{"SpeedNaN", [](wire::Start& s, auto&) { s.speed = NAN; }, "speed"},
        Case{"OriginNaN", [](wire::Start& s, auto&) { s.t_origin = NAN; },
             "trace origin is not finite"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace fleet::test
