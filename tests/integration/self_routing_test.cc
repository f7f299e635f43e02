// Workers that route themselves (--routing workers, docs/sharding.md): each worker reads the
// trace, routes every record with the plan room's router and replays its own share. The
// outputs must be byte for byte those of a coordinator-routed run (none, key, time), the
// record accounting must balance, the plan must say who routed, and a worker given a plan it
// cannot follow refuses the run naming what is wrong.
#include <regex>
#include <zmq.hpp>

#include "fleet/trace/shared_trace.h"
#include "fleet/wire/protocol.h"
#include "fleet_fixture.h"
#include "self_routed_outputs.h"

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

RunResult run_routed(const std::string& path, const std::string& routing, const std::string& shard,
                     const std::string& out_dir) {
  return run_coordinator({path, "--local", "2", "--shard", shard, "--window", "1", "--speed", "0",
                          "--clock", "virtual", "--config-from-trace", "--start-delay", "0.3",
                          "--trace-access", "shared", "--routing", routing},
                         out_dir);
}

void expect_routed_by(const RunResult& r, const std::string& who) {
  ASSERT_TRUE(r.summary["plan"]["workers"].is_array()) << r.summary.dump();
  for (const auto& w : r.summary["plan"]["workers"]) EXPECT_EQ(w["routed_by"], who);
}

TEST(SelfRouting, OutputsAreByteIdenticalToCoordinatorRouting) {
  const std::string path = synthetic_trace("selfroute", 3000, /*tp=*/2);
  const uint64_t records = count_trace(path).records;
  for (const std::string shard : {"none", "key", "time"}) {
    ScratchDir out;
    RunResult by_coord = run_routed(path, "coordinator", shard, out / "coordinator");
    RunResult by_workers = run_routed(path, "workers", shard, out / "workers");
    ASSERT_EQ(by_coord.code, 0) << shard << "\n" << by_coord.err;
    ASSERT_EQ(by_workers.code, 0) << shard << "\n" << by_workers.err;
    expect_routed_by(by_coord, "coordinator");
    expect_routed_by(by_workers, "worker");
    // Nothing travelled: no record was sent, by value or by reference.
    EXPECT_EQ(by_workers.summary["coordinator"]["records_sent"], 0u) << shard;
    EXPECT_GT(by_coord.summary["coordinator"]["records_sent"].get<uint64_t>(), 0u) << shard;
    EXPECT_EQ(read_file(by_coord.dir + "/trace_replay_ops.csv"),
              read_file(by_workers.dir + "/trace_replay_ops.csv"))
        << shard;
    EXPECT_FALSE(read_file(by_workers.dir + "/trace_replay_ops.csv").empty()) << shard;
    EXPECT_EQ(stable_stdout(by_coord.out), stable_stdout(by_workers.out)) << shard;
    EXPECT_EQ(comparable(by_coord.summary).dump(1), comparable(by_workers.summary).dump(1))
        << shard;
    for (const RunResult* r : {&by_coord, &by_workers}) {
      const auto& a = r->summary["accounting"];
      EXPECT_TRUE(a["balanced"].get<bool>()) << shard << " " << a.dump();
      EXPECT_EQ(a["trace_records"], records) << shard;
      EXPECT_EQ(a["records_routed"], records) << shard;
    }
    if (shard == "key") {
      EXPECT_GT(by_workers.summary["plan"]["split_calls"].get<uint64_t>(), 0u)
          << "the trace should split some calls (masked parts)";
    }
  }
}

TEST(SelfRouting, WorkersThatCannotReadTheTraceAreRefusedByName) {
  const std::string path = synthetic_trace("selfroute", 3000, /*tp=*/2);
  ScratchDir out;
  RunResult r =
      run_coordinator(quick_args({path, "--local", "2", "--engine", "noop", "--speed", "0",
                                  "--trace-access", "stream", "--routing", "workers"}),
                      out / "run");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("worker local"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not read the trace itself"), std::string::npos) << r.err;
}

// The coordinator no longer reads the trace, so the progress line's fraction comes from the
// workers' scans (PROGRESS.read_fraction): a paced ~3-s run shows it rising, not stuck at 0 %.
TEST(SelfRouting, TheProgressLineShowsTheWorkersScan) {
  const std::string path = synthetic_trace("selfroute_progress", 6000, 1, 300.0);
  ScratchDir out;
  RunResult r = run_coordinator({path, "--local", "2", "--engine", "noop", "--start-delay", "0.3",
                                 "--trace-access", "shared", "--progress", "always"},
                                out / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  expect_routed_by(r, "worker");
  EXPECT_TRUE(std::regex_search(r.err, std::regex("[^0-9][1-9][0-9]?% \\| [0-9]+ records")))
      << r.err;
}

std::optional<zmq::message_t> recv_within(zmq::socket_t& s, std::chrono::milliseconds t) {
  zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, t) <= 0) return std::nullopt;
  zmq::message_t m;
  if (!s.recv(m, zmq::recv_flags::dontwait)) return std::nullopt;
  return m;
}

// Plays a coordinator that offers the trace and STARTs a self-routed run with `routing`;
// returns the worker's ABORT (kind, reason), or fails.
std::pair<std::string, std::string> abort_for(const wire::SelfRouting& routing, int node_count,
                                              bool offer_trace) {
  ScratchDir dir;
  const std::string path = synthetic_trace("selfroute", 3000, /*tp=*/2);
  const std::string root = std::filesystem::path(path).parent_path().string();
  WorkerProcess w(dir.path().string(), "w-bad-plan", {"--trace-root", root});
  EXPECT_TRUE(w.ok()) << w.proc().err();
  zmq::context_t ctx(1);
  zmq::socket_t dealer(ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(w.endpoint());
  wire::Hello h;
  if (offer_trace) {
    const trace::TraceIdentity id = trace::identify_trace(path);
    h.trace_path = path;
    h.trace_size = id.size;
    h.trace_fingerprint = id.fingerprint;
  }
  dealer.send(zmq::buffer(wire::encode(h)));
  auto welcome = recv_within(dealer, 5s);
  EXPECT_TRUE(welcome) << w.proc().err();
  if (!welcome) return {};
  EXPECT_EQ(wire::decode(welcome->data(), welcome->size()).as<wire::Welcome>().trace_shared,
            offer_trace);
  wire::Start s;
  s.speed = 0;
  s.engine_name = "noop";
  s.node_count = node_count;
  s.self_routing = routing;
  dealer.send(zmq::buffer(wire::encode(s)));
  for (int i = 0; i < 20; ++i) {
    auto m = recv_within(dealer, 500ms);
    if (!m) continue;
    auto env = wire::decode(m->data(), m->size());
    if (env.type != "abort") continue;
    auto a = env.as<wire::Abort>();
    return {a.kind, a.reason};
  }
  ADD_FAILURE() << "no ABORT; worker stderr:\n" << w.proc().err();
  return {};
}

wire::SelfRouting good_plan() {
  wire::SelfRouting r;
  r.on = true;
  r.shard = "key";
  r.worker_names = {"a", "b"};
  r.max_frame_bytes = 64u << 20;
  return r;
}

TEST(SelfRouting, AWorkerGivenABadPlanParameterRefusesNamingIt) {
  wire::SelfRouting bad_mode = good_plan();
  bad_mode.shard = "diagonal";
  auto [kind, why] = abort_for(bad_mode, 2, true);
  EXPECT_EQ(kind, "protocol");
  EXPECT_NE(why.find("worker w-bad-plan"), std::string::npos) << why;
  EXPECT_NE(why.find("shard 'diagonal'"), std::string::npos) << why;

  wire::SelfRouting short_names = good_plan();
  short_names.worker_names = {"a"};
  std::tie(kind, why) = abort_for(short_names, 2, true);
  EXPECT_EQ(kind, "protocol");
  EXPECT_NE(why.find("1 worker names for 2 nodes"), std::string::npos) << why;

  wire::SelfRouting no_window = good_plan();
  no_window.shard = "time";
  no_window.window_s = 0;
  std::tie(kind, why) = abort_for(no_window, 2, true);
  EXPECT_NE(why.find("window 0"), std::string::npos) << why;

  // A saved plan outside the worker's --trace-root: refused by its policy, naming the flag.
  wire::SelfRouting outside = good_plan();
  outside.plan_path = "/etc/passwd";
  outside.plan_key = "k";
  std::tie(kind, why) = abort_for(outside, 2, true);
  EXPECT_EQ(kind, "policy");
  EXPECT_NE(why.find("--route-cache"), std::string::npos) << why;
  EXPECT_NE(why.find("route plan \"/etc/passwd\" is outside --trace-root"), std::string::npos)
      << why;

  // A file inside the root that is not the plan it should be (here: the trace itself): the
  // worker checks it as the coordinator does and refuses, naming the file.
  wire::SelfRouting not_a_plan = good_plan();
  not_a_plan.plan_path = synthetic_trace("selfroute", 3000, /*tp=*/2);
  not_a_plan.plan_key = "k";
  std::tie(kind, why) = abort_for(not_a_plan, 2, true);
  EXPECT_EQ(kind, "trace");
  EXPECT_NE(why.find("route plan: " + not_a_plan.plan_path), std::string::npos) << why;
  EXPECT_NE(why.find("not a route plan"), std::string::npos) << why;

  // Told to route itself without the trace to read: refused as a trace problem.
  std::tie(kind, why) = abort_for(good_plan(), 2, false);
  EXPECT_EQ(kind, "trace");
  EXPECT_NE(why.find("does not read the trace"), std::string::npos) << why;
}

}  // namespace
}  // namespace fleet::test
