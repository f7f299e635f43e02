// Saved routing plans (--route-cache, docs/sharding.md): a run that routes the trace saves its
// plan; the next run of the same trace and routing replays it without reading the trace and
// writes the same outputs (every count, the plan, the accounting, the per-op CSV); a trace that
// changed, a damaged plan or an unsafe cache directory never lead to a wrong replay.
#include <sys/stat.h>

#include <fstream>

#include "fleet_fixture.h"
#include "run_events.h"

namespace fleet::test {
namespace {

std::string trace_3k() { return synthetic_trace("route_cache", 3000, /*tp=*/2); }

// --speed 1 on the virtual clock: paced (so --timeline stack's shifts show in the durations),
// deterministic, and as fast as unpaced.
RunResult run_cached(const std::string& path, const std::string& cache,
                     std::vector<std::string> extra, const std::string& out_dir, int workers = 2) {
  std::vector<std::string> args = {path,       "--local", std::to_string(workers),
                                   "--engine", "noop",    "--speed",
                                   "1",        "--clock", "virtual"};
  if (!cache.empty()) args.insert(args.end(), {"--route-cache", cache});
  args.insert(args.end(), extra.begin(), extra.end());
  return run_coordinator(quick_args(args), out_dir);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// fleet_summary.json without what differs between any two runs (timings, ports, clock
// estimates, the coordinator's own usage and the messages it received, and lateness: with
// --timeline stack a worker can wait for a later window's batches, however they were routed).
nlohmann::json comparable(nlohmann::json s) {
  for (const char* k : {"cpu_system_s", "cpu_user_s", "peak_rss_bytes", "phase_s", "start",
                        "t0_mono_ns", "wall_since_t0_s", "messages", "done_bytes", "route_plan",
                        "thread_cpu_s", "during_replay"}) {
    s["coordinator"].erase(k);
  }
  s.erase("lateness_us");
  s.erase("lateness_cdf_us");
  for (auto& n : s["nodes"]) {
    for (const char* k :
         {"address", "clock_offset_us", "clock_uncertainty_us", "start_skew_us", "lateness_us"})
      n.erase(k);
  }
  return s;
}

// What differs, as a JSON patch from `expected` to `actual` (empty when equal).
std::string differences(const nlohmann::json& expected, const nlohmann::json& actual) {
  nlohmann::json patch = nlohmann::json::diff(comparable(expected), comparable(actual));
  return patch.empty() ? "" : patch.dump();
}

struct Mode {
  std::string shard;
  std::vector<std::string> flags;
};

TEST(RouteCache, ASavedPlanReplaysToTheSameOutputsInEveryShardMode) {
  const std::string path = trace_3k();
  for (const Mode& m : std::vector<Mode>{{"none", {}},
                                         {"time", {"--window", "1"}},
                                         {"time", {"--window", "1", "--timeline", "stack"}},
                                         {"key", {}}}) {
    ScratchDir dir;
    std::vector<std::string> flags = {"--shard", m.shard};
    flags.insert(flags.end(), m.flags.begin(), m.flags.end());
    const std::string label = m.shard + (m.flags.size() > 2 ? " stack" : "");
    auto live = run_cached(path, "", flags, dir / "live");
    auto saving = run_cached(path, dir / "routes", flags, dir / "saving");
    auto replay = run_cached(path, dir / "routes", flags, dir / "replay");
    ASSERT_EQ(live.code, 0) << label << live.err;
    ASSERT_EQ(saving.code, 0) << label << saving.err;
    ASSERT_EQ(replay.code, 0) << label << replay.err;
    EXPECT_TRUE(contains(saving.err, "route plan: saved")) << label << saving.err;
    EXPECT_FALSE(contains(saving.err, "replaying")) << label;
    EXPECT_TRUE(contains(replay.err, "route plan: replaying")) << label << replay.err;
    // The summary says what the cache did (and nothing without --route-cache).
    EXPECT_FALSE(live.summary["coordinator"].contains("route_plan")) << label;
    const nlohmann::json& saved = saving.summary["coordinator"]["route_plan"];
    const nlohmann::json& replayed = replay.summary["coordinator"]["route_plan"];
    EXPECT_EQ(saved["saved"], true) << label << saved.dump();
    EXPECT_EQ(saved["replayed"], false) << label;
    EXPECT_EQ(saved["why_not"], "") << label;
    EXPECT_EQ(replayed["replayed"], true) << label << replayed.dump();
    EXPECT_EQ(replayed["saved"], false) << label;
    EXPECT_TRUE(saved["file"].is_string() && saved["file"] == replayed["file"]) << label;
    const std::string page = read_file(dir / "replay/report.html");  // the "Routing plan" row
    EXPECT_TRUE(contains(page, "replayed the saved plan <code>")) << label;
    EXPECT_EQ(differences(live.summary, replay.summary), "") << label;
    EXPECT_EQ(differences(live.summary, saving.summary), "") << label;
    EXPECT_EQ(read_file(dir / "replay/trace_replay_ops.csv"),
              read_file(dir / "live/trace_replay_ops.csv"))
        << label;
    EXPECT_EQ(replay.summary["accounting"]["balanced"], true) << label;
    EXPECT_EQ(replay.summary["records"]["total"].get<uint64_t>(),
              live.summary["records"]["total"].get<uint64_t>())
        << label;
    if (m.shard == "key") {  // parts of split calls travel as masked references from the plan
      uint64_t parts = 0;
      for (const auto& w : replay.summary["plan"]["workers"])
        parts += w["split_parts"].get<uint64_t>();
      EXPECT_GT(parts, 0u);
    }
  }
}

TEST(RouteCache, ATraceThatChangedIsRoutedAgain) {
  ScratchDir dir;
  const std::string path = dir / "t.lct";
  std::filesystem::copy_file(trace_3k(), path);
  auto first = run_cached(path, dir / "routes", {"--shard", "key"}, dir / "a");
  ASSERT_EQ(first.code, 0) << first.err;
  ASSERT_TRUE(contains(first.err, "route plan: saved")) << first.err;
  // A trace written over in place (same inode, same size) has new modification times. The file
  // system's clock ticks coarsely (a few ms; a second on some): written until the time moves.
  const auto written = std::filesystem::last_write_time(path);
  const std::string bytes = read_file(path);
  ASSERT_TRUE(eventually(
      [&] {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        return std::filesystem::last_write_time(path) != written;
      },
      std::chrono::seconds(5), "a new modification time for the trace written over"));
  auto second = run_cached(path, dir / "routes", {"--shard", "key"}, dir / "b");
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_FALSE(contains(second.err, "replaying")) << second.err;
  EXPECT_TRUE(contains(second.err, "route plan: saved")) << second.err;
  // Other workers or sharding: other plans, side by side.
  auto three = run_cached(path, dir / "routes", {"--shard", "key"}, dir / "c", 3);
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_FALSE(contains(three.err, "replaying")) << three.err;
  // The stale plan stays until someone clears the directory (docs/sharding.md).
  size_t plans = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "routes"))
    plans += e.path().extension() == ".route";
  EXPECT_EQ(plans, 3u);
}

TEST(RouteCache, ADamagedPlanIsRefusedAndTheTraceRoutedAgain) {
  ScratchDir dir;
  const std::string path = trace_3k();
  auto first = run_cached(path, dir / "routes", {"--shard", "time", "--window", "1"}, dir / "a");
  ASSERT_EQ(first.code, 0) << first.err;
  std::string plan_file;
  for (const auto& e : std::filesystem::directory_iterator(dir / "routes"))
    plan_file = e.path().string();
  ASSERT_FALSE(plan_file.empty());
  std::string bytes = read_file(plan_file);
  bytes[bytes.size() / 2] ^= 0x01;
  std::ofstream(plan_file, std::ios::binary | std::ios::trunc) << bytes;
  auto second = run_cached(path, dir / "routes", {"--shard", "time", "--window", "1"}, dir / "b");
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_TRUE(contains(second.err, "checksum mismatch")) << second.err;
  EXPECT_TRUE(contains(second.err, plan_file)) << second.err;
  EXPECT_FALSE(contains(second.err, "replaying")) << second.err;
  EXPECT_EQ(differences(first.summary, second.summary), "");
  const nlohmann::json& outcome = second.summary["coordinator"]["route_plan"];
  EXPECT_EQ(outcome["replayed"], false) << outcome.dump();
  EXPECT_TRUE(contains(outcome["why_not"].get<std::string>(), "checksum mismatch")) << outcome;
  EXPECT_EQ(outcome["saved"], true) << outcome.dump();  // routed again, saved over the damage
}

// Ctrl-C while a plan is replayed: the partial report accounts every record of the trace
// (routed from the plan so far, or not read), and the plan is neither rewritten nor removed.
TEST(RouteCache, AnInterruptedReplayAccountsEveryRecordAndKeepsThePlan) {
  using namespace std::chrono_literals;
  ScratchDir dir;
  // 60 s of trace time, and more records than the credit window holds (so some are never sent).
  const std::string path = synthetic_trace("route_cache_long", 60000, /*tp=*/1, /*rate=*/1000);
  const uint64_t records = count_trace(path).records;
  auto saving = run_cached(path, dir / "routes", {"--shard", "key"}, dir / "a");
  ASSERT_EQ(saving.code, 0) << saving.err;
  std::string plan_file;
  for (const auto& e : std::filesystem::directory_iterator(dir / "routes"))
    plan_file = e.path().string();
  const std::string plan_bytes = read_file(plan_file);
  std::filesystem::create_directories(dir / "b");
  Process coord(
      {coordinator_bin(), path, "-q", "--progress", "never", "--local", "2", "--engine", "noop",
       "--shard", "key", "--route-cache", dir / "routes", "--output-dir", dir / "b"},
      dir / "b", "coordinator");
  ASSERT_TRUE(coord.wait_stderr("route plan: replaying", 15s)) << coord.err();
  // Mid-run: records have been replayed (routed from the plan); the replay is paced, so most
  // of its 60 s are still ahead.
  ASSERT_TRUE(wait_replaying(coord, dir / "b", "", 30s));
  coord.signal(SIGINT);
  auto code = coord.wait_exit(10s);
  ASSERT_TRUE(code) << coord.err();
  EXPECT_EQ(*code, 130) << coord.err();
  auto summary = nlohmann::json::parse(read_file(dir / "b/fleet_summary.json"));
  const auto& a = summary["accounting"];
  EXPECT_TRUE(a["balanced"].get<bool>()) << a.dump();
  EXPECT_EQ(a["trace_records"].get<uint64_t>(), records) << a.dump();
  const uint64_t routed = a["records_routed"].get<uint64_t>();
  EXPECT_GT(routed, 0u) << a.dump();
  EXPECT_LT(routed, records) << a.dump();
  EXPECT_EQ(a["not_read"].get<uint64_t>(), records - routed) << a.dump();
  EXPECT_TRUE(summary["stopped_early"].get<bool>());
  EXPECT_EQ(summary["coordinator"]["route_plan"]["replayed"], true);
  EXPECT_EQ(summary["coordinator"]["route_plan"]["saved"], false);
  EXPECT_EQ(read_file(plan_file), plan_bytes);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "routes"))
    ++files;
  EXPECT_EQ(files, 1u) << "no temporary or second plan left behind";
}

TEST(RouteCache, ACacheDirectoryOthersCanWriteIsRefused) {
  ScratchDir dir;
  const std::string cache = dir / "routes";
  std::filesystem::create_directories(cache);
  ::chmod(cache.c_str(), 0777);
  auto r = run_cached(trace_3k(), cache, {"--shard", "key"}, dir / "out");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--route-cache " + cache)) << r.err;
  EXPECT_TRUE(contains(r.err, "chmod 700")) << r.err;
  // Embedded runs have no routing to save.
  auto embedded = run_coordinator(quick_args({trace_3k(), "--route-cache", cache}), dir / "emb");
  EXPECT_EQ(embedded.code, 2);
  EXPECT_TRUE(contains(embedded.err, "need --workers or --local")) << embedded.err;
}

}  // namespace
}  // namespace fleet::test
