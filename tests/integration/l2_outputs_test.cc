// An L2 replay's outputs end to end (docs/report.md, docs/compare.md, "L2 runs"): two real runs
// of the shared fixture at different --speed each write report.html beside their stats,
// `coordinator report DIR` rebuilds it, `coordinator compare A B` prints and writes the per-kind
// deltas with speed as the one parameter that differs, and an L2 run against a storage run is
// refused naming both directories.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "scratch_dir.h"
#include "test_paths.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
const std::string kCoordinator = ::fleet::test::bin_dir() + "/coordinator/coordinator";
const std::string kMock = "'{\"type\":\"mock\",\"max_size_gb\":4,\"mock_bandwidth_gb\":100}'";

struct RunOutput {
  int status = -1;
  std::string out;  // stdout and stderr
};

RunOutput run(const std::string& args) {
  RunOutput r;
  FILE* p = popen((kCoordinator + " " + args + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string dir(const std::string& name) { return fleet::test::test_scratch_dir() / name; }

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replay(const std::string& name, const std::string& speed) {
  const std::string out = dir(name);
  const RunOutput r =
      run(::fleet::test::shared_fixtures() + "/l2/l2_small.lct --speed " + speed +
          " --clock virtual --prepare-l2 -q --l2-adapter " + kMock + " --output-dir " + out);
  EXPECT_EQ(r.status, 0) << r.out;
  return out;
}

TEST(L2Outputs, TwoSpeedsReportAndCompare) {
  const std::string a = replay("s1", "1"), b = replay("s10", "10");
  // report.html beside the stats, and rebuilt from the directory alone.
  for (const std::string& d : {a, b}) {
    const std::string page = text_of(d + "/report.html");
    EXPECT_THAT(page, HasSubstr("Fleet Replay L2 report"));
    EXPECT_THAT(page, HasSubstr("<section id=\"outcomes\""));
  }
  const RunOutput rebuilt = run("report " + a + " -o " + dir("rebuilt") + ".html");
  ASSERT_EQ(rebuilt.status, 0) << rebuilt.out;
  EXPECT_THAT(text_of(dir("rebuilt") + ".html"), HasSubstr("data-chart=\"l2_ops_time\""));

  const RunOutput c = run("compare " + a + " " + b + " --output-dir " + dir("cmp"));
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_THAT(c.out, HasSubstr("Comparing L2 runs"));
  EXPECT_THAT(c.out, HasSubstr("p99_ms"));
  const nlohmann::json j = nlohmann::json::parse(text_of(dir("cmp") + "/compare.json"));
  EXPECT_EQ(j["level"], "l2");
  EXPECT_EQ(j["parameters_that_differ"], nlohmann::json::array({"speed"}));
  ASSERT_EQ(j["kinds"].size(), 5u);
  EXPECT_EQ(j["kinds"][0]["kind"], "store");
  for (const nlohmann::json& m : j["kinds"][0]["metrics"]) {
    if (m["metric"] == "submitted") {
      EXPECT_EQ(m["a"], 68.0);
      EXPECT_EQ(m["delta"], 0.0);
    }
  }
  for (const nlohmann::json& m : j["run"]) {
    if (m["metric"] == "total_replay_seconds") {  // the 4.47 s schedule at 1x and at 10x
      EXPECT_NEAR(m["a"].get<double>(), 4.47, 0.05);
      EXPECT_NEAR(m["b"].get<double>(), 0.447, 0.05);
    }
    if (m["metric"] == "dependency_violations") {
      EXPECT_EQ(m["b"], 0.0);
    }
  }
}

// --fail-on over two L2 runs (docs/compare.md, "L2 runs"): a threshold that holds exits 0, one
// crossed exits 4 naming the metric and both values, an unknown L2 metric exits 2 naming it.
TEST(L2Outputs, FailOnGatesTwoL2Runs) {
  const std::string a = replay("gate1", "1"), b = replay("gate10", "10");
  const std::string both = "compare " + a + " " + b + " --output-dir " + dir("gate");
  const RunOutput ok =
      run(both + " --fail-on 'l2.total_replay_s > 0'" +
          " --fail-on 'l2.dependency_violations > 0'" + " --fail-on 'l2.lookup_task.p99 > 1000'");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_THAT(ok.out, HasSubstr("Thresholds (--fail-on)"));
  EXPECT_THAT(ok.out, HasSubstr("l2.dependency_violations > 0: ok"));

  const RunOutput crossed =
      run(both + " --fail-on 'l2.total_replay_s < -50%' --fail-on 'l2.store.submitted >= 68'");
  EXPECT_EQ(crossed.status, 4) << crossed.out;
  // The 4.47-s schedule at 1x against 0.447 s at 10x: -90 %.
  EXPECT_THAT(crossed.out, HasSubstr("threshold crossed: l2.total_replay_s < -50%: CROSSED"));
  EXPECT_THAT(crossed.out, HasSubstr("(A 4.4"));
  EXPECT_THAT(crossed.out, HasSubstr(", B 0.44"));
  EXPECT_THAT(crossed.out, HasSubstr("l2.store.submitted >= 68: CROSSED: B 68 >= 68"));
  const nlohmann::json j = nlohmann::json::parse(text_of(dir("gate") + "/compare.json"));
  ASSERT_EQ(j["thresholds"].size(), 2u);
  EXPECT_TRUE(j["thresholds"][0]["crossed"].get<bool>());

  for (const std::string metric : {"l2.lookup_task.p95", "l2.lookups.p99", "l2.ops", "p99"}) {
    const RunOutput bad = run(both + " --fail-on '" + metric + " > 1'");
    EXPECT_EQ(bad.status, 2) << bad.out;
    EXPECT_THAT(bad.out, HasSubstr("unknown L2 metric '" + metric + "'"));
  }
}

TEST(L2Outputs, AnL2RunAgainstAStorageRunIsRefused) {
  const std::string l2 = replay("refuse", "0");
  const std::string storage = ::fleet::test::source_dir() + "/tests/fixtures/run_dirs/embedded";
  const RunOutput c = run("compare " + storage + " " + l2 + " --output-dir " + dir("refused"));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_THAT(c.out, HasSubstr("cannot compare an L2 replay with a storage run"));
  EXPECT_THAT(c.out, HasSubstr(l2 + " is an L2 replay"));
  EXPECT_THAT(c.out, HasSubstr(storage + " is not"));
  EXPECT_FALSE(fs::exists(dir("refused") + "/compare.json"));
}

}  // namespace
