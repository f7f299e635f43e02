// The fleet merge path end to end in memory: NodeResults encoded for DONE, decoded by the
// coordinator and folded with add_node(s) give the same per-op numbers as one collector over
// every sample (the collector-level property itself is tested in unit_stats).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fleet/summary/run_report.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace fleet {
namespace {

// Folded node by node (add_node) or all at once (add_nodes: one k-way merge per qualname),
// for 1, 2, 5 and 11 nodes (more than one merge round of 8), with parts above and below the
// sample buffer's chunk size and a qualname only some nodes saw.
class NodeMerge : public ::testing::TestWithParam<int> {};

TEST_P(NodeMerge, DecodedDoneMessagesMergeToTheUnionOfSamples) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> lat(-2.0, 1.0);
  const char* ops[] = {"reserve_write", "finish_write", "submit_prefetch_task"};
  stats::StatsCollector all;
  std::vector<wire::NodeResult> decoded;
  for (int node = 0; node < GetParam(); ++node) {
    wire::NodeResult r;
    r.name = "n" + std::to_string(node);
    const int n = node % 2 ? 5000 + node * 1234 : 30000 + node * 777;
    for (int i = 0; i < n; ++i) {
      const char* q = node == 1 && i % 10 == 0 ? "only_node_1" : ops[(i + node) % 3];
      bool failed = i % 97 == 0;
      double ms = i % 1000 == 0 ? 0.5 : lat(rng);  // ties across nodes too
      r.stats.record(q, ms, failed);
      all.record(q, ms, failed);
      ++r.total;
      failed ? ++r.failed : ++r.replayed;
    }
    decoded.push_back(wire::decode_node_result(wire::encode_node_result(r)));
  }
  report::RunReport one_by_one, at_once;
  for (const auto& r : decoded) report::add_node(one_by_one, r);
  report::add_nodes(at_once, decoded);
  for (const report::RunReport* rep : {&one_by_one, &at_once}) {
    EXPECT_EQ(rep->stats.summary(), all.summary());  // the mean too, bit for bit
    for (const auto& [q, s] : all.ops()) {
      EXPECT_TRUE(rep->stats.ops().at(q).histogram() == s.histogram()) << q;
      const auto merged = rep->stats.ops().at(q).samples();
      std::vector<double> want(s.samples().begin(), s.samples().end());
      std::sort(want.begin(), want.end());
      EXPECT_TRUE(std::equal(merged.begin(), merged.end(), want.begin(), want.end())) << q;
    }
    uint64_t total = 0;
    for (const auto& [q, s] : all.summary()) total += s.count + s.errors;
    EXPECT_EQ(rep->total, total);
    EXPECT_EQ(rep->nodes.size(), static_cast<size_t>(GetParam()));
  }
}

INSTANTIATE_TEST_SUITE_P(Nodes, NodeMerge, ::testing::Values(1, 2, 5, 11));

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
TEST(NodeMergeInput, UnsortedSamplesFromANodeStillGiveExactPercentiles) {
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

TEST(NodeMergeInput, ATruncatedOrPaddedResultIsRefused) {
  const std::string bytes = wire::encode_node_result(node_with_samples(1000));
  EXPECT_THROW(wire::decode_node_result(bytes.substr(0, bytes.size() - 3)), wire::ProtocolError);
  EXPECT_THROW(wire::decode_node_result(bytes + "x"), wire::ProtocolError);
  EXPECT_THROW(wire::decode_node_result(bytes.substr(0, 3)), wire::ProtocolError);
  EXPECT_THROW(wire::decode_node_result(bytes.substr(0, 40)), wire::ProtocolError);
}

}  // namespace
}  // namespace fleet
