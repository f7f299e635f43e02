// The L2 contention sweep (`coordinator report --contention`): rows read back from two fake
// runs' fleet_summary.json and redis_commandstats.txt, the exact table text, contention.json,
// the --check rules, and the exit codes of the command.
#include "fleet/insight/report/contention_sweep.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_dir.h"

namespace fleet::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// N=1: one node, store and lookup only (no load), cache hit rates present.
json summary_n1() {
  return json::parse(R"({
    "duration_s": 2.0,
    "lateness_us": {"p99": 77.25},
    "nodes": [{"name": "local-0", "status": "ok", "engine": {"counters": {
      "prefetch_l1_hit_keys": 10, "prefetch_l1_miss_keys": 5, "l2_lookup_keys": 5,
      "l2_lookup_found_keys": 2, "l2_store_failed_tasks": 0}}}],
    "contention": {
      "per_op": {"store": {"n": 30, "p50_us": 900.0, "p99_us": 5000.5},
                 "lookup": {"n": 10, "p50_us": 250.25, "p99_us": 800.0}},
      "per_node": {"local-0": 40.0}, "fairness": 1.0},
    "cache": {"lookup": {"l1_hit_rate": 0.625, "l1_l2_hit_rate": 0.75}}})");
}

// N=2: two nodes served unevenly (40 vs 20 ops: Jain 0.9), a load, no cache object.
json summary_n2() {
  json node = {{"name", "local-0"},
               {"status", "ok"},
               {"engine",
                {{"counters",
                  {{"prefetch_l1_hit_keys", 20},
                   {"prefetch_l1_miss_keys", 12},
                   {"l2_lookup_keys", 12},
                   {"l2_lookup_found_keys", 3},
                   {"l2_store_failed_tasks", 1}}}}}};
  json other = node;
  other["name"] = "local-1";
  return {{"duration_s", 4.0},
          {"lateness_us", {{"p99", 1234.5}}},
          {"nodes", {node, other}},
          {"contention",
           {{"per_op",
             {{"store", {{"n", 40}, {"p50_us", 1000.0}, {"p99_us", 12000.0}}},
              {"lookup", {{"n", 15}, {"p50_us", 300.0}, {"p99_us", 900.0}}},
              {"load", {{"n", 5}, {"p50_us", 1500.0}, {"p99_us", 2500.0}}}}},
            {"per_node", {{"local-0", 40.0}, {"local-1", 20.0}}},
            {"fairness", nullptr}}}};  // null: computed from per_node
}

const char* kRedisStats =
    "# Commandstats\r\n"
    "cmdstat_set:calls=30,usec=300,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n"
    "cmdstat_exists:calls=10,usec=25,usec_per_call=2.50,rejected_calls=0,failed_calls=0\r\n"
    "cmdstat_config|resetstat:calls=1,usec=61,usec_per_call=61.00\r\n"
    "cmdstat_ping:calls=2,usec=2,usec_per_call=1.00\r\n";

class ContentionSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    write_run("n1", summary_n1(), kRedisStats);
    write_run("n2", summary_n2(), "");
  }

  std::string write_run(const std::string& name, const json& summary, const std::string& redis) {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "fleet_summary.json") << summary.dump(2);
    if (!redis.empty()) std::ofstream(dir / "redis_commandstats.txt") << redis;
    return dir.string();
  }
  std::string dir(const std::string& name) const { return (root_ / name).string(); }
  std::vector<SweepRow> rows() const {
    return {load_sweep_row(1, dir("n1")).value(), load_sweep_row(2, dir("n2")).value()};
  }

  test::ScratchDir scratch_;
  const fs::path& root_ = scratch_.path();
};

TEST_F(ContentionSweep, RowsComeFromSummaryAndCommandstats) {
  const auto r = rows();
  EXPECT_EQ(r[0].n, 1);
  EXPECT_EQ(r[0].nodes_ok, 1);
  EXPECT_EQ(r[0].l2_ops, 40);
  EXPECT_DOUBLE_EQ(*r[0].l2_ops_per_s, 20.0);
  EXPECT_DOUBLE_EQ(*r[0].fairness, 1.0);
  EXPECT_EQ(r[0].ops[0].n, 30);  // store
  EXPECT_DOUBLE_EQ(*r[0].ops[1].p50_us, 250.25);
  EXPECT_FALSE(r[0].ops[2].p50_us);  // no load
  EXPECT_EQ(r[0].ops[2].n, 0);
  EXPECT_EQ(r[0].node_ops, std::vector<double>{40.0});
  EXPECT_DOUBLE_EQ(*r[0].l1_hit_rate, 0.625);
  EXPECT_DOUBLE_EQ(*r[0].l1_l2_hit_rate, 0.75);
  ASSERT_EQ(r[0].redis.size(), 2u) << "config|resetstat and ping are the script's own";
  EXPECT_EQ(r[0].redis.at("set").calls, 30);
  EXPECT_DOUBLE_EQ(r[0].redis.at("exists").usec_per_call, 2.5);

  EXPECT_EQ(r[1].nodes, 2);
  EXPECT_EQ(r[1].l2_ops, 60);
  EXPECT_NEAR(*r[1].fairness, 0.9, 1e-12) << "Jain over per_node when fairness is null";
  EXPECT_EQ(r[1].node_ops, (std::vector<double>{40.0, 20.0}));
  EXPECT_EQ(r[1].l1_hit_keys, 40);
  EXPECT_EQ(r[1].l2_found_keys, 6);
  EXPECT_EQ(r[1].l2_store_failed, 2);
  EXPECT_FALSE(r[1].l1_hit_rate);
  EXPECT_TRUE(r[1].redis.empty());
}

TEST_F(ContentionSweep, TableIsRightAlignedWithARuleUnderTheHeader) {
  const std::string expected =
      "N  nodes  L2 ops  L2 ops/s  store p50/p99 us  lookup p50/p99 us  load p50/p99 us  "
      "fairness  late p99 us  L1 hit/miss keys  L2 found/lookup keys  hit L1/L1+L2\n"
      "-  -----  ------  --------  ----------------  -----------------  ---------------  "
      "--------  -----------  ----------------  --------------------  ------------\n"
      "1    1/1      40      20.0      900.0/5000.5        250.2/800.0          n/a/n/a  "
      "   1.000         77.2              10/5                   2/5   62.5%/75.0%\n"
      "2    2/2      60      15.0    1000.0/12000.0        300.0/900.0    1500.0/2500.0  "
      "   0.900       1234.5             40/24                  6/24       n/a/n/a";
  EXPECT_EQ(render_sweep_table(rows()), expected);
}

TEST_F(ContentionSweep, RedisTableListsEveryCommandOfEveryRun) {
  const std::string expected =
      "Redis server side (INFO commandstats: mean time inside Redis per command):\n"
      "N  EXISTS calls / us per call  SET calls / us per call\n"
      "1                    10 / 2.5                30 / 10.0\n"
      "2                           -                        -";
  EXPECT_EQ(render_redis_table(rows()), expected);
  EXPECT_EQ(render_redis_table({load_sweep_row(2, dir("n2")).value()}), "");
}

TEST_F(ContentionSweep, JsonHasOneObjectPerRunWithTheScriptsKeys) {
  const auto j = sweep_json(rows());
  ASSERT_EQ(j.size(), 2u);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j[0].items()) keys.push_back(k);
  const std::vector<std::string> expected = {"n",
                                             "nodes_ok",
                                             "nodes",
                                             "duration_s",
                                             "latency_source",
                                             "l2_ops",
                                             "fairness",
                                             "store_p50_us",
                                             "store_p99_us",
                                             "store_n",
                                             "lookup_p50_us",
                                             "lookup_p99_us",
                                             "lookup_n",
                                             "load_p50_us",
                                             "load_p99_us",
                                             "load_n",
                                             "node_ops",
                                             "l2_ops_per_s",
                                             "lateness_p99_us",
                                             "l1_hit_keys",
                                             "l1_miss_keys",
                                             "l2_lookup_keys",
                                             "l2_found_keys",
                                             "l2_store_failed",
                                             "l1_hit_rate",
                                             "l1_l2_hit_rate",
                                             "redis"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(j[0]["latency_source"], "contention");
  EXPECT_TRUE(j[0]["load_p50_us"].is_null());
  EXPECT_EQ(j[0]["redis"]["set"], nlohmann::ordered_json::parse("[30, 10.0]"));
  EXPECT_EQ(j[0]["l1_l2_hit_rate"], 0.75);
  EXPECT_TRUE(j[1]["l1_hit_rate"].is_null());
  EXPECT_EQ(j[1]["node_ops"], nlohmann::ordered_json::parse("[40.0, 20.0]"));
  EXPECT_TRUE(j[1]["redis"].is_object() && j[1]["redis"].empty());
}

TEST_F(ContentionSweep, SaneRunsPassTheCheck) { EXPECT_TRUE(check_sweep(rows()).empty()); }

TEST_F(ContentionSweep, CheckNamesANodeThatDidNotReportOk) {
  json s = summary_n2();
  s["nodes"][1]["status"] = "lost";
  const auto problems = check_sweep({load_sweep_row(2, write_run("lost", s, "")).value()});
  EXPECT_EQ(problems, std::vector<std::string>{"N=2: 1 of 2 nodes reported ok"});
  // A fleet that came up short of N is not sane either.
  EXPECT_EQ(check_sweep({load_sweep_row(3, dir("n2")).value()}),
            std::vector<std::string>{"N=3: 2 of 3 nodes reported ok"});
}

TEST_F(ContentionSweep, CheckFailsWithoutL2Operations) {
  json s = summary_n1();
  s["contention"]["per_op"] = {{"store", {{"n", 0}, {"p50_us", 0.0}, {"p99_us", 0.0}}}};
  s["contention"]["per_node"] = {{"local-0", 0.0}};
  s["contention"]["fairness"] = nullptr;
  const auto problems = check_sweep({load_sweep_row(1, write_run("idle", s, "")).value()});
  const std::vector<std::string> expected = {"N=1: no L2 operations",
                                             "N=1: a node did no L2 operations: [0.0]",
                                             "N=1: fairness n/a not in (0, 1]"};
  EXPECT_EQ(problems, expected);
}

TEST_F(ContentionSweep, CheckFailsOnFairnessOutOfRange) {
  json s = summary_n1();
  s["contention"]["fairness"] = 1.5;
  EXPECT_EQ(check_sweep({load_sweep_row(1, write_run("unfair", s, "")).value()}),
            std::vector<std::string>{"N=1: fairness 1.5 not in (0, 1]"});
  s["contention"]["fairness"] = 0.0;
  EXPECT_EQ(check_sweep({load_sweep_row(1, write_run("zero", s, "")).value()}),
            std::vector<std::string>{"N=1: fairness 0.0 not in (0, 1]"});
}

TEST_F(ContentionSweep, ARunWithoutContentionIsAnErrorNamingItsFile) {
  json s = summary_n1();
  s.erase("contention");
  const std::string d = write_run("no-l2", s, "");
  const Result<SweepRow> row = load_sweep_row(1, d);
  ASSERT_FALSE(row.ok());
  EXPECT_EQ(row.status().message(),
            d + "/fleet_summary.json: no \"contention\" per-op L2 latency (did every node run "
                "with an L2 adapter?)");
}

TEST_F(ContentionSweep, CommandPrintsBothTablesWritesJsonAndReturnsTheExitCode) {
  const std::string out = (root_ / "contention.json").string();
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(contention_sweep_command({"1=" + dir("n1"), "2=" + dir("n2")}, out, true), 0);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed, render_sweep_table(rows()) + "\n\n" + render_redis_table(rows()) + "\n" +
                         "check: every node reported, L2 ops > 0, fairness in (0, 1]\n");
  std::ifstream in(out);
  EXPECT_EQ(json::parse(in), json::parse(sweep_json(rows()).dump()));

  json s = summary_n2();
  s["nodes"][0]["status"] = "failed";
  const std::string bad = write_run("bad", s, "");
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(contention_sweep_command({"2=" + bad}, "", true), 1);
  ::testing::internal::GetCapturedStdout();
  EXPECT_NE(
      ::testing::internal::GetCapturedStderr().find("CHECK FAILED: N=2: 1 of 2 nodes reported ok"),
      std::string::npos);
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(contention_sweep_command({"2=" + bad}, "", false), 0) << "no --check, no verdict";
  ::testing::internal::GetCapturedStdout();
}

TEST_F(ContentionSweep, CommandRejectsBadArgumentsAndMissingRuns) {
  for (const std::string& arg :
       {std::string("n1"), std::string("x=" + dir("n1")), std::string("0=" + dir("n1")),
        std::string("1="), std::string("1=" + dir("missing"))}) {
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(contention_sweep_command({arg}, "", false), 2) << arg;
    ::testing::internal::GetCapturedStdout();
    ::testing::internal::GetCapturedStderr();
  }
}

TEST(RedisCommandstats, ABadLineIsAnError) {
  EXPECT_EQ(parse_redis_commandstats("cmdstat_set calls=1\n").status().message(),
            "bad line 'cmdstat_set calls=1'");
  EXPECT_EQ(parse_redis_commandstats("cmdstat_set:calls=x\n").status().message(),
            "bad line 'cmdstat_set:calls=x'");
  EXPECT_TRUE(parse_redis_commandstats("# Commandstats\n\n")->empty());
}

}  // namespace
}  // namespace fleet::report
