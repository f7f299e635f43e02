// trace_replay_ops.csv and trace_replay_summary.json, byte for byte.
#include <gtest/gtest.h>

#include "fleet/stats/ops_csv.h"
#include "fleet/stats/summary_json.h"
#include "golden_fixture.h"

namespace fleet::stats {
namespace {

using testing::golden_collector;

TEST(OpsCsv, GoldenBytes) {
  const std::string expected =
      "qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms\r\n"
      "lmcache.v1.distributed.storage_manager.StorageManager.finish_write,4,1,"
      "0.470000,0.250000,1.125000,1.125000,0.005000,1.125000\r\n"
      "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__enter__,"
      "2,0,0.037423,0.012346,0.062500,0.062500,0.012346,0.062500\r\n"
      "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__exit__,"
      "1,0,0.010000,0.010000,0.010000,0.010000,0.010000,0.010000\r\n"
      "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write,3,0,"
      "2.272363,2.675000,3.141590,3.141590,1.000500,3.141590\r\n"
      "\"weird,name\"\"x\",0,1,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000\r\n";
  EXPECT_EQ(render_ops_csv(golden_collector()), expected);
}

TEST(OpsCsv, EmptyCollectorIsHeaderOnly) {
  EXPECT_EQ(render_ops_csv(StatsCollector{}),
            "qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms\r\n");
}

TEST(OpsCsv, QuotingRules) {
  auto field = [](std::string_view f) {
    std::string s;
    append_csv_field(s, f);
    return s;
  };
  EXPECT_EQ(field("plain.name"), "plain.name");
  EXPECT_EQ(field("a,b"), "\"a,b\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(field("lf\nhere"), "\"lf\nhere\"");
  EXPECT_EQ(field("tab\tand space"), "tab\tand space");
  EXPECT_EQ(field(""), "");
}

TEST(SummaryJson, GoldenBytes) {
  const std::string expected = R"({
  "duration_s": 12.3456,
  "ops": {
    "lmcache.v1.distributed.storage_manager.StorageManager.finish_write": {
      "count": 4,
      "errors": 1,
      "max_ms": 1.125,
      "mean_ms": 0.4699999,
      "min_ms": 0.0049996,
      "p50_ms": 0.25,
      "p90_ms": 1.125,
      "p99_ms": 1.125
    },
    "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__enter__": {
      "count": 2,
      "errors": 0,
      "max_ms": 0.0625,
      "mean_ms": 0.03742283945,
      "min_ms": 0.0123456789,
      "p50_ms": 0.0123456789,
      "p90_ms": 0.0625,
      "p99_ms": 0.0625
    },
    "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__exit__": {
      "count": 1,
      "errors": 0,
      "max_ms": 0.01,
      "mean_ms": 0.01,
      "min_ms": 0.01,
      "p50_ms": 0.01,
      "p90_ms": 0.01,
      "p99_ms": 0.01
    },
    "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write": {
      "count": 3,
      "errors": 0,
      "max_ms": 3.14159,
      "mean_ms": 2.2723633333333333,
      "min_ms": 1.0005,
      "p50_ms": 2.675,
      "p90_ms": 3.14159,
      "p99_ms": 3.14159
    },
    "weird,name\"x": {
      "count": 0,
      "errors": 1,
      "max_ms": 0.0,
      "mean_ms": 0.0,
      "min_ms": 0.0,
      "p50_ms": 0.0,
      "p90_ms": 0.0,
      "p99_ms": 0.0
    }
  }
}
)";
  EXPECT_EQ(render_summary_json(12.3456, golden_collector()), expected);
}

TEST(SummaryJson, EmptyOps) {
  EXPECT_EQ(render_summary_json(0.0, StatsCollector{}),
            "{\n  \"duration_s\": 0.0,\n  \"ops\": {}\n}\n");
}

}  // namespace
}  // namespace fleet::stats
