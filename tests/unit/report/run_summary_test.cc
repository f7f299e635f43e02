// RunSummary (summary/run_summary_json.h): a stored run directory of an earlier release reads
// into the struct and writes back to the same JSON; a damaged section reads as absent, a field of
// the wrong type or a file that is not JSON is an error naming it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fleet/summary/run_summary_json.h"
#include "fleet/util/json_file.h"
#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::summary {
namespace {

namespace fs = std::filesystem;

std::string stored(const std::string& name) {
  return test::source_dir() + "/tests/fixtures/run_dirs/" + name;
}

TEST(RunSummary, AStoredFleetRunReadsIntoTheStruct) {
  Result<RunSummary> read = read_run_summary(stored("key2"));
  ASSERT_TRUE(read) << read.status().message();
  const RunSummary& s = read.value();
  EXPECT_EQ(s.mode, "fleet");
  EXPECT_EQ(s.clock, "virtual");
  EXPECT_EQ(s.speed, 0.0);
  EXPECT_EQ(s.records.total, 2254u);
  EXPECT_EQ(s.records.total, s.records.replayed + s.records.skipped + s.records.failed);
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].name, "local-0");
  EXPECT_EQ(s.nodes[0].status, "ok");
  EXPECT_EQ(s.nodes[0].records.total + s.nodes[1].records.total, s.records.total);
  EXPECT_FALSE(s.nodes[0].counter.l2_adapters.empty());
  ASSERT_TRUE(s.engine.has_value());
  EXPECT_EQ(s.engine->name, "native");
  EXPECT_TRUE(s.engine->config.is_object());
  EXPECT_EQ(s.trace.path, "t.lct");
  EXPECT_FALSE(s.ops.empty());
  ASSERT_TRUE(s.cache.has_value());
  EXPECT_GT(s.cache->lookup.requested.keys, 0u);
  ASSERT_TRUE(s.contention.has_value());
  EXPECT_FALSE(s.contention->per_op.empty());
  EXPECT_EQ(s.contention->per_node.size(), 2u);
  for (const auto& [q, h] : s.latency_histograms_ns) {
    EXPECT_TRUE(h.histogram.has_value()) << q << ": " << h.error;
  }
  EXPECT_EQ(s.latency_cdf_ms.size(), s.latency_histograms_ns.size());
  EXPECT_TRUE(s.plan.is_object());
  EXPECT_TRUE(s.coordinator.start.is_object());
  EXPECT_TRUE(s.extra.contains("coordinator"));
}

// The writer gives back the file the release wrote: every key, value and number type (the
// order of keys is checked byte for byte by bench/ab_outputs.sh and the stored pages).
TEST(RunSummary, WritingWhatWasReadGivesTheStoredFileBack) {
  for (const char* name : {"embedded", "key2"}) {
    SCOPED_TRACE(name);
    const std::string path = stored(name) + "/fleet_summary.json";
    const nlohmann::json file = util::read_json_file(path).value();
    const nlohmann::json written = nlohmann::json(to_json(from_json(file)));
    EXPECT_EQ(written.dump(1), file.dump(1));
  }
}

// A run whose accounting and l2 windows are absent and whose fields have the wrong types still
// reads: defaults, empty optionals, and the L2 failures' problem kept for the page.
// Sections of the wrong shape read as absent, as far as the rest goes.
TEST(RunSummary, ADamagedSummaryReadsAsFarAsItGoes) {
  const nlohmann::json j = {{"records", "many"},
                            {"speed", "fast"},
                            {"nodes", {{{"engine", {{"counters", 5}}}}, "node"}},
                            {"cache", {{"lookup", 3}}},
                            {"contention", {{"per_op", 3}, {"fairness", nullptr}}},
                            {"l2_failures", {{{"adapter", "zero"}}}},
                            {"latency_histograms_ns", {{"op", {{"sub_bits", "x"}}}}},
                            {"latency_cdf_ms", {{"op", {{1.0, 0.5}, {"x", 1.0}, 3}}}},
                            {"future_key", {1, 2}}};
  RunSummary s;
  ASSERT_NO_THROW(s = from_json(j));
  EXPECT_EQ(s.records.total, 0u);
  EXPECT_FALSE(s.speed.has_value());
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].name, "");
  ASSERT_TRUE(s.cache.has_value());
  EXPECT_EQ(s.cache->lookup.l1_hit_rate, 0.0);
  ASSERT_TRUE(s.contention.has_value());
  EXPECT_TRUE(s.contention->per_op.empty());
  EXPECT_FALSE(s.contention->fairness.has_value());
  EXPECT_TRUE(s.l2_failures.empty());
  EXPECT_FALSE(s.l2_failures_error.empty());
  ASSERT_EQ(s.latency_histograms_ns.count("op"), 1u);
  EXPECT_FALSE(s.latency_histograms_ns.at("op").histogram.has_value());
  EXPECT_FALSE(s.latency_histograms_ns.at("op").error.empty());
  EXPECT_EQ(s.latency_cdf_ms.at("op"), (Cdf{{1.0, 0.5}}));
  EXPECT_EQ(s.extra["future_key"], nlohmann::json({1, 2}));
  EXPECT_NO_THROW(from_json(nlohmann::json("not an object")));
  EXPECT_NO_THROW(from_json(nlohmann::json()));
}

// A field present with the wrong type or an impossible value is an error naming the file and
// the field: read as 0, a "failed": "5" (or 5.5, or -5) passed `compare --fail-on 'failed > 0'`.
TEST(RunSummary, AFieldOfTheWrongTypeIsAnErrorNamingFileAndField) {
  const test::ScratchDir scratch;
  const fs::path file = scratch.path() / "fleet_summary.json";
  const struct {
    const char* json;
    const char* field;
  } cases[] = {
      {R"({"records": {"failed": "5"}})", "failed: expected an integer"},
      {R"({"records": {"failed": -5}})", "failed: expected an integer"},
      {R"({"records": {"failed": 5.5}})", "failed: expected an integer"},
      {R"({"cache": {"lookup": {"l1_hit_rate": "x"}}})", "l1_hit_rate: expected a number"},
      {R"({"nodes": [{"name": 7}]})", "name: expected a string"},
  };
  for (const auto& c : cases) {
    std::ofstream(file, std::ios::trunc) << c.json;
    const Result<RunSummary> read = read_run_summary(scratch.path().string());
    ASSERT_FALSE(read) << c.json;
    EXPECT_NE(read.status().message().find(file.string()), std::string::npos)
        << read.status().message();
    EXPECT_NE(read.status().message().find(c.field), std::string::npos) << read.status().message();
  }
  std::ofstream(file, std::ios::trunc) << R"({"records": {"failed": 5.0}})";
  const Result<RunSummary> whole = read_run_summary(scratch.path().string());
  ASSERT_TRUE(whole) << whole.status().message();
  EXPECT_EQ(whole->records.failed, 5u);
}

TEST(RunSummary, AFileThatIsNotJsonIsAnErrorNamingIt) {
  const test::ScratchDir scratch;
  const fs::path& dir = scratch.path();
  std::ofstream(dir / "fleet_summary.json") << "{ this is not json";
  Result<RunSummary> read = read_run_summary(dir.string());
  EXPECT_FALSE(read);
  EXPECT_NE(read.status().message().find((dir / "fleet_summary.json").string()), std::string::npos)
      << read.status().message();
  fs::remove(dir / "fleet_summary.json");
  Result<RunSummary> missing = read_run_summary(dir.string());
  EXPECT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("fleet_summary.json"), std::string::npos);
}

}  // namespace
}  // namespace fleet::summary
