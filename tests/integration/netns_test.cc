// A multi-host fleet: 3 workers in 3 network namespaces and the coordinator in a fourth, joined
// by a bridge (scripts/netns-cluster.sh). Skipped, with the reason, where namespaces cannot be
// created (no CAP_SYS_ADMIN, no iproute2).
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

std::string script() { return ::fleet::test::source_dir() + "/scripts/netns-cluster.sh"; }

TEST(NetnsCluster, ThreeWorkerNamespacesReplayTheTraceOnce) {
  ScratchDir dir;
  {
    Process check({"/bin/bash", script(), "--check"}, dir.path().string(), "check");
    auto code = check.wait_exit(20s);
    ASSERT_TRUE(code) << "--check hung";
    if (*code == 77) GTEST_SKIP() << "network namespaces unavailable: " << check.err();
    ASSERT_EQ(*code, 0) << check.err();
  }
  const std::string path = synthetic_trace("union", 3000, 2);
  const TraceCounts tc = count_trace(path);
  const std::string out = dir / "cluster";
  const std::string bins = ::fleet::test::bin_dir();
  Process cluster(
      {"/bin/bash", script(), "--trace",  path,   "--out",      out,     "--workers",     "3",
       "--bin-dir", bins,     "--",       "-q",   "--progress", "never", "--shard",       "time",
       "--window",  "1",      "--engine", "noop", "--speed",    "0",     "--start-delay", "0.3"},
      dir.path().string(), "cluster");
  auto code = cluster.wait_exit(60s);
  ASSERT_TRUE(code) << "netns cluster hung: " << cluster.err();
  ASSERT_EQ(*code, 0) << cluster.err() << read_file(out + "/coordinator.err");
  auto summary = nlohmann::json::parse(read_file(out + "/fleet_summary.json"));
  ASSERT_EQ(summary["nodes"].size(), 3u);
  uint64_t sum = 0;
  for (int i = 0; i < 3; ++i) {
    const auto& n = summary["nodes"][static_cast<size_t>(i)];
    EXPECT_EQ(n["status"], "ok");
    EXPECT_EQ(n["name"], "ns-w" + std::to_string(i + 1));
    EXPECT_EQ(n["address"], "10.77.0." + std::to_string(11 + i) + ":5555");
    sum += n["records"]["total"].get<uint64_t>();
  }
  EXPECT_EQ(sum, tc.records);
  // The trap removed every namespace the script created.
  Process list({"/usr/sbin/ip", "netns", "list"}, dir.path().string(), "list");
  ASSERT_TRUE(list.wait_exit(10s));
  EXPECT_EQ(list.out().find("flt" + std::to_string(cluster.pid())), std::string::npos)
      << list.out();
}

}  // namespace
}  // namespace fleet::test
