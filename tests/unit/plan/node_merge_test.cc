// The fleet merge path end to end in memory: NodeResults encoded for DONE, decoded by the
// coordinator and folded with add_node give the same per-op numbers as one collector over
// every sample (the collector-level property itself is tested in unit_stats).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fleet/report/run_report.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

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
  for (const auto& [q, s] : all.ops()) {
    EXPECT_TRUE(rep.stats.ops().at(q).histogram() == s.histogram()) << q;
  }
  uint64_t total = 0;
  for (const auto& [q, s] : all.summary()) total += s.count + s.errors;
  EXPECT_EQ(rep.total, total);
  EXPECT_EQ(rep.nodes.size(), 3u);
}

wire::NodeResult node_with_samples(int n) {
  wire::NodeResult r;
  r.name = "n";
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lat(0.01, 5.0);
  for (int i = 0; i < n; ++i) r.stats.record(i % 2 ? "a" : "b", lat(rng), i % 50 == 0);
  return r;
}

// The samples section is raw doubles that a node sorts; one that arrives out of order (an
// older or foreign encoder) is sorted by the coordinator instead, never trusted blindly.
TEST(NodeMerge, UnsortedSamplesFromANodeStillGiveExactPercentiles) {
  wire::NodeResult r = node_with_samples(4000);
  const auto want = r.stats.summary();
  std::string bytes = wire::encode_node_result(r);
  // Swap the first and last sample of the section's last qualname ("b": 8-byte doubles at the
  // end of the message).
  const size_t n_b = r.stats.ops().at("b").count();
  char* last = bytes.data() + bytes.size() - 8;
  char* first = bytes.data() + bytes.size() - 8 * n_b;
  std::swap_ranges(first, first + 8, last);
  wire::NodeResult decoded = wire::decode_node_result(bytes);
  EXPECT_EQ(decoded.stats.summary(), want);
}

TEST(NodeMerge, ATruncatedOrPaddedResultIsRefused) {
  const std::string bytes = wire::encode_node_result(node_with_samples(1000));
  EXPECT_THROW(wire::decode_node_result(bytes.substr(0, bytes.size() - 3)), wire::ProtocolError);
  EXPECT_THROW(wire::decode_node_result(bytes + "x"), wire::ProtocolError);
  EXPECT_THROW(wire::decode_node_result(bytes.substr(0, 3)), wire::ProtocolError);
  EXPECT_THROW(wire::decode_node_result(bytes.substr(0, 40)), wire::ProtocolError);
}

}  // namespace
}  // namespace fleet
