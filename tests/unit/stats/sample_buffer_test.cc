#include "fleet/stats/sample_buffer.h"

#include <gtest/gtest.h>

#include <vector>

#include "fleet/stats/op_stats.h"

namespace fleet::stats {
namespace {

std::vector<double> values(const SampleBuffer& b) {
  std::vector<double> out;
  b.for_each_block([&](const double* d, std::size_t n) { out.insert(out.end(), d, d + n); });
  return out;
}

std::vector<double> iota(std::size_t n, double start = 0) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
  return v;
}

TEST(SampleBuffer, KeepsOrderAcrossChunks) {
  SampleBuffer b;
  const auto expected = iota(3 * SampleBuffer::kChunk + 17);
  for (double x : expected) b.push_back(x);
  EXPECT_EQ(b.size(), expected.size());
  EXPECT_EQ(values(b), expected);
  const auto span = b.contiguous();
  EXPECT_EQ(std::vector<double>(span.begin(), span.end()), expected);
  // Pushing after consolidation appends after the contiguous part.
  b.push_back(-1);
  auto more = expected;
  more.push_back(-1);
  EXPECT_EQ(values(b), more);
  EXPECT_EQ(b.size(), more.size());
}

TEST(SampleBuffer, AppendCopyMoveClearReserve) {
  SampleBuffer a, b;
  for (double x : iota(SampleBuffer::kChunk + 5)) a.push_back(x);
  for (double x : iota(10, 1e6)) b.push_back(x);
  b.contiguous();
  b.push_back(7);
  a.append(b);
  auto expected = iota(SampleBuffer::kChunk + 5);
  for (double x : iota(10, 1e6)) expected.push_back(x);
  expected.push_back(7);
  EXPECT_EQ(values(a), expected);

  SampleBuffer copy = a;
  EXPECT_EQ(values(copy), expected);
  SampleBuffer moved = std::move(copy);
  EXPECT_EQ(values(moved), expected);
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): documented moved-from state
  copy = moved;
  EXPECT_EQ(values(copy), expected);

  a.clear();
  EXPECT_TRUE(a.empty());
  a.reserve(5 * SampleBuffer::kChunk);
  for (double x : iota(2 * SampleBuffer::kChunk)) a.push_back(x);
  EXPECT_EQ(values(a), iota(2 * SampleBuffer::kChunk));
}

TEST(OpStats, SelfMergeDoublesSamples) {
  OpStats s;
  s.record_success(1.0);
  s.record_success(3.0);
  s.record_failure();
  s.merge(s);
  const OpSummary sum = s.summary();
  EXPECT_EQ(sum.count, 4u);
  EXPECT_EQ(sum.errors, 2u);
  EXPECT_EQ(sum.p50_ms, 1.0);
  EXPECT_EQ(sum.p90_ms, 3.0);
}

}  // namespace
}  // namespace fleet::stats
