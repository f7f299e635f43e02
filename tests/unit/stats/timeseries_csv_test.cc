// fleet_timeseries.csv: the header, CRLF rows, CSV quoting of node names, derived rates, and a
// read-back that survives a row cut mid-write (a killed run).
#include "fleet/stats/timeseries_csv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scratch_dir.h"

namespace fleet::stats {
namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunWindow sample(int64_t index) {
  RunWindow w;
  w.index = index;
  w.records = 1000 + index;
  w.failed = 2;
  w.paced = 990;
  w.lateness_p50_ns = 3'500;
  w.lateness_p99_ns = 120'250;
  w.lateness_max_ns = 2'000'000;
  w.lookup_keys = 400;
  w.l1_hit_keys = 300;
  w.l2_hit_keys = 60;
  w.missed_keys = 40;
  w.l2_ops = 77;
  w.l2_bytes = 1 << 20;
  w.l2_p99_ns = 450'000;
  return w;
}

TEST(TimeseriesCsv, WritesCrlfRowsAndReadsThemBack) {
  const fleet::test::ScratchDir dir;
  const std::string path = dir / "fleet_timeseries.csv";
  {
    auto writer = TimeseriesCsvWriter::create(path);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    TimeseriesCsvWriter& w = *writer.value();
    w.append("w0", sample(0));
    w.append("odd,\"name\"", sample(1));
    EXPECT_EQ(w.rows(), 2u);
  }
  const std::string text = slurp(path);
  EXPECT_EQ(text.rfind(std::string(TimeseriesCsvWriter::kHeader) + "\r\n", 0), 0u);
  EXPECT_NE(text.find("\r\n1,\"odd,\"\"name\"\"\",1001,1001.0,2,"), std::string::npos) << text;
  // 300/400 from L1, 360/400 from L1 or L2.
  EXPECT_NE(text.find(",0.750000,0.900000,0.100000,"), std::string::npos) << text;
  const auto file = read_timeseries_csv(path).value();
  EXPECT_EQ(file.bad_rows, 0u);
  const auto& rows = file.rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].node, "odd,\"name\"");
  const RunWindow& r = rows[1].w;
  EXPECT_EQ(r.index, 1);
  EXPECT_EQ(r.records, 1001u);
  EXPECT_EQ(r.lateness_p99_ns, 120'250);
  EXPECT_EQ(r.l1_hit_keys, 300u);
  EXPECT_EQ(r.l2_p99_ns, 450'000);
  std::filesystem::remove(path);
}

TEST(TimeseriesCsv, ARowCutMidWriteIsSkippedAndCounted) {
  const fleet::test::ScratchDir dir;
  const std::string path = dir / "fleet_timeseries.csv";
  {
    auto writer = TimeseriesCsvWriter::create(path);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    TimeseriesCsvWriter& w = *writer.value();
    w.append("w0", sample(0));
    w.append("w0", sample(1));
  }
  std::string text = slurp(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() - 20);
  const auto file = read_timeseries_csv(path).value();
  EXPECT_EQ(file.rows.size(), 1u);
  EXPECT_EQ(file.bad_rows, 1u);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "something,else\r\n";
  EXPECT_EQ(read_timeseries_csv(path).status().message(),
            path + ": not a fleet_timeseries.csv (unexpected header)");
  std::filesystem::remove(path);
  EXPECT_EQ(read_timeseries_csv(path).status().message(),
            path + ": cannot read: No such file or directory");
  std::filesystem::remove(path);
}

TEST(TimeseriesCsv, AFileThatCannotBeCreatedIsAnErrorNamingIt) {
  const std::string path = "/nonexistent-dir/fleet_timeseries.csv";
  const auto w = TimeseriesCsvWriter::create(path);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), path + ": cannot create: No such file or directory");
}

}  // namespace
}  // namespace fleet::stats
