// Self-routing workers that read a saved routing plan (--trace-access shared with --route-cache,
// docs/sharding.md "Workers that read a saved plan"): the first run routes live (the workers
// scan) and the coordinator saves the plan after it; the next run's workers read their shares
// from the plan. The outputs of both, and of a coordinator-routed run, are byte for byte the
// same (none, key, time); a plan the coordinator finds damaged is routed again live; a plan
// outside a worker's --trace-root stops the run naming the path and the flag.
#include <sys/stat.h>

#include <fstream>

#include "fleet/plan/route_cache.h"
#include "fleet_fixture.h"
#include "run_events.h"
#include "self_routed_outputs.h"

namespace fleet::test {
namespace {

RunResult run_shared(const std::string& path, const std::string& shard,
                     std::vector<std::string> extra, const std::string& out_dir) {
  std::vector<std::string> args = {path,
                                   "--local",
                                   "2",
                                   "--shard",
                                   shard,
                                   "--window",
                                   "1",
                                   "--speed",
                                   "0",
                                   "--clock",
                                   "virtual",
                                   "--config-from-trace",
                                   "--start-delay",
                                   "0.3",
                                   "--trace-access",
                                   "shared"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_coordinator(args, out_dir);
}

void expect_routed_by(const RunResult& r, const std::string& who) {
  ASSERT_TRUE(r.summary["plan"]["workers"].is_array()) << r.summary.dump();
  for (const auto& w : r.summary["plan"]["workers"]) EXPECT_EQ(w["routed_by"], who);
}

void expect_same_outputs(const RunResult& a, const RunResult& b, const std::string& label) {
  EXPECT_EQ(read_file(a.dir + "/trace_replay_ops.csv"), read_file(b.dir + "/trace_replay_ops.csv"))
      << label;
  EXPECT_EQ(stable_stdout(a.out), stable_stdout(b.out)) << label;
  EXPECT_EQ(comparable(a.summary).dump(1), comparable(b.summary).dump(1)) << label;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string only_plan_in(const std::filesystem::path& dir) {
  std::vector<std::string> plans;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".route") plans.push_back(e.path().string());
  EXPECT_EQ(plans.size(), 1u);
  return plans.empty() ? "" : plans.front();
}

// The coordinator's CPU from the replay's start to the last result is part of its whole CPU,
// over a wall within the phases from the handshake's end to the last result.
void expect_replay_cpu_within_run(const nlohmann::json& c, const std::string& shard) {
  const nlohmann::json& d = c["during_replay"];
  ASSERT_TRUE(d.is_object()) << shard << " " << c.dump();
  const double whole_cpu = c["cpu_user_s"].get<double>() + c["cpu_system_s"].get<double>();
  EXPECT_GT(d["wall_s"].get<double>(), 0.0) << shard;
  const double streamed_and_collected =
      c["phase_s"]["stream"].get<double>() + c["phase_s"]["collect"].get<double>();
  EXPECT_LE(d["wall_s"].get<double>(), streamed_and_collected + 1e-3) << shard;
  EXPECT_GE(d["cpu_s"].get<double>(), 0.0) << shard;
  EXPECT_LE(d["cpu_s"].get<double>(), whole_cpu + 0.01) << shard;  // rusage ticks vs clock_gettime
  EXPECT_DOUBLE_EQ(d["share_of_core"].get<double>(),
                   d["cpu_s"].get<double>() / d["wall_s"].get<double>())
      << shard;
}

TEST(SelfRoutingPlan, OutputsFromASavedPlanAreByteIdenticalInEveryMode) {
  const std::string path = synthetic_trace("selfroute_plan", 3000, /*tp=*/2);
  const uint64_t records = count_trace(path).records;
  for (const std::string shard : {"none", "key", "time"}) {
    ScratchDir dir;
    const std::string cache = dir / "routes";
    RunResult coord = run_shared(path, shard, {"--routing", "coordinator"}, dir / "coordinator");
    RunResult live = run_shared(path, shard, {"--route-cache", cache}, dir / "live");
    RunResult planned = run_shared(path, shard, {"--route-cache", cache}, dir / "planned");
    for (const RunResult* r : {&coord, &live, &planned}) {
      ASSERT_EQ(r->code, 0) << shard << "\n" << r->err;
      const auto& a = r->summary["accounting"];
      EXPECT_TRUE(a["balanced"].get<bool>()) << shard << " " << a.dump();
      EXPECT_EQ(a["trace_records"], records) << shard;
      EXPECT_EQ(a["records_routed"], records) << shard;
    }
    expect_routed_by(live, "worker");
    expect_routed_by(planned, "worker (saved plan)");
    // The first run saved the plan (the coordinator routed once, after the replay); the
    // second read it, and neither sent a record.
    const nlohmann::json& saved = live.summary["coordinator"]["route_plan"];
    const nlohmann::json& read = planned.summary["coordinator"]["route_plan"];
    EXPECT_EQ(saved["saved"], true) << saved.dump();
    EXPECT_EQ(read["replayed"], true) << read.dump();
    EXPECT_EQ(read["saved"], false) << read.dump();
    EXPECT_EQ(read["file"], saved["file"]);
    EXPECT_TRUE(contains(planned.err, "each worker reads its share from")) << planned.err;
    EXPECT_EQ(planned.summary["coordinator"]["records_sent"], 0u) << shard;
    expect_replay_cpu_within_run(planned.summary["coordinator"], shard);
    EXPECT_FALSE(read_file(planned.dir + "/trace_replay_ops.csv").empty()) << shard;
    expect_same_outputs(coord, planned, shard + ": coordinator vs saved plan");
    expect_same_outputs(live, planned, shard + ": live vs saved plan");
    // The plan the workers' run saved is the coordinator's: a coordinator-routed run replays it.
    RunResult replayed =
        run_shared(path, shard, {"--routing", "coordinator", "--route-cache", cache}, dir / "r");
    ASSERT_EQ(replayed.code, 0) << replayed.err;
    EXPECT_EQ(replayed.summary["coordinator"]["route_plan"]["replayed"], true) << shard;
    expect_same_outputs(coord, replayed, shard + ": coordinator vs coordinator-replayed plan");
  }
}

TEST(SelfRoutingPlan, ADamagedPlanIsRoutedAgainLiveAndSavedAgain) {
  const std::string path = synthetic_trace("selfroute_plan", 3000, /*tp=*/2);
  ScratchDir dir;
  const std::string cache = dir / "routes";
  RunResult first = run_shared(path, "key", {"--route-cache", cache}, dir / "a");
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string plan_file = only_plan_in(cache);
  std::string bytes = read_file(plan_file);
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x01;
  std::ofstream(plan_file, std::ios::binary | std::ios::trunc) << bytes;
  RunResult second = run_shared(path, "key", {"--route-cache", cache}, dir / "b");
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_TRUE(contains(second.err, "checksum mismatch")) << second.err;
  EXPECT_TRUE(contains(second.err, plan_file)) << second.err;
  expect_routed_by(second, "worker");  // the workers scanned: the damaged plan was not used
  const nlohmann::json& outcome = second.summary["coordinator"]["route_plan"];
  EXPECT_EQ(outcome["replayed"], false) << outcome.dump();
  EXPECT_EQ(outcome["saved"], true) << outcome.dump();
  expect_same_outputs(first, second, "damaged plan, routed again");
  RunResult third = run_shared(path, "key", {"--route-cache", cache}, dir / "c");
  ASSERT_EQ(third.code, 0) << third.err;
  expect_routed_by(third, "worker (saved plan)");
  expect_same_outputs(first, third, "the plan saved over the damaged one");
}

TEST(SelfRoutingPlan, APlanOutsideTheWorkersTraceRootStopsTheRunNamingIt) {
  ScratchDir dir;
  const std::filesystem::path traces = dir / "traces";
  std::filesystem::create_directories(traces);
  const std::string path = (traces / "t.lct").string();
  std::filesystem::copy_file(synthetic_trace("selfroute_plan", 3000, /*tp=*/2), path);
  const std::string cache = dir / "routes";
  const std::vector<std::string> root = {"--route-cache", cache, "--local-worker-arg",
                                         "--trace-root=" + traces.string()};
  // Routing live needs only the trace, which is inside the root: the plan is saved.
  RunResult first = run_shared(path, "time", root, dir / "a");
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string plan_file = only_plan_in(cache);
  RunResult second = run_shared(path, "time", root, dir / "b");
  EXPECT_EQ(second.code, 2) << second.err;
  EXPECT_TRUE(contains(second.err, "--route-cache")) << second.err;
  EXPECT_TRUE(contains(second.err, "route plan \"" + plan_file + "\" is outside --trace-root"))
      << second.err;
}

// A plan whose checksum is right but whose first entry names a worker the run does not have
// (written by hand: no run saves one). The coordinator checks the checksum but leaves the
// entries to the workers, each of which checks every entry as it reads it: the run stops with
// exit 2 naming the plan and the entry (never replaying an entry that did not check out).
TEST(SelfRoutingPlan, AnEntryThatDoesNotCheckOutStopsTheRunAtTheWorker) {
  const std::string path = synthetic_trace("selfroute_plan", 3000, /*tp=*/2);
  ScratchDir dir;
  const std::string cache = dir / "routes";
  RunResult first = run_shared(path, "time", {"--route-cache", cache}, dir / "a");
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string plan_file = only_plan_in(cache);
  std::string bytes = read_file(plan_file);
  ASSERT_GT(bytes.size(), 52u);
  auto le = [&](size_t at, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
    return v;
  };
  const size_t first_entry = 12 + le(8, 4);
  bytes[first_entry + 12] = 7;  // worker 7 of 2
  bytes[first_entry + 13] = 0;
  const size_t footer = bytes.size() - 40;
  uint64_t sum = plan::route_plan_checksum(bytes.data(), footer);
  for (int i = 0; i < 8; ++i) bytes[footer + 24 + i] = static_cast<char>(sum >> (8 * i));
  std::ofstream(plan_file, std::ios::binary | std::ios::trunc) << bytes;
  RunResult second = run_shared(path, "time", {"--route-cache", cache}, dir / "b");
  EXPECT_EQ(second.code, 2) << second.err;
  EXPECT_TRUE(contains(second.err, "each worker reads its share from")) << second.err;
  EXPECT_TRUE(contains(second.err, plan_file + ": entry at byte " + std::to_string(first_entry)))
      << second.err;
  EXPECT_TRUE(contains(second.err, "worker 7 of 2")) << second.err;
}

// Ctrl-C while the workers read a plan: the partial report accounts every record of the trace
// (the plan's, as when a live self-routed run is cut short: what the workers had not replayed
// counts as routed, not sent), and the plan is neither rewritten nor removed.
TEST(SelfRoutingPlan, AnInterruptedPlanReadAccountsEveryRecordAndKeepsThePlan) {
  using namespace std::chrono_literals;
  ScratchDir dir;
  // 60 s of trace time: the paced run below is still early in it when it is stopped.
  const std::string path = synthetic_trace("route_cache_long", 60000, /*tp=*/1, /*rate=*/1000);
  const uint64_t records = count_trace(path).records;
  const std::string cache = dir / "routes";
  RunResult saving = run_coordinator(
      quick_args({path, "--local", "2", "--engine", "noop", "--speed", "0", "--shard", "key",
                  "--trace-access", "shared", "--route-cache", cache}),
      dir / "a");
  ASSERT_EQ(saving.code, 0) << saving.err;
  const std::string plan_file = only_plan_in(cache);
  const std::string plan_bytes = read_file(plan_file);
  std::filesystem::create_directories(dir / "b");
  Process coord({coordinator_bin(), path, "-q", "--progress", "never", "--local", "2", "--engine",
                 "noop", "--shard", "key", "--trace-access", "shared", "--route-cache", cache,
                 "--output-dir", dir / "b"},
                dir / "b", "coordinator");
  ASSERT_TRUE(coord.wait_stderr("each worker reads its share from", 15s)) << coord.err();
  ASSERT_TRUE(wait_replaying(coord, dir / "b", "", 30s));
  coord.signal(SIGINT);
  auto code = coord.wait_exit(10s);
  ASSERT_TRUE(code) << coord.err();
  EXPECT_EQ(*code, 130) << coord.err();
  auto summary = nlohmann::json::parse(read_file(dir / "b/fleet_summary.json"));
  const auto& a = summary["accounting"];
  EXPECT_TRUE(a["balanced"].get<bool>()) << a.dump();
  EXPECT_EQ(a["trace_records"].get<uint64_t>(), records) << a.dump();
  EXPECT_EQ(a["records_routed"].get<uint64_t>(), records) << a.dump();
  EXPECT_TRUE(summary["stopped_early"].get<bool>());
  uint64_t replayed = 0;
  for (const auto& n : summary["nodes"]) replayed += n["records_received"].get<uint64_t>();
  EXPECT_GT(replayed, 0u);
  EXPECT_LT(replayed, summary["plan"]["records"].get<uint64_t>() +
                          summary["plan"]["split_calls"].get<uint64_t>());
  for (const auto& w : summary["plan"]["workers"]) EXPECT_EQ(w["routed_by"], "worker (saved plan)");
  EXPECT_EQ(summary["coordinator"]["route_plan"]["replayed"], true);
  EXPECT_EQ(summary["coordinator"]["route_plan"]["saved"], false);
  EXPECT_EQ(read_file(plan_file), plan_bytes);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(cache)) ++files;
  EXPECT_EQ(files, 1u) << "no temporary or second plan left behind";
}

}  // namespace
}  // namespace fleet::test
