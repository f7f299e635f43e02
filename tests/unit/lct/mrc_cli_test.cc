// `lct mrc` end to end: the table on stdout, the CSV and JSON files, --sizes, and clear errors
// (naming the flag or the file, exit 2) for unusable arguments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "lct_run.h"

namespace fleet::trace::testing {
namespace {

std::string generated_trace() {
  std::string f = tmp("gen.lct");
  LctRun g = lct("gen -q -o " + f + " --seed 5 --duration 20 --rate 20 --cache-chunks 256");
  EXPECT_EQ(g.code, 0) << g.err;
  return f;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

TEST(LctMrc, PrintsTableAndWritesCsvAndJson) {
  std::string f = generated_trace(), csv = tmp("c.csv"), json = tmp("c.json");
  LctRun r = lct("mrc " + f + " --points 12 --csv " + csv + " --json " + json);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("lct mrc " + f + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("size_bytes  miss_ratio  byte_miss_ratio  hit_ratio  lookup_hit_ratio"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("knees (largest miss-ratio drop over one doubling of L1):\n  1. "),
            std::string::npos)
      << r.out;

  auto rows = lines(read_bytes(csv));
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows[0], "size_bytes,miss_ratio,byte_miss_ratio,accesses,misses");

  auto j = nlohmann::json::parse(read_bytes(json));
  for (const char* k :
       {"accesses", "distinct_keys", "working_set_bytes", "sampled_rate", "curve", "knees"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["sampled_rate"], 1.0);
  ASSERT_EQ(j["curve"].size(), 12u);
  EXPECT_LE(j["knees"].size(), 3u);
  EXPECT_GE(j["knees"].size(), 1u);
  // Misses never grow with the size, and the largest size leaves only the cold misses.
  const auto& c = j["curve"];
  for (size_t i = 1; i < c.size(); ++i)
    EXPECT_LE(c[i]["misses"].get<uint64_t>(), c[i - 1]["misses"].get<uint64_t>());
  EXPECT_EQ(c.back()["size_bytes"], j["working_set_bytes"]);
  EXPECT_EQ(c.back()["misses"], j["cold_misses"]);
  EXPECT_EQ(c[0]["accesses"], j["accesses"]);
  // The CSV holds the same numbers.
  EXPECT_EQ(rows[12], std::to_string(c.back()["size_bytes"].get<uint64_t>()) + "," +
                          rows[12].substr(rows[12].find(',') + 1));
  EXPECT_NE(rows[12].find("," + std::to_string(c.back()["misses"].get<uint64_t>())),
            std::string::npos);
}

TEST(LctMrc, SizesFlagAndSampling) {
  std::string f = generated_trace(), json = tmp("s.json");
  LctRun r = lct("mrc " + f + " --sizes 64MB,1GB,512MB,1GiB --json " + json);
  ASSERT_EQ(r.code, 0) << r.err;
  auto c = nlohmann::json::parse(read_bytes(json))["curve"];
  ASSERT_EQ(c.size(), 3u);  // sorted, duplicates dropped
  EXPECT_EQ(c[0]["size_bytes"], 64ull << 20);
  EXPECT_EQ(c[1]["size_bytes"], 512ull << 20);
  EXPECT_EQ(c[2]["size_bytes"], 1ull << 30);

  r = lct("mrc " + f + " --sample 0.5 --json " + json);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(read_bytes(json));
  EXPECT_NEAR(j["sampled_rate"].get<double>(), 0.5, 1e-6);
  EXPECT_TRUE(j["estimated"].get<bool>());
  EXPECT_LT(j["sampled_accesses"].get<uint64_t>(), j["accesses"].get<uint64_t>());
  EXPECT_NE(r.out.find("SHARDS rate 0.5"), std::string::npos) << r.out;
}

TEST(LctMrc, CorruptPrefixMidFileExits1AfterTheCurveOfWhatWasRead) {
  std::string f = tmp("corrupt.lct");
  write_bytes(f, header_frame() + record_frame(test_op(OpKind::ReserveWrite, 1.0, {test_key(1)})) +
                     record_frame(test_op(OpKind::ReserveWrite, 2.0, {test_key(1)})) +
                     prefix_bytes(0xffffffffu) + "xxxx");
  LctRun r = lct("mrc " + f + " --sizes 512");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("above the frame limit"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("accesses:         2 (writes 2"), std::string::npos) << r.out;
  // The second write of the 512-byte key hits at 512 bytes: miss ratio 0.5.
  EXPECT_NE(r.out.find("512 B              512      0.5000"), std::string::npos) << r.out;
}

TEST(LctMrc, BadArgumentsNameTheFlagOrFileAndExit2) {
  std::string f = generated_trace();
  struct Case {
    std::string args, message;
  } cases[] = {
      {"mrc " + f + " --sample 0", "--sample must be in (0, 1], got 0.0"},
      {"mrc " + f + " --sample 2", "--sample must be in (0, 1], got 2.0"},
      {"mrc " + f + " --sample -0.5", "--sample must be in (0, 1]"},
      {"mrc " + f + " --sizes 1GB,lots", "--sizes: 'lots' is not a size"},
      {"mrc " + f + " --points 0", "--points must be >= 1"},
      {"mrc " + f + " --sizes 1GB --points 4", "--sizes excludes --points"},
      {"mrc " + tmp("missing.lct"), tmp("missing.lct")},
      {"mrc " + f + " --csv /nonexistent-dir/x.csv", "--csv: cannot write /nonexistent-dir/x.csv"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    LctRun r = lct(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace fleet::trace::testing
