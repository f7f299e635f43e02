// --sweep parsing (docs/sweep.md): values split outside JSON, the grid and its labels, key
// namespaces, the goal, and the command line each variant inherits.
#include "fleet/insight/sweep/sweep_spec.h"

#include <gtest/gtest.h>

#include "fleet/coordinator/sweep/sweep_runner.h"

namespace fleet::sweep {
namespace {

TEST(SweepSpec, ValuesSplitAtCommasOutsideJson) {
  auto a = parse_sweep_axis(
      R"(l2-adapter={"type":"mock","max_size_gb":1},{"type":"fs","base_path":"/a,b"})");
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->name, "l2-adapter");
  ASSERT_EQ(a->values.size(), 2u);
  EXPECT_EQ(a->values[0], R"({"type":"mock","max_size_gb":1})");
  EXPECT_EQ(a->values[1], R"({"type":"fs","base_path":"/a,b"})");
  auto b = parse_sweep_axis("--l1-size-gb=4,8,16");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name, "l1-size-gb");
  EXPECT_EQ(b->values, (std::vector<std::string>{"4", "8", "16"}));
}

TEST(SweepSpec, MalformedAxesNameTheSpec) {
  for (const char* bad : {"l1-size-gb", "=4,8", "l1-size-gb=4", "l1-size-gb=4,,8"}) {
    auto a = parse_sweep_axis(bad);
    ASSERT_FALSE(a) << bad;
    EXPECT_NE(a.status().message().find(bad), std::string::npos) << a.status().message();
  }
}

TEST(SweepSpec, TheGridIsTheProductWithSafeLabels) {
  auto grid =
      expand_grid({{"l1-size-gb", {"4", "8"}}, {"l2-adapter", {R"({"type":"mock"})", "x"}}});
  ASSERT_EQ(grid.size(), 4u);
  EXPECT_EQ(grid[0].label, "l1-size-gb=4,l2-adapter#0");
  EXPECT_EQ(grid[1].label, "l1-size-gb=4,l2-adapter=x");
  EXPECT_EQ(grid[3].label, "l1-size-gb=8,l2-adapter=x");
  EXPECT_EQ(grid[2].values[1].second, R"({"type":"mock"})");
  EXPECT_EQ(key_namespace(grid[0]), "sweep-l1-size-gb_4_l2-adapter_0");
}

// Long labels would collide once cut to 64 characters: a hash of the whole label keeps them apart.
TEST(SweepSpec, LongLabelsGetDistinctNamespaces) {
  auto grid = expand_grid({{"l2-prefetch-max-in-flight", {"4"}},
                           {"eviction-policy", {"LRU"}},
                           {"l1-size-gb", {"16", "32"}}});
  ASSERT_EQ(grid.size(), 2u);
  const std::string a = key_namespace(grid[0]), b = key_namespace(grid[1]);
  EXPECT_NE(a, b);
  EXPECT_LE(a.size(), 64u);
  EXPECT_LE(b.size(), 64u);
}

TEST(SweepSpec, GoalsDefaultToTheSensibleDirection) {
  EXPECT_TRUE(parse_sweep_goal("cache.l1_l2_hit_rate")->maximize);
  EXPECT_FALSE(parse_sweep_goal("cache.miss_rate")->maximize);
  EXPECT_FALSE(parse_sweep_goal("submit_prefetch_task.p99")->maximize);
  EXPECT_TRUE(parse_sweep_goal("records_per_s")->maximize);
  EXPECT_FALSE(parse_sweep_goal("records_per_s:min")->maximize);
  auto bad = parse_sweep_goal("records_per_s:up");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("'up'"), std::string::npos);
}

TEST(SweepSpec, VariantsInheritEverythingButWhatTheSweepDecides) {
  std::vector<std::string> args = {"coordinator",
                                   "t.lct",
                                   "--sweep",
                                   "l1-size-gb=1,2",
                                   "--l1-size-gb",
                                   "8",
                                   "--local=4",
                                   "--speed",
                                   "2",
                                   "--output-dir",
                                   "out",
                                   "--sweep-shared-l2",
                                   "--sweep-goal=records_per_s",
                                   "-q"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  auto base =
      base_args_for_sweep(static_cast<int>(argv.size()), argv.data(), {{"l1-size-gb", {"1", "2"}}});
  EXPECT_EQ(base, (std::vector<std::string>{"t.lct", "--speed", "2", "-q"}));
}

}  // namespace
}  // namespace fleet::sweep
