#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "fleet/stats/lateness_stats.h"
#include "fleet/stats/log_linear_histogram.h"
#include "fleet/stats/percentile_rank.h"

namespace fleet::stats {
namespace {

using H = LogLinearHistogram;

TEST(LogLinearHistogram, BucketsAreContiguousAndMonotone) {
  // Every bucket starts where the previous one ended, and values map back into their bucket.
  for (std::size_t i = 1; i < H::bucket_index(UINT64_MAX >> 1); i += 97) {
    EXPECT_EQ(H::bucket_low(i), H::bucket_low(i - 1) + H::bucket_width(i - 1)) << i;
    EXPECT_EQ(H::bucket_index(H::bucket_low(i)), i);
    EXPECT_EQ(H::bucket_index(H::bucket_low(i) + H::bucket_width(i) - 1), i);
  }
  EXPECT_EQ(H::bucket_index(0), 0u);
  EXPECT_EQ(H::bucket_index(2047), 2047u);
  EXPECT_EQ(H::bucket_index(2048), 2048u);
  EXPECT_EQ(H::bucket_index(2049), 2048u);
}

TEST(LogLinearHistogram, RelativeErrorWithinTenthOfPercentOverWideRange) {
  // Single-value histograms: the percentile is the bucket's representative value.
  std::mt19937_64 rng(42);
  double worst = 0;
  for (int k = 0; k < 30000; ++k) {
    const int bits = static_cast<int>(rng() % 62) + 1;
    const int64_t v = static_cast<int64_t>(rng() >> (64 - bits));
    if (v == 0) continue;
    H h;
    // Neighbours below and above keep the [min, max] clamp from hiding the bucket error.
    h.record(v / 2);
    h.record(v);
    h.record(2 * v + 1);
    const double got = static_cast<double>(h.percentile(50));
    worst = std::max(worst, std::fabs(got - static_cast<double>(v)) / static_cast<double>(v));
  }
  EXPECT_LE(worst, 0.001);
  EXPECT_LE(worst, 1.0 / 2048 + 1e-12);
}

TEST(LogLinearHistogram, PercentilesCloseToExactNearestRank) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(10.0, 2.0);  // ~ns latencies, wide spread
  std::vector<int64_t> v;
  H h;
  for (int i = 0; i < 100000; ++i) {
    const auto x = static_cast<int64_t>(dist(rng));
    v.push_back(x);
    h.record(x);
  }
  std::sort(v.begin(), v.end());
  for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    const double exact = static_cast<double>(v[nearest_rank(p, v.size()) - 1]);
    const double got = static_cast<double>(h.percentile(p));
    EXPECT_LE(std::fabs(got - exact), exact * 0.001 + 0.5) << "p" << p;
  }
  EXPECT_EQ(h.min(), v.front());
  EXPECT_EQ(h.max(), v.back());
  EXPECT_EQ(h.count(), v.size());
}

TEST(LogLinearHistogram, SmallValuesExact) {
  H h;
  for (int64_t i = 1; i <= 100; ++i) h.record(i);
  EXPECT_EQ(h.percentile(50), 50);
  EXPECT_EQ(h.percentile(90), 90);
  EXPECT_EQ(h.percentile(99), 99);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
  h.record(-5);  // clamps to 0
  EXPECT_EQ(h.min(), 0);
}

TEST(LogLinearHistogram, MergeEqualsRecordingAllIntoOne) {
  std::mt19937_64 rng(3);
  H a, b, all;
  for (int i = 0; i < 50000; ++i) {
    const auto x = static_cast<int64_t>(rng() >> (i % 40 + 20));
    (i % 3 ? a : b).record(x);
    all.record(x);
  }
  H merged = a;
  merged.merge(b);
  EXPECT_TRUE(merged == all);
  for (double p : {50.0, 90.0, 99.0}) EXPECT_EQ(merged.percentile(p), all.percentile(p));
  H empty;
  empty.merge(all);
  EXPECT_TRUE(empty == all);
}

TEST(LogLinearHistogram, PagesUsedOutOfOrderReadBackInIndexOrder) {
  // Buckets live in pages allocated on first use: a high value first, then low ones, must still
  // come out in index order, with the same percentiles as recording them low to high.
  H high_first, low_first;
  const std::vector<int64_t> values = {5'000'000'000, 70, 3'000, 70, 1'000'000, 2'047, 2'048};
  for (int64_t v : values) high_first.record(v);
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t v : sorted) low_first.record(v);
  EXPECT_TRUE(high_first == low_first);
  EXPECT_EQ(high_first.to_json().dump(), low_first.to_json().dump());
  std::vector<std::size_t> order;
  high_first.for_each_bucket([&](std::size_t i, uint64_t) { order.push_back(i); });
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(order.size(), 6u);  // 70 twice shares a bucket
  for (double p : {1.0, 30.0, 50.0, 70.0, 90.0, 100.0})
    EXPECT_EQ(high_first.percentile(p), low_first.percentile(p)) << p;
  EXPECT_EQ(high_first.percentile(50), 2'048);  // rank 4 of 7

  // A page that holds only zeros (a bucket listed with count 0) equals no page at all, and is
  // not written back.
  const auto with_zero = nlohmann::json::parse(
      R"({"sub_bits":10,"count":2,"min":3,"max":3,"sum":6,"buckets":[40000,0,3,2]})");
  H two_threes;
  two_threes.record_n(3, 2);
  EXPECT_TRUE(H::from_json(with_zero) == two_threes);
  EXPECT_TRUE(two_threes == H::from_json(with_zero));
  EXPECT_EQ(H::from_json(with_zero).to_json().dump(), two_threes.to_json().dump());
}

// reset() zeroes the counts and keeps the pages: the histogram then reads back, and records
// again, exactly as a new one.
TEST(LogLinearHistogram, ResetKeepsThePagesAndReadsAsNew) {
  H h;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) h.record(static_cast<int64_t>(rng() % (uint64_t{1} << 24)));
  const std::size_t pages = h.allocated_pages();
  EXPECT_GT(pages, 20u);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.allocated_pages(), pages);
  EXPECT_EQ(h, H());
  EXPECT_EQ(h.to_json(), H().to_json());
  EXPECT_EQ(h.percentile(50), 0);
  H fresh;
  for (int64_t v : {5, 70'000, 3'000'000}) {
    h.record(v);
    fresh.record(v);
  }
  EXPECT_EQ(h, fresh);
  EXPECT_EQ(h.min(), 5);
  EXPECT_EQ(h.max(), 3'000'000);
  EXPECT_EQ(h.to_json(), fresh.to_json());
  EXPECT_EQ(h.percentile(50), fresh.percentile(50));
  EXPECT_EQ(h.allocated_pages(), pages);
}

TEST(LogLinearHistogram, JsonRoundTripIsSparse) {
  H h;
  h.record(5);
  h.record(5);
  h.record(123'456'789);
  const auto j = h.to_json();
  EXPECT_EQ(j["buckets"].size(), 4u);
  EXPECT_EQ(j.dump(), nlohmann::json::parse(j.dump()).dump());
  const H back = H::from_json(nlohmann::json::parse(j.dump()));
  EXPECT_TRUE(back == h);
  EXPECT_EQ(back.percentile(99), h.percentile(99));
  EXPECT_TRUE(H::from_json(H().to_json()) == H());
}

TEST(LogLinearHistogram, FromJsonRejectsBadInput) {
  H h;
  h.record(10);
  auto j = h.to_json();
  auto bad = j;
  bad["sub_bits"] = 7;
  EXPECT_THROW(H::from_json(bad), std::invalid_argument);
  bad = j;
  bad["count"] = 2;
  EXPECT_THROW(H::from_json(bad), std::invalid_argument);
  bad = j;
  bad["buckets"] = {1, 2, 3};
  EXPECT_THROW(H::from_json(bad), std::invalid_argument);
  bad = j;
  bad["buckets"] = {UINT64_C(1) << 40, 1};
  EXPECT_THROW(H::from_json(bad), std::invalid_argument);
  // Bucket counts that wrap around to the total (2^64 - 1 + 5 == 4) are not a total of 4.
  bad = j;
  bad["buckets"] = {10, UINT64_MAX, 11, 5};
  bad["count"] = 4;
  EXPECT_THROW(H::from_json(bad), std::invalid_argument);
  EXPECT_THROW(H::from_json(nlohmann::json::array()), std::invalid_argument);
}

// The DONE form: buckets as LEB128 bytes, through msgpack as the wire carries them.
TEST(LogLinearHistogram, RawBucketRoundTripThroughMsgpack) {
  H h;
  for (int64_t v : std::initializer_list<int64_t>{0, 1, 5, 5, 999, 123'456'789, 9'000'000'000'000})
    h.record(v);
  for (int i = 0; i < 5000; ++i) h.record(1000 + i * 37);
  const auto wire = nlohmann::json::to_msgpack(h.to_json_raw_buckets());
  const H back = H::from_json_raw_buckets(nlohmann::json::from_msgpack(wire));
  EXPECT_TRUE(back == h);
  EXPECT_EQ(back.percentile(99), h.percentile(99));
  EXPECT_TRUE(H::from_json_raw_buckets(H().to_json_raw_buckets()) == H());
  EXPECT_LT(wire.size(), nlohmann::json::to_msgpack(h.to_json()).size()) << "no larger than JSON";
}

TEST(LogLinearHistogram, RawBucketsRejectBadInput) {
  H h;
  h.record(10);
  h.record(1'000'000);
  const auto j = h.to_json_raw_buckets();
  auto with_bytes = [&](std::vector<uint8_t> b) {
    auto bad = j;
    bad["buckets_leb128"] = nlohmann::json::binary(std::move(b));
    return bad;
  };
  EXPECT_THROW(H::from_json_raw_buckets(with_bytes({0x80})), std::invalid_argument);  // cut
  EXPECT_THROW(H::from_json_raw_buckets(with_bytes({10})), std::invalid_argument);    // no count
  std::vector<uint8_t> overlong(11, 0xff);
  overlong.push_back(0x01);
  EXPECT_THROW(H::from_json_raw_buckets(with_bytes(overlong)), std::invalid_argument);
  EXPECT_THROW(H::from_json_raw_buckets(with_bytes({10, 1, 0x7f, 5})),
               std::invalid_argument);  // 6 != count
  std::vector<uint8_t> far = {0xff, 0xff, 0xff, 0xff, 0xff,
                              0xff, 0xff, 0xff, 0x7f, 1};  // index 2^63-1
  EXPECT_THROW(H::from_json_raw_buckets(with_bytes(far)), std::invalid_argument);
  auto no_bytes = j;
  no_bytes["buckets_leb128"] = {1, 2};
  EXPECT_THROW(H::from_json_raw_buckets(no_bytes), std::invalid_argument);
  auto bits = j;
  bits["sub_bits"] = 7;
  EXPECT_THROW(H::from_json_raw_buckets(bits), std::invalid_argument);
}

TEST(LatenessStats, CountsEarlyAndLate) {
  LatenessStats s;
  s.record(-2'000);  // early
  s.record(0);
  s.record(1'000'000);   // exactly 1 ms: not "over"
  s.record(1'000'001);   // over
  s.record(25'000'000);  // over
  EXPECT_EQ(s.count(), 5u);
  EXPECT_EQ(s.early_count(), 1u);
  EXPECT_EQ(s.late_over_1ms(), 2u);
  EXPECT_EQ(s.max_ns(), 25'000'000);
  EXPECT_EQ(s.histogram().min(), 0);
  // Clamped and sorted: 0 0 1e6 1e6+1 25e6. p50 -> rank 3; p40 -> rank 2.
  EXPECT_NEAR(static_cast<double>(s.p50_ns()), 1e6, 1e3);
  EXPECT_EQ(s.percentile_ns(40), 0);
  EXPECT_EQ(s.p99_ns(), 25'000'000);
}

TEST(LatenessStats, MaxIsSignedWhenAllEarly) {
  LatenessStats s;
  EXPECT_EQ(s.max_ns(), 0);
  s.record(-50);
  s.record(-10);
  EXPECT_EQ(s.max_ns(), -10);
  EXPECT_EQ(s.early_count(), 2u);
}

TEST(LatenessStats, MergeAndJson) {
  LatenessStats a, b, all;
  for (int64_t x : {-5, 10, 2'000'000}) {
    a.record(x);
    all.record(x);
  }
  for (int64_t x : {7, 3'000'000, -1}) {
    b.record(x);
    all.record(x);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.early_count(), 2u);
  EXPECT_EQ(a.late_over_1ms(), 2u);
  EXPECT_EQ(a.max_ns(), 3'000'000);
  EXPECT_TRUE(a.histogram() == all.histogram());
  const LatenessStats back = LatenessStats::from_json(nlohmann::json::parse(a.to_json().dump()));
  EXPECT_EQ(back.to_json(), a.to_json());
}

}  // namespace
}  // namespace fleet::stats
