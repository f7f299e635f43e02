// bench/fleet_sim against a real coordinator (docs/scaling.md, "1,000 simulated workers"): a
// handful of simulated workers in one process speak the protocol well enough for a whole run
// (CURVE, handshake, clock pings, START, batches under credit, PROGRESS, DONE), and the merged
// counts are exact; one frozen mid-run is reported lost, with the partial report balanced.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fleet_fixture.h"
#include "process_util.h"

namespace fleet::test {
namespace {

std::string sim_bin() { return bin("bench/fleet_sim"); }

uint64_t u(const nlohmann::json& j, const char* key) { return j.value(key, uint64_t{0}); }

// Every record of the trace in one bucket of one node (a call split over k nodes k times).
void expect_every_record_accounted(const nlohmann::json& s, uint64_t records) {
  const auto& a = s["accounting"];
  EXPECT_TRUE(a["balanced"].get<bool>()) << a.dump(2);
  EXPECT_EQ(u(a, "trace_records"), records);
  uint64_t parts = u(a, "not_read");
  for (const auto& n : a["nodes"]) parts += u(n, "accounted");
  EXPECT_EQ(parts, records + u(a, "split_extra_parts")) << a.dump(2);
}

// The simulator started with `args`, bound, and the coordinator run against it.
RunResult run_against_sim(const ScratchDir& dir, const std::string& trace,
                          std::vector<std::string> sim_args, std::vector<std::string> extra) {
  if (!std::filesystem::exists(sim_bin())) {
    ADD_FAILURE() << "no " << sim_bin();
    return {};
  }
  std::vector<std::string> argv = {sim_bin(), "--out", dir / "sim"};
  argv.insert(argv.end(), sim_args.begin(), sim_args.end());
  Process sim(argv, dir.path().string(), "sim");
  if (!sim.wait_stdout_line("READY ", std::chrono::seconds(20))) {
    ADD_FAILURE() << "fleet_sim did not bind: " << sim.err();
    return {};
  }
  std::vector<std::string> args = {trace,
                                   "--workers",
                                   dir / "sim/workers.txt",
                                   "--curve-cert",
                                   dir / "sim/coordinator.key_secret",
                                   "--engine",
                                   "noop"};
  args.insert(args.end(), extra.begin(), extra.end());
  RunResult r = run_coordinator(quick_args(args), dir / "run", std::chrono::seconds(60));
  EXPECT_TRUE(sim.wait_exit(std::chrono::seconds(20))) << "fleet_sim did not exit: " << sim.err();
  r.out += sim.out();  // the simulator's FROZEN line, for the caller
  return r;
}

// Presets that build no benchmarks (sanitizers, fuzzing) have no simulator to run.
#define SKIP_WITHOUT_SIM()                 \
  if (!std::filesystem::exists(sim_bin())) \
  GTEST_SKIP() << sim_bin() << " not built (FLEET_BUILD_BENCH)"

TEST(FleetSim, SimulatedWorkersReplayEveryRecordExactly) {
  SKIP_WITHOUT_SIM();
  const std::string trace = synthetic_trace("fleet_sim", 3000, 1, 2000.0);
  const uint64_t records = count_trace(trace).records;
  ScratchDir dir;
  RunResult r = run_against_sim(dir, trace, {"--workers", "6"}, {"--shard", "key", "--speed", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.summary["nodes"].size(), 6u);
  for (const auto& node : r.summary["nodes"]) {
    EXPECT_EQ(node["status"], "ok") << node.dump();
    EXPECT_EQ(node["name"].get<std::string>().rfind("sim-", 0), 0u) << node["name"];
  }
  EXPECT_EQ(u(r.summary["records"], "total"), u(r.summary["accounting"], "expected"));
  EXPECT_EQ(u(r.summary["records"], "total"),
            records + u(r.summary["accounting"], "split_extra_parts"));
  expect_every_record_accounted(r.summary, records);
}

// A worker counts its coordinator lost 3 beats after HELLO. With 150-ms beats, 200 workers' HELLO
// round and clock pings (25 waves of 8 rounds, ~1 s here) last longer than 450 ms: without
// heartbeats during those phases the workers gave up before START (what 1,000 workers did at
// 500-ms beats). (20- and 50-ms beats made the run itself flaky: a 167-ms stall of the loaded
// host, one simulator thread serving 200 nodes, lost workers after START.)
TEST(FleetSim, TheHandshakeAndClockPingsKeepEveryWorkerAlive) {
  SKIP_WITHOUT_SIM();
  const std::string trace = synthetic_trace("fleet_sim", 3000, 1, 2000.0);
  ScratchDir dir;
  RunResult r = run_against_sim(dir, trace, {"--workers", "200", "--heartbeat-ms", "150"},
                                {"--shard", "key", "--speed", "0", "--heartbeat-ms", "150"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(u(r.summary["records"], "total"), u(r.summary["accounting"], "expected"));
  expect_every_record_accounted(r.summary, count_trace(trace).records);
}

TEST(FleetSim, AFrozenSimulatedWorkerIsLostAndTheRunEndsWithThePartialReport) {
  SKIP_WITHOUT_SIM();
  // Paced over ~3 s so that the freeze, 0.5 s into the run, lands mid-replay.
  const std::string trace = synthetic_trace("fleet_sim_paced", 3000, 1, 1000.0);
  const uint64_t records = count_trace(trace).records;
  ScratchDir dir;
  RunResult r = run_against_sim(dir, trace, {"--workers", "4", "--freeze", "2@0.5"},
                                {"--shard", "key", "--speed", "1", "--on-worker-loss", "continue"});
  EXPECT_EQ(r.code, 3) << r.err;  // a node was lost
  ASSERT_NE(r.out.find("FROZEN sim-2 "), std::string::npos) << r.out;
  ASSERT_EQ(r.summary["nodes"].size(), 4u);
  int lost = 0;
  for (const auto& node : r.summary["nodes"]) {
    if (node["status"] != "lost") continue;
    ++lost;
    EXPECT_EQ(node["name"], "sim-2");
    EXPECT_NE(node["engine"]["counters"].value("lost_reason", "").find("no heartbeat for"),
              std::string::npos)
        << node.dump();
  }
  EXPECT_EQ(lost, 1);
  expect_every_record_accounted(r.summary, records);
}

}  // namespace
}  // namespace fleet::test
