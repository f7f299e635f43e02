// Engine config: LMCache flags, validation messages, the StorageManagerConfig dict and digests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "fleet/engine/counters_json.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/engine_factory.h"
#include "fleet/engine/l1_manager.h"
#include "fleet/engine/l2_adapter_factory.h"
#include "fleet/engine/noop_engine.h"
#include "fleet/engine/storage_manager.h"
#include "fleet/flags/engine_flags.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/sha256.h"
#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::storage {
namespace {

const char* kRecorded =
    R"({"eviction_config": {"eviction_policy": "LRU", "eviction_ratio": 0.2, "trigger_watermark": 0.8}, "l1_manager_config": {"eviction": null, "memory_config": {"align_bytes": 4096, "init_size_in_bytes": 8589934592, "shm_name": "", "size_in_bytes": 8589934592, "use_hugepages": false, "use_lazy": false}, "read_ttl_seconds": 300, "tag": "_default", "write_ttl_seconds": 600}, "l2_adapter_config": {"adapters": [{"max_size_gb": 4.0, "mock_bandwidth_gb": 10.0, "type": "mock"}]}, "prefetch_max_in_flight": 8, "prefetch_policy": "default", "store_policy": "default"})";
const char* kRecordedDigest = "0afcc54a131be4178632c9a9e00d3defd8eb416881b465c742116789a4a5df9b";

TEST(Digest, SpecTestVector) {
  nlohmann::json j = {{"chunk_size", 256}, {"adapters", nlohmann::json::array()}};
  EXPECT_EQ(util::py_json_dumps(j), R"({"adapters": [], "chunk_size": 256})");
  EXPECT_EQ(util::sha256_hex(util::py_json_dumps(j)),
            "7a10b9a5c8e8344d32b5f8b7a530327a19f189439f5d2d5151065fd5d19ecff8");
}

TEST(Digest, RecordedHeaderRoundTrips) {
  EngineConfig c = engine_config_from_lmcache_json(nlohmann::json::parse(kRecorded)).value();
  EXPECT_EQ(c.l1_size_in_bytes, 8589934592u);
  EXPECT_FALSE(c.l1_use_lazy);
  EXPECT_EQ(c.l2_adapters.size(), 1u);
  EXPECT_EQ(c.lmcache_json_text(), kRecorded);
  EXPECT_EQ(util::sha256_hex(util::py_json_dumps(to_lmcache_json(c))), kRecordedDigest);
  EXPECT_EQ(c.digest(), kRecordedDigest);
}

TEST(Digest, RecordedHeaderFromFixtureFile) {
  // An in-tree fixture: its absence is a broken checkout, not a reason to skip.
  std::ifstream in(::fleet::test::shared_fixtures() + "/era3_small.lct.info");
  ASSERT_TRUE(in.is_open()) << "fixture " << ::fleet::test::shared_fixtures()
                            << "/era3_small.lct.info not found";
  std::string all((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(all.find(kRecordedDigest), std::string::npos);
}

TEST(Digest, SameConfigFromFlagsMatchesRecording) {
  EngineConfig c;
  CLI::App app;
  flags::add_engine_flags(app, c);
  std::vector<std::string> args = {
      "replay",
      "--l1-size-gb",
      "8",
      "--no-l1-use-lazy",
      "--eviction-policy",
      "LRU",
      "--l2-adapter",
      R"({"type": "mock", "max_size_gb": 4, "mock_bandwidth_gb": 10})"};
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(c.digest(), kRecordedDigest);  // ints given for GB become floats, as in LMCache
}

TEST(Digest, FloatsRenderAsPython) {
  EngineConfig c;
  c.l1_size_in_bytes = 1 << 20;
  c.eviction_ratio = 1e-05;
  c.eviction_trigger_watermark = 1.0;
  add_l2_adapter(c, {{"type", "mock"}, {"max_size_gb", 20.0}, {"mock_bandwidth_gb", 0.5}});
  const std::string text = c.lmcache_json_text();
  EXPECT_NE(text.find(R"("eviction_ratio": 1e-05)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("trigger_watermark": 1.0)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("max_size_gb": 20.0)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("init_size_in_bytes": 1048576)"), std::string::npos) << text;
}

TEST(Digest, NonAsciiIsEscapedAndUnknownFieldsArePreserved) {
  nlohmann::json j = nlohmann::json::parse(kRecorded);
  j["l1_manager_config"]["tag"] = "gr\xC3\xBC\xC3\x9F";  // "grüß"
  j["periodic_notifier_interval_ms"] = 5;
  j["eviction_config"]["extra_logging_interval"] = 10.0;
  EngineConfig c = engine_config_from_lmcache_json(j).value();
  EXPECT_EQ(c.lmcache_json_text(), util::py_json_dumps(j));
  EXPECT_NE(c.lmcache_json_text().find(R"("tag": "gr\u00fc\u00df")"), std::string::npos);
}

TEST(Flags, ParseEveryFlag) {
  EngineConfig c;
  CLI::App app;
  flags::add_engine_flags(app, c);
  std::vector<std::string> args = {"x",
                                   "--l1-size-gb",
                                   "0.5",
                                   "--l1-init-size-gb",
                                   "1",
                                   "--l1-align-bytes",
                                   "8192",
                                   "--l1-write-ttl-seconds",
                                   "60",
                                   "--l1-read-ttl-seconds",
                                   "30",
                                   "--eviction-policy",
                                   "noop",
                                   "--eviction-trigger-watermark",
                                   "0.9",
                                   "--eviction-ratio",
                                   "0.5",
                                   "--l2-adapter",
                                   R"({"type":"mock","max_size_gb":1,"mock_bandwidth_gb":1})",
                                   "--l2-adapter",
                                   R"({"type":"fs","base_path":"/tmp/x"})",
                                   "--l2-store-policy",
                                   "skip_l1",
                                   "--l2-prefetch-policy",
                                   "retain",
                                   "--l2-prefetch-max-in-flight",
                                   "3",
                                   "--eviction-tick-ms",
                                   "250",
                                   "--no-drain"};
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(c.l1_size_in_bytes, 512u << 20);
  EXPECT_TRUE(c.l1_use_lazy);
  EXPECT_EQ(c.l1_init_size_in_bytes, 1u << 30);
  EXPECT_EQ(c.l1_align_bytes, 8192u);
  EXPECT_EQ(c.l1_write_ttl_seconds, 60);
  EXPECT_EQ(c.l1_read_ttl_seconds, 30);
  EXPECT_EQ(c.eviction_policy, "noop");
  EXPECT_DOUBLE_EQ(c.eviction_trigger_watermark, 0.9);
  EXPECT_DOUBLE_EQ(c.eviction_ratio, 0.5);
  ASSERT_EQ(c.l2_adapters.size(), 2u);
  EXPECT_EQ(l2_adapter_json(c, 1)["type"], "fs");
  EXPECT_EQ(c.l2_store_policy, "skip_l1");
  EXPECT_EQ(c.l2_prefetch_policy, "retain");
  EXPECT_EQ(c.l2_prefetch_max_in_flight, 3);
  EXPECT_EQ(c.eviction_tick_ms, 250);
  EXPECT_FALSE(c.drain_on_close);
  EXPECT_TRUE(c.validate().ok());
  // The lazy heap: 0.5 GiB rounds up to a 64 MiB multiple (already one).
  util::VirtualClock clock;
  auto sm = StorageManager::open(c, clock);
  ASSERT_TRUE(sm) << sm.status().message();
  EXPECT_EQ(sm.value()->l1().memory_usage().second, 512u << 20);
}

TEST(Flags, ConfigFileThenOverrides) {
  const test::ScratchDir dir;
  const std::string path = dir / "engine_cfg.json";
  {
    std::ofstream out(path);
    out << R"({"l1-size-gb": 2, "eviction-ratio": 0.3, "l2_adapter": [{"type":"mock","max_size_gb":1,"mock_bandwidth_gb":2}], "engine": "noop"})";
  }
  EngineConfig c;
  CLI::App app;
  flags::add_engine_flags(app, c);
  std::vector<std::string> args = {"x", "--config-file", path, "--eviction-ratio", "0.4"};
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(c.l1_size_in_bytes, 2u << 30);
  EXPECT_DOUBLE_EQ(c.eviction_ratio, 0.4);
  EXPECT_EQ(c.engine_name, "noop");
  EXPECT_EQ(l2_adapter_json(c, 0)["mock_bandwidth_gb"], 2.0);
  std::remove(path.c_str());
}

void ExpectInvalid(const EngineConfig& c, const std::string& flag) {
  const Status s = c.validate();
  ASSERT_FALSE(s.ok()) << "expected an error naming " << flag;
  EXPECT_NE(s.message().find(flag), std::string::npos) << s.message();
}

TEST(Validate, ErrorsNameTheFlag) {
  EngineConfig base;
  base.l1_size_in_bytes = 1 << 20;
  EXPECT_TRUE(base.validate().ok());
  EngineConfig c = base;
  c.l1_size_in_bytes = 0;
  ExpectInvalid(c, "--l1-size-gb");
  c = base;
  c.eviction_policy = "S3FIFO";  // in LMCache's tree, not in its factory
  ExpectInvalid(c, "--eviction-policy");
  c = base;
  c.eviction_ratio = 1.5;
  ExpectInvalid(c, "--eviction-ratio");
  c = base;
  c.eviction_trigger_watermark = -0.1;
  ExpectInvalid(c, "--eviction-trigger-watermark");
  c = base;
  c.l1_align_bytes = 3000;
  ExpectInvalid(c, "--l1-align-bytes");
  c = base;
  c.l2_store_policy = "nope";
  ExpectInvalid(c, "--l2-store-policy");
  c = base;
  c.l2_prefetch_policy = "nope";
  ExpectInvalid(c, "--l2-prefetch-policy");
  c = base;
  c.l2_prefetch_max_in_flight = 0;
  ExpectInvalid(c, "--l2-prefetch-max-in-flight");
  c = base;
  add_l2_adapter(c, {{"type", "mock"}, {"max_size_gb", 1}});
  ExpectInvalid(c, "--l2-adapter #0");
  c = base;
  add_l2_adapter(c, {{"type", "s3"}});
  ExpectInvalid(c, "unknown adapter type 's3'");
  c = base;
  c.engine_name = "python";
  ExpectInvalid(c, "--engine");
  EngineConfig bad;
  CLI::App app;
  flags::add_engine_flags(app, bad);
  const char* argv[] = {"x", "--eviction-policy", "FIFO"};
  EXPECT_THROW(app.parse(3, argv), CLI::ParseError);
}

TEST(Factory, NativeAndNoop) {
  util::VirtualClock clock;
  EngineConfig c;
  c.l1_size_in_bytes = 1 << 20;
  c.l1_use_lazy = false;
  auto native = std::move(make_engine(c, clock)).value();
  EXPECT_EQ(native->name(), "native");
  EXPECT_EQ(native->config_digest(), c.digest());
  c.engine_name = "noop";
  auto noop = std::move(make_engine(c, clock)).value();
  EXPECT_EQ(noop->name(), "noop");
  c.engine_name = "fast";
  EXPECT_EQ(make_engine(c, clock).status().message(),
            "--engine: unknown engine 'fast' (choices: native, noop)");
  EXPECT_EQ(noop->config_digest(), c.digest());
  engine::ReadContext ctx;
  EXPECT_FALSE(noop->read_enter({}, ctx).failed);
  EXPECT_EQ(fleet::engine::to_json(noop->counters())["calls"], 1);
}

}  // namespace
}  // namespace fleet::storage

namespace fleet::storage {
namespace {

// Every adapter option of the wrong type or range is refused with the adapter and field named
// (before: a wrong-typed resp username escaped as a JSON library type_error).
TEST(AdapterOptions, BadValuesNameAdapterAndField) {
  auto expect = [](nlohmann::json spec, const std::string& needle) {
    const Result<nlohmann::json> normalized = normalize_l2_adapter_json(spec);
    ASSERT_FALSE(normalized) << "accepted " << spec.dump();
    EXPECT_NE(normalized.status().message().find(needle), std::string::npos)
        << normalized.status().message();
  };
  expect({{"type", "fs"}}, "fs adapter: 'base_path'");
  expect({{"type", "fs"}, {"base_path", "/tmp/x"}, {"use_odirect", "yes"}},
         "'use_odirect' must be a boolean");
  expect({{"type", "fs"}, {"base_path", "/tmp/x"}, {"read_ahead_size", 0}}, "'read_ahead_size'");
  expect({{"type", "fs"}, {"base_path", "/tmp/x"}, {"max_capacity_gb", -1}}, "'max_capacity_gb'");
  expect({{"type", "resp"}, {"host", "h"}}, "resp adapter: 'port'");
  expect({{"type", "resp"}, {"host", "h"}, {"port", 70000}}, "'port' must be in [1, 65535]");
  expect({{"type", "resp"}, {"host", "h"}, {"port", 6379}, {"username", 5}},
         "'username' must be a string");
  expect({{"type", "resp"}, {"host", "h"}, {"port", 6379}, {"num_workers", 0}}, "'num_workers'");
  expect({{"type", "resp"}, {"host", "h"}, {"port", 6379}, {"num_workers", 100000}},
         "'num_workers' must be at most 256");
  expect({{"type", "fault_inject"},
          {"inner", {{"type", "mock"}, {"max_size_gb", 1}, {"mock_bandwidth_gb", 1}}},
          {"rate", 2}},
         "fault_inject: 'rate' must be a number in [0");
  // Valid ones pass, and null means "not given".
  EXPECT_TRUE(normalize_l2_adapter_json({{"type", "fs"},
                                         {"base_path", "/tmp/x"},
                                         {"relative_tmp_dir", nullptr},
                                         {"use_odirect", false}}));
}

// Fuzzing (engine_config_fuzz): nlohmann copies and dumps a value recursively, so a config
// nesting 100 000 arrays (a START's engine_config_json, a --config-file) overflowed the stack
// in engine_config_from_lmcache_json and add_l2_adapter. The text is refused as it is parsed.
TEST(EngineConfigJson, DeepNestingIsRefusedWhenParsed) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::string recorded = kRecorded;
  const std::string lmcache =
      recorded.substr(0, recorded.size() - 1) + R"(, "extra": )" + deep + "}";
  const std::string quoted = std::string(200000, '[');  // inside a string: parsed later
  auto from_text = [](const std::string& text) -> Result<EngineConfig> {
    Result<nlohmann::json> j = parse_engine_config_json(text, "START");
    if (!j) return j.status();
    return engine_config_from_config_file_json(j.value());
  };
  for (const std::string& text : {deep, lmcache, R"({"l2-adapter": [")" + quoted + R"("]})"}) {
    const Result<EngineConfig> c = from_text(text);
    ASSERT_FALSE(c) << "accepted";
    EXPECT_NE(c.status().message().find("nested deeper"), std::string::npos)
        << c.status().message();
  }
  // What a config nests is well within the bound.
  EXPECT_EQ(from_text(recorded)->digest(),
            engine_config_from_lmcache_json(nlohmann::json::parse(recorded))->digest());
}

}  // namespace
}  // namespace fleet::storage
