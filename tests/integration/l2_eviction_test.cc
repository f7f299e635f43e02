// The L2 eviction controller end to end through `coordinator` (embedded, virtual clock).
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

// An L2 adapter with an `eviction` block, end to end: the virtual-clock replay fills a 1 GiB
// mock L2 with ~33 MB objects, the L2 controller trims it, and both the counters and the
// report's Fleet block show it.
TEST(EmbeddedL2Eviction, ControllerTrimsTheMockAndTheReportShowsIt) {
  ScratchDir dir;
  const std::string path = synthetic_trace("l2_eviction", 600, 1, 20.0);
  RunResult r = run_coordinator(
      {path, "--clock", "virtual", "--l1-size-gb", "8", "--l2-adapter",
       R"({"type": "mock", "max_size_gb": 1, "mock_bandwidth_gb": 10, "eviction": {"eviction_ratio": 0.5}})"},
      dir / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto& a = r.summary["engine"]["counters"]["l2_adapters"][0];
  EXPECT_TRUE(a["eviction_enabled"].get<bool>());
  EXPECT_GT(a["eviction_ticks_triggered"].get<uint64_t>(), 0u) << a.dump();
  EXPECT_GT(a["evicted_keys"].get<uint64_t>(), 0u) << a.dump();
  EXPECT_LE(a["peak_used_bytes"].get<uint64_t>(), a["capacity_bytes"].get<uint64_t>());
  EXPECT_NE(r.out.find("evicted keys (L2 eviction):"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fleet::test
