// The L2 eviction controller (docs/era3-reference.md §3.5), driven by the virtual clock: a mock
// adapter with an `eviction` block is trimmed by its own LRU once used/capacity reaches the
// watermark; without a block (or without a capacity) nothing is ever deleted from L2.
#include "fleet/engine/l2_eviction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "fleet/engine/mock_l2_adapter.h"
#include "scratch_dir.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;

constexpr int64_t kSecond = 1'000'000'000;
const trace::MemoryLayout kMiB = Layout(262144);  // 2 * 262144 * 2 B = 1 MiB

// 5 MiB of mock L2 (5/1024 GiB is exact in binary), fast enough that stores land within 10 us.
nlohmann::json EvictingMock(double ratio, const char* policy = "LRU") {
  nlohmann::json j = MockJson(5.0 / 1024, 1000.0);
  j["eviction"] = {
      {"eviction_policy", policy}, {"trigger_watermark", 0.8}, {"eviction_ratio", ratio}};
  return j;
}

EngineConfig BigL1() { return ExampleConfig(64ull << 20); }

TEST(L2Eviction, LruTrimsTheAdapterAtTheWatermark) {
  util::VirtualClock clock;
  EngineConfig cfg = BigL1();
  add_l2_adapter(cfg, EvictingMock(0.5));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  auto& mock = static_cast<MockL2Adapter&>(sm.adapter(0));
  ASSERT_EQ(mock.capacity_bytes(), 5u << 20);

  // One batch A..D: stored in L2 (4 of 5 MiB = 0.8). The L2 policy sees the batch as created,
  // in reverse, so D is least recently used and A most.
  Put(sm, Keys({"A", "B", "C", "D"}), kMiB);
  Advance(sm, clock, kSecond / 2);
  EXPECT_DOUBLE_EQ(mock.usage().usage_fraction(), 0.8);
  EXPECT_TRUE(mock.contains(K("D")));

  // First tick at 1 s: 0.8 >= 0.8, target = int(4 * 0.5) = 2 -> D and C go.
  Advance(sm, clock, kSecond / 2);
  EXPECT_FALSE(mock.contains(K("D")));
  EXPECT_FALSE(mock.contains(K("C")));
  EXPECT_TRUE(mock.contains(K("A")));
  EXPECT_TRUE(mock.contains(K("B")));
  EXPECT_DOUBLE_EQ(mock.usage().usage_fraction(), 0.4);
  auto a = fleet::engine::to_json(sm.counters())["l2_adapters"][0];
  EXPECT_EQ(a["eviction_enabled"], true);
  EXPECT_EQ(a["eviction_ticks"], 1);
  EXPECT_EQ(a["eviction_ticks_triggered"], 1);
  EXPECT_EQ(a["evicted_keys"], 2);

  // E..G fill it to 5/5; order is now B, A, G, F, E -> the 2 s tick takes int(5 * 0.5) = 2:
  // B and A.
  Put(sm, Keys({"E", "F", "G"}), kMiB);
  Advance(sm, clock, kSecond);
  EXPECT_FALSE(mock.contains(K("B")));
  EXPECT_FALSE(mock.contains(K("A")));
  for (const char* k : {"E", "F", "G"}) EXPECT_TRUE(mock.contains(K(k))) << k;
  a = fleet::engine::to_json(sm.counters())["l2_adapters"][0];
  EXPECT_EQ(a["eviction_ticks"], 2);
  EXPECT_EQ(a["evicted_keys"], 4);

  // 3/5 = 0.6 < 0.8: the next tick is skipped.
  Advance(sm, clock, kSecond);
  a = fleet::engine::to_json(sm.counters())["l2_adapters"][0];
  EXPECT_EQ(a["eviction_ticks"], 3);
  EXPECT_EQ(a["eviction_ticks_triggered"], 2);
}

TEST(L2Eviction, WithoutABlockL2IsNeverTrimmed) {
  util::VirtualClock clock;
  EngineConfig cfg = BigL1();
  add_l2_adapter(cfg, MockJson(5.0 / 1024, 1000.0));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  auto& mock = static_cast<MockL2Adapter&>(sm.adapter(0));
  Put(sm, Keys({"A", "B", "C", "D", "E"}), kMiB);
  Advance(sm, clock, 3 * kSecond);
  EXPECT_DOUBLE_EQ(mock.usage().usage_fraction(), 1.0);
  auto a = fleet::engine::to_json(sm.counters())["l2_adapters"][0];
  EXPECT_EQ(a["eviction_enabled"], false);
  EXPECT_EQ(a["eviction_ticks"], 0);
  // The sixth key no longer fits (no self-eviction in era 3).
  Put(sm, Keys({"F"}), kMiB);
  Advance(sm, clock, kSecond);
  EXPECT_FALSE(mock.contains(K("F")));
}

TEST(L2Eviction, NoopPolicyTracksNothingAndNeverEvicts) {
  util::VirtualClock clock;
  EngineConfig cfg = BigL1();
  add_l2_adapter(cfg, EvictingMock(1.0, "noop"));
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A", "B", "C", "D", "E"}), kMiB);
  Advance(sm, clock, 2 * kSecond);
  auto a = fleet::engine::to_json(sm.counters())["l2_adapters"][0];
  EXPECT_EQ(a["eviction_ticks_triggered"], 2);
  EXPECT_EQ(a["evicted_keys"], 0);
}

TEST(L2Eviction, LoadsTouchAndOnlyStoredKeysAreCreated) {
  util::VirtualClock clock;
  MockL2Adapter mock(MockL2Config::from_json(MockJson(2.0 / 1024, 1000.0)).value());  // 2 MiB
  L2AdapterContext ctx;
  ctx.clock = &clock;
  ctx.synchronous = true;
  ctx.report_keys = true;
  std::vector<L2Completion> done;
  ctx.deliver = [&](int64_t, L2Completion c) { done.push_back(std::move(c)); };
  mock.attach(ctx);
  L2EvictionConfig cfg;
  cfg.eviction_ratio = 0.5;
  L2EvictionController ctl(mock, cfg);

  // X, Y fit; Z does not (no room): the policy must not learn Z.
  mock.submit_store(Keys({"X", "Y", "Z"}), {1u << 20, 1u << 20, 1u << 20});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].bitmap, std::vector<uint8_t>({1, 1, 0}));
  ctl.on_completion(done[0]);
  EXPECT_EQ(ctl.policy().order(), Keys({"Y", "X"}));
  // A load hits Y (and misses Q): Y becomes most recent.
  mock.submit_load(Keys({"Q", "Y"}), {1u << 20, 1u << 20});
  ASSERT_EQ(done.size(), 2u);
  ctl.on_completion(done[1]);
  EXPECT_EQ(ctl.policy().order(), Keys({"X", "Y"}));
  L2AdapterCounters counters;
  ctl.tick(counters);  // usage 1.0: int(2 * 0.5) = 1 victim, the LRU key X
  EXPECT_FALSE(mock.contains(K("X")));
  EXPECT_TRUE(mock.contains(K("Y")));
  EXPECT_EQ(counters.evicted_keys, 1u);
  EXPECT_EQ(ctl.policy().order(), Keys({"Y"}));
}

TEST(L2Eviction, BlockValidationNamesTheField) {
  auto expect_error = [](nlohmann::json block, const std::string& needle) {
    nlohmann::json spec = MockJson(1.0, 1.0);
    spec["eviction"] = std::move(block);
    const Result<std::optional<L2EvictionConfig>> c = L2EvictionConfig::from_adapter_json(spec);
    ASSERT_FALSE(c) << "expected an error for " << spec.dump();
    EXPECT_THAT(c.status().message(), ::testing::HasSubstr(needle));
  };
  expect_error({{"eviction_policy", "ARC2"}}, "eviction_policy");
  expect_error({{"trigger_watermark", 1.5}}, "trigger_watermark");
  expect_error({{"eviction_ratio", "half"}}, "eviction_ratio");
  expect_error(nlohmann::json::array(), "JSON object");
  nlohmann::json none = MockJson(1.0, 1.0);
  EXPECT_FALSE(L2EvictionConfig::from_adapter_json(none).value().has_value());
  none["eviction"] = nullptr;
  EXPECT_FALSE(L2EvictionConfig::from_adapter_json(none).value().has_value());
  // The engine refuses a bad block at construction, before any replay.
  util::VirtualClock clock;
  EngineConfig cfg = BigL1();
  nlohmann::json bad = MockJson(1.0, 1.0);
  bad["eviction"] = {{"eviction_ratio", -1}};
  add_l2_adapter(cfg, bad);
  EXPECT_EQ(StorageManager::open(cfg, clock).status().message(),
            "--l2-adapter #0: adapter 'eviction': 'eviction_ratio' must be a number in [0.0, 1.0]");
}

TEST(L2Eviction, AdapterWithoutCapacityIsNotWired) {
  util::VirtualClock clock;
  EngineConfig cfg = BigL1();
  const test::ScratchDir scratch;
  const std::string dir = scratch / "l2_eviction_fs";
  nlohmann::json fs = {
      {"type", "fs"}, {"base_path", dir}, {"eviction", {{"eviction_policy", "LRU"}}}};
  add_l2_adapter(cfg, fs);
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_adapters"][0]["eviction_enabled"], false);
}

}  // namespace
}  // namespace fleet::storage
