// Causal pacing from the command line (docs/causal-pacing.md): the flags' refusals, the plan
// preview before any run, and a real paced 10x replay whose summary carries the pacing section
// with no edge issued early.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "process_util.h"

namespace fleet::test {
namespace {

using Ran = CliRun;
Ran run(const std::string& args, const ScratchDir& dir) { return run_coordinator(args, dir); }

std::string gen_trace(const ScratchDir& dir) {
  const std::string t = (dir.path() / "t.lct").string();
  EXPECT_EQ(
      std::system(
          (bin("tools/lct/lct") + " gen -q -o " + t + " --seed 3 --duration 3 --rate 20").c_str()),
      0);
  return t;
}

TEST(CausalCli, CausalPacingNeedsASpeed) {
  ScratchDir dir;
  const Ran r = run(gen_trace(dir) + " --speed 0 --pacing causal", dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--pacing causal: needs --speed > 0"), std::string::npos) << r.err;
  const Ran bad = run(gen_trace(dir) + " --schedule sideways", dir);
  EXPECT_NE(bad.err.find("--schedule: must be one of ordered, partial; got 'sideways'"),
            std::string::npos)
      << bad.err;
}

TEST(CausalCli, PlanOnlyPreviewsTheScheduleWithoutARun) {
  ScratchDir dir;
  const Ran r = run(gen_trace(dir) + " --config-from-trace --plan-only --speed 10 --output-dir " +
                        (dir.path() / "run").string(),
                    dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("causal plan:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read_lifecycle"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10x asked, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("assumes: calls return and L2 work lands at once"), std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "run" / "fleet_summary.json"));
}

// A sharded run's preview schedules each node's share as that node would, names the slowest,
// and counts the read-after-write edges a time window boundary cuts; key sharding cuts none.
TEST(CausalCli, PlanOnlyPreviewsEachNodeAndCountsTheEdgesATimeShardCuts) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const Ran t = run(
      trace + " --config-from-trace --plan-only --speed 10 --local 3 --shard time " + "--window 1",
      dir);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("causal plan per node (--shard time, 3 nodes)"), std::string::npos) << t.out;
  for (const char* node : {"local-0", "local-1", "local-2"})
    EXPECT_NE(t.out.find(std::string("  ") + node + " "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("slowest: local-"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("assumes: calls return and L2 work lands at once"), std::string::npos)
      << t.out;
  const size_t cut = t.out.find("edges cut by window boundaries: read_after_write ");
  ASSERT_NE(cut, std::string::npos) << t.out;
  EXPECT_GT(std::stoul(t.out.substr(cut + 49)), 0u) << t.out;
  const Ran k =
      run(trace + " --config-from-trace --plan-only --speed 10 --local 3 --shard key", dir);
  ASSERT_EQ(k.code, 0) << k.err;
  EXPECT_NE(k.out.find("edges cut: none (every key's records are on one node)"), std::string::npos)
      << k.out;
}

// The run reports the edges its time windows cut, the count the preview printed, whether the
// coordinator routes (it counts them) or the workers route themselves (each counts the ones
// whose child it replays); the nodes' counts add up to the run's.
TEST(CausalCli, ATimeShardedRunCountsTheEdgesItsWindowsCutAsThePreviewDid) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const std::string shard = " --config-from-trace --speed 10 --local 3 --shard time --window 1";
  const Ran plan = run(trace + shard + " --plan-only", dir);
  ASSERT_EQ(plan.code, 0) << plan.err;
  const std::string label = "edges cut by window boundaries: read_after_write ";
  const size_t at = plan.out.find(label);
  ASSERT_NE(at, std::string::npos) << plan.out;
  const uint64_t previewed = std::stoull(plan.out.substr(at + label.size()));
  ASSERT_GT(previewed, 0u);
  for (const char* routing : {"coordinator", "workers"}) {
    const std::string out = (dir.path() / (std::string("run-") + routing)).string();
    const Ran r = run(trace + shard + " --trace-access shared --routing " + routing +
                          " --progress never --output-dir " + out,
                      dir);
    ASSERT_EQ(r.code, 0) << routing << ": " << r.err;
    const nlohmann::json s = nlohmann::json::parse(read_file(out + "/fleet_summary.json"));
    const nlohmann::json& p = s.at("pacing");
    EXPECT_EQ(p["edges"]["read_after_write"]["cut"].get<uint64_t>(), previewed) << routing;
    uint64_t by_nodes = 0;
    for (const auto& n : s["nodes"]) by_nodes += n.at("pacing").at("edges_cut").get<uint64_t>();
    EXPECT_EQ(by_nodes, p["edges_cut"].get<uint64_t>()) << routing;
    EXPECT_NE(r.out.find("Edges cut by the sharding"), std::string::npos) << r.out;
  }
}

TEST(CausalCli, ATenfoldLocalRunReportsItsEdgesAndNoneEarly) {
  ScratchDir dir;
  const std::string out = (dir.path() / "run").string();
  const Ran r = run(gen_trace(dir) + " --config-from-trace --speed 10 --local 2 --shard key " +
                        "--schedule partial --progress never --output-dir " + out,
                    dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(read_file(out + "/fleet_summary.json"));
  ASSERT_TRUE(s.contains("pacing")) << s.dump().substr(0, 400);
  const nlohmann::json& p = s["pacing"];
  EXPECT_EQ(p["mode"], "causal");
  EXPECT_EQ(p["schedule"], "partial");
  EXPECT_EQ(p["engine_time_scale"], 10.0);
  EXPECT_EQ(p["engine_time"], "trace");  // the workers' engines ticked per trace second
  EXPECT_NE(r.out.find("engine time follows the trace"), std::string::npos) << r.out;
  EXPECT_GT(p["edges"]["read_lifecycle"]["found"].get<uint64_t>(), 0u);
  EXPECT_GT(p["held_records"].get<uint64_t>(), 0u);
  EXPECT_EQ(p["edges_early"], 0);
  for (const auto& n : s["nodes"]) EXPECT_TRUE(n.contains("pacing")) << n["name"];
  EXPECT_FALSE(p.contains("edges_cut"));  // key sharding cuts no edge: nothing to count
  EXPECT_NE(r.out.find("Pacing (dependency edges)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fleet::test
