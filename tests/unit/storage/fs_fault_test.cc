// fs adapter (worked example 8.9 of docs/era3-reference.md, interchangeability, hostile names) and
// the fault_inject decorator (gap positions, blake2b-8 bucket, an end-to-end gapped load).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fleet/engine/blake2b.h"
#include "fleet/engine/fault_inject_l2_adapter.h"
#include "fleet/engine/fs_l2_adapter.h"
#include "fleet/engine/mock_l2_adapter.h"
#include "scratch_dir.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
namespace fs = std::filesystem;

using test::ScratchDir;

TEST(Era3Example89, FsFileNames) {
  trace::ObjectKey k;
  k.chunk_hash = std::string("\x00\x00\x00\x2a", 4);
  k.model_name = "meta-llama/Llama-3.1-8B";
  k.kv_rank = 0x02010201;
  k.object_group_id = 0;
  EXPECT_EQ(fs_object_file_name(k), "meta-llama-SEP-Llama-3.1-8B@0x02010201@0@0000002a.data");
  EXPECT_EQ(fs_temp_file_name(k), "meta-llama-SEP-Llama-3.1-8B@0x02010201@0@0000002a.tmp");
  k.object_group_id = 11;
  EXPECT_EQ(fs_object_file_name(k), "meta-llama-SEP-Llama-3.1-8B@0x02010201@b@0000002a.data");
  k.kv_rank = 0;
  EXPECT_EQ(fs_object_file_name(k), "meta-llama-SEP-Llama-3.1-8B@0x00000000@b@0000002a.data");
  k.cache_salt = "tenantA";
  EXPECT_EQ(fs_object_file_name(k),
            "meta-llama-SEP-Llama-3.1-8B@0x00000000@b@0000002a@tenantA.data");
}

EngineConfig FsConfig(const fs::path& dir) {
  EngineConfig c = ExampleConfig(1 << 20);
  add_l2_adapter(c, {{"type", "fs"}, {"base_path", dir.string()}});
  return c;
}

TEST(FsAdapter, StoreWritesLmcacheNamesAndAnotherEngineLoadsThem) {
  ScratchDir dir;
  KeyList keys = {K(std::string("\x01\x02", 2), 0, 0, "org/model"),
                  K(std::string("\x03\x04", 2), 0, 0, "org/model")};
  {
    util::VirtualClock clock;
    auto opened = Open(FsConfig(dir.path()), clock);
    StorageManager& sm = *opened;
    Put(sm, keys);
    sm.close(true);
    EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_bytes"], 8000);
  }
  const fs::path f = dir.path() / "org-SEP-model@0x00000000@0@0102.data";
  ASSERT_TRUE(fs::exists(f));
  EXPECT_EQ(fs::file_size(f), 4000u);  // logical bytes, not the 4096-B footprint
  EXPECT_FALSE(fs::exists(dir.path() / "org-SEP-model@0x00000000@0@0102.tmp"));
  // A file written by someone else (e.g. Python LMCache) under the same naming is found too.
  std::ofstream(dir.path() / "org-SEP-model@0x00000000@0@0506.data") << std::string(4000, '\0');
  keys.push_back(K(std::string("\x05\x06", 2), 0, 0, "org/model"));
  util::VirtualClock clock;
  auto opened = Open(FsConfig(dir.path()), clock);
  StorageManager& sm = *opened;
  sm.submit_prefetch_task(Spec(keys));
  sm.run_until(clock.now_ns());
  const PrefetchResult* r = sm.prefetch_result(0);
  ASSERT_TRUE(r && r->finished);
  EXPECT_EQ(r->loaded, Idx({0, 1, 2}));
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_load_bytes"], 12000);
}

// A base_path that cannot be made is refused before any replay, naming the adapter and the path
// (every store would fail), and nothing of the engine is built.
TEST(FsAdapter, UnusableBasePathIsRefusedWhenTheEngineIsOpened) {
  util::VirtualClock clock;
  const Result<std::unique_ptr<StorageManager>> sm =
      StorageManager::open(FsConfig("/proc/fleet-cannot-create-this"), clock);
  ASSERT_FALSE(sm);
  EXPECT_EQ(
      sm.status().message().rfind(
          "fs adapter: base_path '/proc/fleet-cannot-create-this' is not a usable directory", 0),
      0u)
      << sm.status().message();
  EXPECT_EQ(sm.status().code(), ExitCode::kBadInput);
}

TEST(FsAdapter, ExistingFileIsSkippedAndShortFileIsAMiss) {
  ScratchDir dir;
  auto k = K("\x07", 0, 0, "m");
  std::ofstream(dir.path() / "m@0x00000000@0@07.data") << std::string(10, 'x');  // short
  util::VirtualClock clock;
  auto opened = Open(FsConfig(dir.path()), clock);
  StorageManager& sm = *opened;
  Put(sm, {k});
  sm.run_until(clock.now_ns());
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_bytes"], 0);  // exists-skip
  EXPECT_EQ(fs::file_size(dir.path() / "m@0x00000000@0@07.data"), 10u);
  sm.delete_l1_keys({k});
  sm.submit_prefetch_task(Spec({k}));
  sm.run_until(clock.now_ns());
  EXPECT_TRUE(sm.prefetch_result(0)->loaded.empty());  // found at lookup, short at load
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_prefetch_failed_not_found_keys"], 1);
}

TEST(FsAdapter, HostileNamesStayInsideBasePath) {
  ScratchDir dir;
  fs::create_directories(dir.path() / "base");
  util::VirtualClock clock;
  auto opened = Open(FsConfig(dir.path() / "base"), clock);
  StorageManager& sm = *opened;
  auto evil = K("\x01", 0, 0, "../../escape");
  trace::ObjectKey salted = K("\x02");
  salted.cache_salt = "../x";  // a salt with '/' is refused, not written anywhere
  Put(sm, {evil, salted});
  sm.close(true);
  size_t inside = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
    if (!e.is_regular_file()) continue;
    EXPECT_EQ(e.path().parent_path(), dir.path() / "base") << e.path();
    ++inside;
  }
  EXPECT_EQ(inside, 1u);
  EXPECT_TRUE(fs::exists(dir.path() / "base" / "..-SEP-..-SEP-escape@0x00000000@0@01.data"));
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_failed_tasks"], 1);
}

TEST(FsAdapter, RealThreadsAndRelativeTmpDir) {
  ScratchDir dir;
  EngineConfig c = ExampleConfig(1 << 20);
  add_l2_adapter(c,
                 {{"type", "fs"}, {"base_path", dir.path().string()}, {"relative_tmp_dir", "tmp"}});
  auto opened = Open(c, util::RealClock::instance());
  StorageManager& sm = *opened;
  sm.enable_l2_op_samples(true);
  Put(sm, Keys({"a", "b", "c"}));
  sm.close(true);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_bytes"], 12000);
  EXPECT_TRUE(fs::exists(dir.path() / "m@0x00000000@0@61.data"));
  EXPECT_TRUE(fs::is_empty(dir.path() / "tmp"));
  auto samples = sm.take_l2_op_samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_GE(samples[0].latency_ns, 0);
}

TEST(Blake2b, MatchesPythonHashlib) {
  auto hex = [](const std::string& s) {
    std::string out;
    char b[3];
    for (unsigned char c : s) {
      std::snprintf(b, sizeof(b), "%02x", c);
      out += b;
    }
    return out;
  };
  // python3 -c "import hashlib;print(hashlib.blake2b(b'abc',digest_size=8).hexdigest())"
  EXPECT_EQ(hex(blake2b("abc", 8)), "d8bb14d833d59559");
  EXPECT_EQ(hex(blake2b("abc", 64)),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  EXPECT_EQ(hex(blake2b(std::string(300, 'z'), 8)).size(), 16u);
}

std::unique_ptr<FaultInjectL2Adapter> MakeFault(nlohmann::json extra) {
  nlohmann::json j = {{"type", "fault_inject"}, {"inner", MockJson(1.0, 1.0)}};
  j.update(extra);
  Result<FaultInjectConfig> c = FaultInjectConfig::from_json(j);
  if (!c) return nullptr;
  return std::make_unique<FaultInjectL2Adapter>(
      c.value(), std::make_unique<MockL2Adapter>(MockL2Config::from_json(c->inner).value()));
}

TEST(FaultInject, GapPositions) {
  auto n_keys = [](size_t n) {
    KeyList k;
    for (size_t i = 0; i < n; ++i) k.push_back(K("g" + std::to_string(i)));
    return k;
  };
  auto mid = MakeFault({{"gap_tail_ratios", {0.5}}});
  EXPECT_EQ(mid->drop_positions(n_keys(4)), Idx({2}));  // round(1.5) = 2
  EXPECT_EQ(mid->drop_positions(n_keys(5)), Idx({2}));
  EXPECT_EQ(mid->drop_positions(n_keys(6)), Idx({2}));  // round(2.5) = 2 (ties to even)
  EXPECT_EQ(mid->drop_positions(n_keys(8)), Idx({4}));  // round(3.5) = 4
  EXPECT_TRUE(mid->drop_positions({}).empty());
  auto ends = MakeFault({{"gap_tail_ratios", {0.0, 1.0}}, {"gap_indices", {1, 9}}});
  EXPECT_EQ(ends->drop_positions(n_keys(4)), Idx({0, 1, 3}));
  auto all = MakeFault({{"rate", 1.0}});
  EXPECT_EQ(all->drop_positions(n_keys(3)), Idx({0, 1, 2}));
  auto none = MakeFault({{"rate", 0.0}, {"seed", 7}});
  EXPECT_TRUE(none->drop_positions(n_keys(50)).empty());
  // rate 0.5 drops about half, deterministically for a seed.
  auto half = MakeFault({{"rate", 0.5}, {"seed", 3}});
  size_t dropped = half->drop_positions(n_keys(400)).size();
  EXPECT_GT(dropped, 150u);
  EXPECT_LT(dropped, 250u);
  EXPECT_EQ(half->drop_positions(n_keys(400)),
            MakeFault({{"rate", 0.5}, {"seed", 3}})->drop_positions(n_keys(400)));
  EXPECT_EQ(FaultInjectConfig::from_json({{"type", "fault_inject"}}).status().message(),
            "fault_inject: 'inner' must be an adapter spec object");
  EXPECT_EQ(MakeFault({{"rate", 2.0}}), nullptr);
}

TEST(FaultInject, GappedLoadEndToEnd) {
  util::VirtualClock clock;
  EngineConfig c = ExampleConfig(1 << 20);
  add_l2_adapter(
      c, {{"type", "fault_inject"}, {"inner", MockJson(1.0, 1.0)}, {"gap_tail_ratios", {0.5}}});
  auto opened = Open(c, clock);
  StorageManager& sm = *opened;
  KeyList k = Keys({"k0", "k1", "k2", "k3"});
  Put(sm, k);
  Advance(sm, clock, 1'000'000);
  sm.delete_l1_keys(k);
  sm.submit_prefetch_task(Spec(k));
  Advance(sm, clock, 1'000'000);
  const PrefetchResult* r = sm.prefetch_result(0);
  ASSERT_TRUE(r && r->finished);
  EXPECT_EQ(r->loaded, Idx({0, 1, 3}));  // load position 2 dropped
  EXPECT_EQ(r->hit_chunks, 2u);
  EXPECT_EQ(r->retained, Idx({0, 1}));
  EXPECT_TRUE(sm.l1().contains(k[0]));
  EXPECT_FALSE(sm.l1().contains(k[2]));  // reserved, not loaded: finish_write_and_delete
  EXPECT_FALSE(sm.l1().contains(k[3]));  // loaded but outside the fold: released -> freed
  auto cnt = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(cnt["l2_prefetch_failed_not_found_keys"], 1);
  EXPECT_EQ(cnt["l2_adapters"][0]["type"], "fault_inject");
}

}  // namespace
}  // namespace fleet::storage
