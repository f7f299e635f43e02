#include "fleet/stats/record_lines.h"

#include <gtest/gtest.h>

#include <string>

namespace fleet::stats {
namespace {

// Expected strings are what LMCache's f-string / json.dumps produce for the same inputs.
TEST(VerboseLine, Format) {
  RecordLineFormatter f;
  EXPECT_EQ(f.verbose_line(3, 10, false, 0.123, "lmcache.x.finish_write"),
            "  [3/10]  OK       0.123ms  lmcache.x.finish_write\n");
  EXPECT_EQ(f.verbose_line(10, 10, true, 0.0, "bogus"), "  [10/10]  FAIL     0.000ms  bogus\n");
  EXPECT_EQ(f.verbose_line(7, 1000, false, 123456789.12345, "a"),
            "  [7/1000]  OK    123456789.123ms  a\n");
  EXPECT_EQ(f.verbose_line(1, 1, false, 0.0005, "q"), "  [1/1]  OK       0.001ms  q\n");
}

TEST(JsonlLine, Format) {
  RecordLineFormatter f;
  EXPECT_EQ(f.jsonl_line("x", 0.0, true),
            "{\"qualname\": \"x\", \"latency_ms\": 0.0, \"failed\": true}\n");
  EXPECT_EQ(f.jsonl_line("lmcache.y.reserve_write", 0.0123456789, false),
            "{\"qualname\": \"lmcache.y.reserve_write\", \"latency_ms\": 0.0123456789, "
            "\"failed\": false}\n");
  EXPECT_EQ(f.jsonl_line("caf\xc3\xa9\"\\", 1e-05, false),
            "{\"qualname\": \"caf\\u00e9\\\"\\\\\", \"latency_ms\": 1e-05, \"failed\": false}\n");
  EXPECT_EQ(f.jsonl_line("t", 1.2345678901234567e+19, true),
            "{\"qualname\": \"t\", \"latency_ms\": 1.2345678901234567e+19, \"failed\": true}\n");
}

TEST(RecordLines, BufferIsReused) {
  RecordLineFormatter f;
  const std::string_view a = f.jsonl_line("some.long.qualname.to.warm.the.buffer", 1.5, false);
  const char* data = a.data();
  const std::string_view b = f.jsonl_line("short", 2.5, true);
  EXPECT_EQ(b.data(), data);
}

}  // namespace
}  // namespace fleet::stats
