// summary::read_l2_run_stats (summary/include/fleet/summary/l2_run_stats.h): a stored L2 run
// directory reads into the struct with the run's numbers; a missing file or one that is not a
// JSON object is an error naming it; a section of the wrong shape reads as absent, a field of
// the wrong type is an error naming the file and field; a fleet run's "nodes" are read.
#include "fleet/summary/l2_run_stats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::summary {
namespace {

namespace fs = std::filesystem;

std::string stored() {
  return test::source_dir() + "/tests/fixtures/l2_run_dirs/small_speed1_virtual";
}

std::string dir_with(const std::string& name, const std::string& stats) {
  const fs::path dir = fs::path(fleet::test::test_scratch_dir().path()) / name;
  fs::create_directories(dir);
  std::ofstream(dir / kL2StatsFile) << stats;
  return dir.string();
}

TEST(L2RunStats, AStoredRunReadsIntoTheStruct) {
  const Result<L2RunStats> read = read_l2_run_stats(stored());
  ASSERT_TRUE(read) << read.status().message();
  const L2RunStats& s = read.value();
  EXPECT_EQ(s.speedup, 1.0);
  EXPECT_EQ(s.trace_percent, 100.0);
  EXPECT_EQ(s.operations_selected, 189u);
  EXPECT_EQ(s.operations(), 189u);
  EXPECT_EQ(s.adapter, "mock");
  EXPECT_EQ(s.dependency_violations, 0u);
  EXPECT_EQ(s.outcome_mismatch_count, 9u);
  EXPECT_FALSE(s.interrupted);
  ASSERT_EQ(s.kinds.size(), 5u);
  EXPECT_EQ(s.kinds[0].kind, "store");
  EXPECT_EQ(s.kinds[0].submitted, 68u);
  EXPECT_EQ(s.kind("load_task")->completed, 25u);
  EXPECT_GT(s.kind("store")->latency_p99_ms, 0.0);
  EXPECT_FALSE(s.kind("store")->latency_cdf_ms.empty());
  EXPECT_EQ(s.plan.dependency_edges.at("lookup_task->store"), 30u);
  EXPECT_EQ(s.plan.forward_edges, 6u);
  EXPECT_EQ(s.plan.plan_sha256.size(), 64u);
  ASSERT_TRUE(s.prepare.has_value());
  EXPECT_EQ(s.prepare->prepared_objects, s.plan.prepare_objects);
  EXPECT_TRUE(s.nodes.empty());  // an embedded run
  // The timeline: five one-second windows whose counts add up to each kind's totals.
  EXPECT_EQ(s.timeline.index, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(s.timeline.problem.empty());
  for (const L2KindStats& k : s.kinds) {
    const L2TimelineKind& t = s.timeline.by_operation.at(k.kind);
    EXPECT_EQ(std::accumulate(t.dispatched.begin(), t.dispatched.end(), uint64_t{0}), k.submitted)
        << k.kind;
    EXPECT_EQ(std::accumulate(t.completed.begin(), t.completed.end(), uint64_t{0}), k.completed)
        << k.kind;
  }
  EXPECT_TRUE(is_l2_run_dir(stored()));
  EXPECT_FALSE(is_l2_run_dir(test::source_dir() + "/tests/fixtures/run_dirs/embedded"));
}

TEST(L2RunStats, AMissingFileIsAnErrorNamingIt) {
  const std::string dir = fleet::test::test_scratch_dir().str();
  const Result<L2RunStats> read = read_l2_run_stats(dir + "/no-such-run");
  ASSERT_FALSE(read);
  EXPECT_NE(read.status().message().find("no-such-run/l2_replay_stats.json"), std::string::npos)
      << read.status().message();
}

TEST(L2RunStats, NotAnObjectIsAnErrorNamingTheFile) {
  const std::string dir = dir_with("array", "[1, 2]");
  const Result<L2RunStats> read = read_l2_run_stats(dir);
  ASSERT_FALSE(read);
  EXPECT_NE(read.status().message().find("l2_replay_stats.json: not a JSON object"),
            std::string::npos);
  const std::string broken = dir_with("broken", "{\"speedup\": ");
  ASSERT_FALSE(read_l2_run_stats(broken));
}

// Sections of the wrong shape read as absent (a column shorter than its index is a damaged
// timeline, kept as the reason); a field present with the wrong type is an error naming the file
// and the field: read as 0, "outcome_mismatch_count": 500.0 passed --fail-on 'l2.mismatches > 0'.
TEST(L2RunStats, DamagedSectionsReadAsAbsent) {
  const std::string dir = dir_with("types", R"json({
    "trace_percent": null,
    "outcome_mismatch_samples": [1, "store:('store', 0, 2)"],
    "fleet": {"by_operation": {"store": {"latency_cdf_ms": [[1, 0.5], "x", [2]]},
                               "lookup_task": 5},
              "plan": {"dependency_edges": 3},
              "timeline": {"index": [0, 1], "by_operation": {"store": {"dispatched": [1]}}}}})json");
  const Result<L2RunStats> read = read_l2_run_stats(dir);
  ASSERT_TRUE(read) << read.status().message();
  const L2RunStats& s = read.value();
  EXPECT_EQ(s.outcome_mismatch_samples, std::vector<std::string>{"store:('store', 0, 2)"});
  ASSERT_EQ(s.kinds.size(), 1u);  // lookup_task is not an object
  EXPECT_EQ(s.kinds[0].latency_cdf_ms.size(), 1u);
  EXPECT_TRUE(s.plan.dependency_edges.empty());
  EXPECT_NE(s.timeline.problem.find("timeline of store"), std::string::npos);
  EXPECT_TRUE(s.timeline.by_operation.empty());
  EXPECT_FALSE(s.prepare.has_value());
}

TEST(L2RunStats, AFieldOfTheWrongTypeIsAnErrorNamingFileAndField) {
  const struct {
    const char* json;
    const char* field;
  } cases[] = {
      {R"({"speedup": "fast"})", "speedup: expected a number"},
      {R"({"operations_selected": -3})", "operations_selected: expected an integer"},
      {R"({"fleet": {"interrupted": "yes"}})", "interrupted: expected true or false"},
      {R"({"fleet": {"adapter": 7}})", "adapter: expected a string"},
      {R"({"fleet": {"by_operation": {"store": {"submitted": "68"}}}})", "submitted"},
  };
  for (const auto& c : cases) {
    const std::string dir = dir_with("wrong", c.json);
    const Result<L2RunStats> read = read_l2_run_stats(dir);
    ASSERT_FALSE(read) << c.json;
    EXPECT_NE(read.status().message().find(kL2StatsFile), std::string::npos)
        << read.status().message();
    EXPECT_NE(read.status().message().find(c.field), std::string::npos) << read.status().message();
  }
  // A whole number written as a float is that number.
  const Result<L2RunStats> whole =
      read_l2_run_stats(dir_with("whole", R"({"operations_selected": 5.0})"));
  ASSERT_TRUE(whole) << whole.status().message();
  EXPECT_EQ(whole->operations_selected, 5u);
}

TEST(L2RunStats, AFleetRunsNodesAreRead) {
  const std::string dir = dir_with("nodes", R"json({"nodes": [
    {"node": "w0", "total_replay_seconds": 1.5, "fleet": {"dependency_violations": 0,
     "by_operation": {"store": {"submitted": 10, "latency_ms": {"p99": 2.0}}}}},
    {"node": "w1", "fleet": {"by_operation": {"load_task": {"submitted": 4}}}}, 3]})json");
  const Result<L2RunStats> read = read_l2_run_stats(dir);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->nodes.size(), 2u);
  EXPECT_EQ(read->nodes[0].name, "w0");
  EXPECT_EQ(read->nodes[0].total_replay_seconds, 1.5);
  EXPECT_EQ(read->nodes[0].kinds.at(0).latency_p99_ms, 2.0);
  EXPECT_EQ(read->nodes[1].kinds.at(0).kind, "load_task");
}

}  // namespace
}  // namespace fleet::summary
