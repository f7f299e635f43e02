// The engine config compared field by field: nested objects and arrays by path, added and
// removed fields, numbers by value, and the one-line descriptions the outputs print.
#include "fleet/insight/compare/config_diff.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fleet/insight/compare/run_snapshot.h"
#include "scratch_dir.h"

namespace fleet::compare {
namespace {

using nlohmann::json;
using Kind = ConfigDifference::Kind;

TEST(ConfigDiff, SameConfigHasNoDifference) {
  const json c = json::parse(R"({"a": 1, "l2": {"adapters": [{"type": "mock"}]}})");
  EXPECT_TRUE(diff_config(c, c).empty());
  EXPECT_TRUE(diff_config(json::parse(R"({"x": 8})"), json::parse(R"({"x": 8.0})")).empty());
}

TEST(ConfigDiff, NestedObjectsAndArraysByPath) {
  const json a = json::parse(R"({
    "l1_manager_config": {"memory_config": {"size_in_bytes": 1073741824, "use_lazy": false}},
    "l2_adapter_config": {"adapters": [{"type": "mock", "max_size_gb": 8}]},
    "prefetch_policy": "default",
    "old_field": true
  })");
  const json b = json::parse(R"({
    "l1_manager_config": {"memory_config": {"size_in_bytes": 8589934592, "use_lazy": false}},
    "l2_adapter_config": {"adapters": [{"type": "mock", "max_size_gb": 16},
                                       {"type": "resp", "host": "redis"}]},
    "prefetch_policy": "default",
    "new_field": [1, 2]
  })");
  const auto d = diff_config(a, b);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(describe(d[0]),
            "l1_manager_config.memory_config.size_in_bytes: 1073741824 -> 8589934592");
  EXPECT_EQ(describe(d[1]), "l2_adapter_config.adapters[0].max_size_gb: 8 -> 16");
  EXPECT_EQ(d[2].path, "l2_adapter_config.adapters[1]");
  EXPECT_EQ(d[2].kind, Kind::kAdded);
  EXPECT_EQ(describe(d[2]),
            R"(l2_adapter_config.adapters[1]: added {"host":"redis","type":"resp"})");
  EXPECT_EQ(d[3].path, "new_field");
  EXPECT_EQ(d[3].kind, Kind::kAdded);
  EXPECT_EQ(describe(d[4]), "old_field: removed (was true)");
  EXPECT_EQ(d[4].kind, Kind::kRemoved);
  EXPECT_STREQ(kind_name(d[4].kind), "removed");
}

TEST(ConfigDiff, TypeChangesAndNullAreChanges) {
  const auto d = diff_config(json::parse(R"({"eviction": null, "tier": [1]})"),
                             json::parse(R"({"eviction": {"ratio": 0.5}, "tier": {"x": 1}})"));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(describe(d[0]), R"(eviction: null -> {"ratio":0.5})");
  EXPECT_EQ(describe(d[1]), R"(tier: [1] -> {"x":1})");
  EXPECT_EQ(d[1].kind, Kind::kChanged);
}

TEST(ConfigDiff, ShorterArrayListsRemovedElements) {
  const auto d = diff_config(json::parse(R"({"a": [1, 2, 3]})"), json::parse(R"({"a": [1]})"));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(describe(d[0]), "a[1]: removed (was 2)");
  EXPECT_EQ(describe(d[1]), "a[2]: removed (was 3)");
}

// Two configs someone else wrote: the listing stops at 1,000 differences and a key shows its
// first 200 bytes (every leaf's path copied every key above it: 40 levels of 100-KB keys took
// 4.8 GB).
TEST(ConfigDiff, ListsAtMostAThousandDifferencesWithKeysCutShort) {
  json a = json::object(), b = json::object();
  for (int i = 0; i < 3000; ++i) {
    a["k" + std::to_string(i)] = i;
    b["k" + std::to_string(i)] = i + 1;
  }
  EXPECT_EQ(diff_config(a, b).size(), kMaxConfigDifferences);
  const std::string key(100000, 'x');
  json deep_a = 1, deep_b = 2;
  for (int level = 0; level < 40; ++level) {
    deep_a = json{{key, deep_a}};
    deep_b = json{{key, deep_b}};
  }
  const auto d = diff_config(deep_a, deep_b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].path.size(), 40 * (200 + 3) + 39);
}

// A stored run someone else wrote with thousands of operation kinds (each costs compare a
// bootstrap: 2,000 took 13.5 s) is refused naming the file.
TEST(LoadRun, AThousandOperationKindsAreADamagedRun) {
  const test::ScratchDir scratch;
  json ops = json::object();
  for (int i = 0; i < 1000; ++i) ops["op" + std::to_string(i)] = {{"count", 1}};
  std::ofstream(scratch.path() / "fleet_summary.json") << json{{"ops", ops}}.dump();
  try {
    load_run(scratch.path().string());
    FAIL() << "loaded";
  } catch (const RunInputError& e) {
    EXPECT_NE(std::string(e.what()).find("fleet_summary.json: 1000 operation kinds"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fleet::compare
