// The fleet merge path end to end in memory: NodeResults encoded for DONE, decoded by the
// coordinator and folded with add_node give the same per-op numbers as one collector over
// every sample (the collector-level property itself is tested in unit_stats).
#include <gtest/gtest.h>

#include <random>

#include "fleet/report/run_report.h"
#include "fleet/wire/node_result.h"

namespace fleet {
namespace {

TEST(NodeMerge, DecodedDoneMessagesMergeToTheUnionOfSamples) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> lat(-2.0, 1.0);
  const char* ops[] = {"reserve_write", "finish_write", "submit_prefetch_task"};
  stats::StatsCollector all;
  report::RunReport rep;
  for (int node = 0; node < 3; ++node) {
    wire::NodeResult r;
    r.name = "n" + std::to_string(node);
    for (int i = 0; i < 5000 + node * 1234; ++i) {
      const char* q = ops[(i + node) % 3];
      bool failed = i % 97 == 0;
      double ms = lat(rng);
      r.stats.record(q, ms, failed);
      all.record(q, ms, failed);
      ++r.total;
      failed ? ++r.failed : ++r.replayed;
    }
    report::add_node(rep, wire::decode_node_result(wire::encode_node_result(r)));
  }
  EXPECT_EQ(rep.stats.summary(), all.summary());
  uint64_t total = 0;
  for (const auto& [q, s] : all.summary()) total += s.count + s.errors;
  EXPECT_EQ(rep.total, total);
  EXPECT_EQ(rep.nodes.size(), 3u);
}

}  // namespace
}  // namespace fleet
