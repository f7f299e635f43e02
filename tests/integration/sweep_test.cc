// --sweep with real processes (docs/sweep.md): variants side by side on disjoint --local worker
// groups with one T0, each a normal run with its own report; LRU's inclusion property across
// L1 sizes; one after another without workers; variants sharing a Redis get a key namespace
// each unless --sweep-shared-l2.
#include "chromium.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using json = nlohmann::json;

json read_json(const std::string& path) { return json::parse(read_file(path)); }
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Sweep, ThreeL1SizesRunConcurrentlyWithOneT0) {
  ScratchDir dir;
  const std::string trace = synthetic_trace("sweep", 6000);
  // The trace's LRU curve, drawn under the variants in sweep.html.
  Process mrc(
      {::fleet::test::bin_dir() + "/tools/lct/lct", "mrc", trace, "--json", dir / "mrc.json"},
      dir.path().string(), "mrc");
  ASSERT_EQ(mrc.wait_exit(std::chrono::seconds(60)), 0) << mrc.err();
  RunResult r = run_coordinator(
      {trace, "--local", "3", "--shard", "key", "--clock", "virtual", "--config-from-trace",
       "--sweep-mrc", dir / "mrc.json", "--l2-adapter",
       R"({"type":"mock","max_size_gb":64,"mock_bandwidth_gb":10})", "--sweep", "l1-size-gb=1,4,16",
       "--sweep-goal", "cache.l1_l2_hit_rate", "--start-delay", "0.3"},
      dir / "sweep", std::chrono::seconds(90));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json s = read_json(dir / "sweep/sweep.json");
  EXPECT_TRUE(s["concurrent"].get<bool>());
  EXPECT_TRUE(s["same_t0"].get<bool>()) << s.dump(2);
  ASSERT_EQ(s["variants"].size(), 3u);
  std::vector<int64_t> t0s;
  double last_hit = -1;
  for (const auto& v : s["variants"]) {
    const std::string d = v["dir"];
    EXPECT_EQ(v["exit_code"], 0);
    const json summary = read_json(d + "/fleet_summary.json");
    EXPECT_EQ(summary["nodes"].size(), 1u) << "3 workers shared out: one each";
    EXPECT_TRUE(std::filesystem::exists(d + "/report.html"));
    t0s.push_back(summary["coordinator"]["t0_mono_ns"].get<int64_t>());
    // LRU's inclusion property: a bigger L1 never serves fewer keys.
    const double hit = v["metrics"]["cache.l1_l2_hit_rate"].get<double>();
    EXPECT_GE(hit, last_hit) << v["label"];
    last_hit = hit;
    // Each variant's engine ran with its own value.
    const double gb = std::stod(v["values"]["l1-size-gb"].get<std::string>());
    EXPECT_EQ(summary["engine"]["config"]["l1_manager_config"]["memory_config"]["size_in_bytes"],
              static_cast<uint64_t>(gb * (1ull << 30)));
  }
  EXPECT_EQ(t0s[0], t0s[1]);
  EXPECT_EQ(t0s[1], t0s[2]);
  EXPECT_NE(t0s[0], 0);
  EXPECT_EQ(s["goal"]["best"], "l1-size-gb=16");
  EXPECT_TRUE(contains(r.out, "best by cache.l1_l2_hit_rate (max): l1-size-gb=16")) << r.out;
  EXPECT_TRUE(contains(read_file(dir / "sweep/sweep.html"), "id=\"variants-rows\""));
  // Every chart of the page draws, the curve included, with no script error.
  BrowserCheck page = open_in_browser(dir / "sweep/sweep.html");
  if (!page.available) {
    std::cout << "sweep.html not opened in a browser: " << page.skip_reason << "\n";
    return;
  }
  EXPECT_EQ(body_attribute(page.dom, "data-charts-drawn"), std::optional<std::string>("5"))
      << element_text(page.dom, "report-errors").value_or("");
  EXPECT_EQ(body_attribute(page.dom, "data-charts-expected"), std::optional<std::string>("5"));
  EXPECT_EQ(tbody_row_count(page.dom, "variants-rows"), 3);
}

TEST(Sweep, WithoutWorkersVariantsRunOneAfterAnother) {
  ScratchDir dir;
  RunResult r = run_coordinator({synthetic_trace("sweep", 6000), "--engine", "noop", "--speed", "0",
                                 "--sweep", "speed=0,0.0"},
                                dir / "sweep");
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = read_json(dir / "sweep/sweep.json");
  EXPECT_FALSE(s["concurrent"].get<bool>());
  EXPECT_EQ(s["variants"].size(), 2u);
  for (const auto& v : s["variants"]) EXPECT_EQ(v["metrics"]["records"], 6000 + 4) << v.dump();
}

TEST(Sweep, BadSweepsAreClearErrors) {
  ScratchDir dir;
  const std::string trace = synthetic_trace("sweep", 6000);
  RunResult not_a_flag = run_coordinator({trace, "--sweep", "no-such-flag=1,2"}, dir / "a");
  EXPECT_EQ(not_a_flag.code, 2);
  EXPECT_TRUE(contains(not_a_flag.err, "'--no-such-flag' is not a flag a sweep can vary"))
      << not_a_flag.err;
  RunResult one_value = run_coordinator({trace, "--sweep", "speed=1"}, dir / "b");
  EXPECT_EQ(one_value.code, 2);
  EXPECT_TRUE(contains(one_value.err, "at least two values")) << one_value.err;
}

// Two variants on one real Redis: their keys carry a namespace each, or none when shared.
TEST(Sweep, VariantsSharingARedisGetAKeyNamespaceEach) {
  if (std::system("command -v redis-server >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  }
  ScratchDir dir;
  const int port = 21000 + static_cast<int>(getpid() % 20000);
  Process redis({"/usr/bin/redis-server", "--port", std::to_string(port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no"},
                dir.path().string(), "redis");
  ASSERT_TRUE(wait_for([&] { return contains(redis.out(), "Ready to accept") || !redis.running(); },
                       std::chrono::seconds(10)))
      << redis.out();
  auto keys = [&](const std::string& pattern) {
    Process cli({"/usr/bin/redis-cli", "-p", std::to_string(port), "--scan", "--pattern", pattern},
                dir.path().string(), "scan");
    EXPECT_EQ(cli.wait_exit(std::chrono::seconds(10)), 0);
    const std::string out = cli.out();
    return static_cast<size_t>(std::count(out.begin(), out.end(), '\n'));
  };
  // Small objects (2 KiB per chunk): the point is the key names, not Redis' bandwidth.
  const std::string trace = dir / "small.lct";
  Process gen({::fleet::test::bin_dir() + "/tools/lct/lct", "gen", "-o", trace, "--records", "3000",
               "--layout", "2x2x1x64:bfloat16", "--cache-chunks", "200", "-q"},
              dir.path().string(), "gen");
  ASSERT_EQ(gen.wait_exit(std::chrono::seconds(30)), 0) << gen.err();
  const std::string adapter =
      R"({"type":"resp","host":"127.0.0.1","port":)" + std::to_string(port) + "}";
  const std::vector<std::string> base = {trace,          "--local", "2",
                                         "--clock",      "virtual", "--config-from-trace",
                                         "--l2-adapter", adapter,   "--start-delay",
                                         "0.3",          "--sweep", "l1-size-gb=1,2"};
  RunResult own = run_coordinator(base, dir / "own", std::chrono::seconds(90));
  ASSERT_EQ(own.code, 0) << own.err;
  const size_t a = keys("sweep-l1-size-gb_1:*"), b = keys("sweep-l1-size-gb_2:*");
  EXPECT_GT(a, 0u);
  EXPECT_GT(b, 0u);
  EXPECT_EQ(keys("*"), a + b) << "every key is in one variant's namespace";
  std::vector<std::string> shared = base;
  shared.push_back("--sweep-shared-l2");
  RunResult together = run_coordinator(shared, dir / "shared", std::chrono::seconds(90));
  ASSERT_EQ(together.code, 0) << together.err;
  EXPECT_GT(keys("*"), a + b) << "shared: LMCache's own key names, no namespace";
  EXPECT_EQ(keys("sweep-*"), a + b);
}

}  // namespace
}  // namespace fleet::test
