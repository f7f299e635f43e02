// `coordinator FILE` on an L2 adapter-level trace (docs/l2-traces.md, "The replay"): the
// embedded replay writes l2_replay_stats.json with the fork's fields and exits 0 (mismatches
// are a metric); --local runs it on workers (what the fleet does not do yet is refused by name);
// the storage-only flags are refused with messages naming the flag; the L2 flags are refused on a
// storage trace.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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
  const std::string cmd = kCoordinator + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string fixture() { return ::fleet::test::shared_fixtures() + "/l2/l2_small.lct"; }
std::string out_dir(const std::string& name) { return fleet::test::test_scratch_dir() / name; }

TEST(L2ReplayCli, EmbeddedReplayWritesTheForksStats) {
  const std::string dir = out_dir("embedded");
  const RunOutput r = run(fixture() + " --speed 0 --prepare-l2 --trace-percent 50 --l2-adapter " +
                          kMock + " --output-dir " + dir);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("L2 replay: "));
  EXPECT_THAT(r.out, HasSubstr("issued before a dependency completed: 0"));
  std::ifstream in(dir + "/l2_replay_stats.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["operations_selected"], 95);
  EXPECT_EQ(j["source_operations_total"], 189);
  EXPECT_EQ(j["trace_percent"], 50.0);
  EXPECT_EQ(j["operations_submitted"]["store"], 34);
  EXPECT_EQ(j["bytes_submitted"]["store"], 404226048);
  EXPECT_EQ(j["outcome_comparisons"]["lookup_task"], 27);
  EXPECT_EQ(j["fleet"]["dependency_violations"], 0);
  EXPECT_TRUE(j["operations"]["write"].contains("mock"));
  EXPECT_TRUE(fs::exists(dir + "/l2_prepare_manifest.json"));
}

// Across the fleet (l2_fleet_test.cc has the shard modes): --local runs it on workers and writes
// the merged stats with each node's, seeds as the embedded run does with --prepare-l2; what a
// fleet does not do is refused by name.
TEST(L2ReplayCli, FleetModesRunOnWorkersAndRefuseWhatTheyDoNotDo) {
  const std::string dir = out_dir("fleet");
  const RunOutput r = run(fixture() + " --local 1 --speed 0 --l2-adapter " + kMock +
                          " --progress never --output-dir " + dir);
  EXPECT_EQ(r.status, 0) << r.out;
  std::ifstream in(dir + "/l2_replay_stats.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["operations_selected"], 189);
  EXPECT_EQ(j["nodes"].size(), 1u);
  // --prepare-l2 on one worker seeds what the embedded run seeds, with the same outcomes.
  auto json_in = [](const std::string& path) {
    std::ifstream f(path);
    return nlohmann::json::parse(f);
  };
  const std::string emb = out_dir("embedded_prepare"), fleet = out_dir("fleet_prepare");
  const RunOutput e =
      run(fixture() + " --prepare-l2 -q --speed 0 --l2-adapter " + kMock + " --output-dir " + emb);
  ASSERT_EQ(e.status, 0) << e.out;
  const RunOutput p = run(fixture() + " --local 1 --prepare-l2 --speed 0 --l2-adapter " + kMock +
                          " --progress never --output-dir " + fleet);
  ASSERT_EQ(p.status, 0) << p.out;
  const nlohmann::json em = json_in(emb + "/l2_prepare_manifest.json");
  const nlohmann::json fm = json_in(fleet + "/l2_prepare_manifest.json");
  EXPECT_GT(em["prepared_objects"].get<uint64_t>(), 0u);
  EXPECT_EQ(fm["prepared_objects"], em["prepared_objects"]);
  EXPECT_EQ(fm["prepared_bytes"], em["prepared_bytes"]);
  EXPECT_EQ(json_in(fleet + "/l2_replay_stats.json")["outcome_mismatch_counts"],
            json_in(emb + "/l2_replay_stats.json")["outcome_mismatch_counts"]);
  const RunOutput t = run(fixture() + " --local 1 --shard time --l2-adapter " + kMock +
                          " --output-dir " + out_dir("fleet_time"));
  EXPECT_EQ(t.status, 2) << t.out;
  EXPECT_THAT(t.out, HasSubstr("--shard time: an L2 trace is sharded by source, key or none"));
}

TEST(L2ReplayCli, StorageOnlyFlagsAreRefused) {
  const RunOutput r = run(fixture() + " --from-zero --l2-adapter " + kMock + " --output-dir " +
                          out_dir("fromzero"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--from-zero applies to storage traces only"));
}

// What a worker would refuse in a START (worker/service/start_limits.h) the coordinator refuses
// first: more L2 files than a worker takes, a key namespace no storage run would accept.
TEST(L2ReplayCli, WhatAWorkerRefusesIsRefusedBeforeAnyWorker) {
  std::string files;
  for (int i = 0; i < 1025; ++i) files += fixture() + " ";
  const RunOutput many =
      run(files + "--local 1 --l2-adapter " + kMock + " --output-dir " + out_dir("manyfiles"));
  EXPECT_EQ(many.status, 2) << many.out.substr(0, 2000);
  EXPECT_THAT(many.out, HasSubstr("FILE: 1025 L2 trace files; a worker takes at most 1024"));
  const RunOutput ns = run(fixture() + " --speed 0 --l2-adapter " + kMock +
                           " --l2-key-namespace a:b --output-dir " + out_dir("badns"));
  EXPECT_EQ(ns.status, 2) << ns.out;
  EXPECT_THAT(ns.out, HasSubstr("--l2-key-namespace: only letters, digits"));
}

TEST(L2ReplayCli, NoAdapterIsRefused) {
  const RunOutput r = run(fixture() + " --output-dir " + out_dir("noadapter"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("L2 replay requires exactly one target adapter"));
}

TEST(L2ReplayCli, L2FlagsOnAStorageTraceAreRefused) {
  const std::string storage = ::fleet::test::shared_fixtures() + "/era3_small.lct";
  const RunOutput r = run(storage + " --prepare-l2 --l1-size-gb 1 --output-dir " + out_dir("st"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("require an L2 trace"));
}

}  // namespace
