#include "fleet/stats/fsum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace fleet::stats {
namespace {

// Expected values are what CPython 3.11's math.fsum / statistics.fmean return.
TEST(Fsum, TenTenthsIsExactlyOne) {
  std::vector<double> v(10, 0.1);
  EXPECT_EQ(fsum(v), 1.0);
  EXPECT_EQ(fmean(v), 0.1);
}

TEST(Fsum, CancellationKeepsSmallTerm) {
  std::vector<double> v{1e16, 1.0, -1e16};
  EXPECT_EQ(fsum(v), 1.0);
  EXPECT_EQ(fmean(v), 0.3333333333333333);
}

TEST(Fsum, HalfEvenCorrectionAcrossPartials) {
  std::vector<double> v{1e-16, 1.0, 1e16};
  EXPECT_EQ(fsum(v), 1.0000000000000002e16);
  std::vector<double> w{1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50};
  EXPECT_EQ(fsum(w), 1e-100);
}

TEST(Fsum, MatchesPythonWhereNaiveSumDoesNot) {
  std::vector<double> a, b;
  for (int i = 0; i < 1000; ++i) {
    a.push_back((i * 7919 % 1000) / 997.0);
    b.push_back((i * 7919 % 1000) / 997.0 * std::pow(10.0, i % 7 - 3));
  }
  EXPECT_EQ(fmean(a), 0.5010030090270813);  // naive sum / n: 0.5010030090270812
  EXPECT_EQ(fsum(b), 79922.73340922769);
  EXPECT_EQ(fmean(b), 79.92273340922769);  // naive: 79.92273340922767
  EXPECT_EQ(fmean(std::vector<double>{0.1, 0.2, 0.3}), 0.19999999999999998);
}

TEST(Fsum, OrderIndependent) {
  std::vector<double> v{1e16, 3.5, -1e16, 1e-7, 2.25, -3.5};
  const double expected = fsum(v);
  std::vector<double> r(v.rbegin(), v.rend());
  EXPECT_EQ(fsum(r), expected);
}

TEST(Fsum, SpecialValues) {
  EXPECT_EQ(fsum(std::vector<double>{}), 0.0);
  EXPECT_EQ(fmean(std::vector<double>{}), 0.0);
  EXPECT_EQ(fsum(std::vector<double>{1.0, INFINITY}), INFINITY);
  EXPECT_TRUE(std::isnan(fsum(std::vector<double>{INFINITY, -INFINITY})));
  EXPECT_EQ(fsum(std::vector<double>{1.7976931348623157e308, 1.7976931348623157e308}), INFINITY);
}

}  // namespace
}  // namespace fleet::stats

namespace fleet::stats {
namespace {

// The coordinator's exact mean of a fleet is fsum over the nodes' concatenated partials; it must
// equal fsum over every sample bit for bit, for any split and any magnitudes (cancellation,
// 1e16 + 1 + 1e-16 patterns, subnormals, negative values).
TEST(FsumPartials, ConcatenatedPartialsOfAnySplitGiveTheSameSum) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int> exp(-330, 300);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    std::vector<double> all;
    for (int i = 0; i < n; ++i) {
      const int mode = static_cast<int>(rng() % 4);
      double v = mode == 0   ? std::ldexp(mant(rng), exp(rng))  // any magnitude
                 : mode == 1 ? std::ldexp(mant(rng), static_cast<int>(rng() % 120) - 60)
                 : mode == 2 ? std::ldexp(1.0, static_cast<int>(rng() % 110) - 55)  // ties
                             : std::fabs(mant(rng)) * 5.0;                          // latencies
      if (!std::isfinite(v)) v = 1.0;
      all.push_back(v);
    }
    const int parts = 1 + static_cast<int>(rng() % 5);
    std::vector<std::vector<double>> split(static_cast<size_t>(parts));
    for (double v : all) split[rng() % static_cast<size_t>(parts)].push_back(v);
    std::vector<double> concat;
    bool exact = true;
    for (const auto& p : split) {
      auto partials = fsum_partials(p);
      if (!partials) {
        exact = false;
        break;
      }
      concat.insert(concat.end(), partials->begin(), partials->end());
    }
    if (!exact) continue;  // an intermediate overflow: the coordinator falls back to all samples
    const double want = fsum(all), got = fsum(concat);
    ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0)
        << "trial " << trial << ": " << want << " vs " << got;
    ++checked;
  }
  EXPECT_GT(checked, 19000);
  EXPECT_TRUE(fsum_partials(std::vector<double>{}).has_value());
  EXPECT_EQ(fsum(*fsum_partials(std::vector<double>{-0.0})), fsum(std::vector<double>{-0.0}));
  EXPECT_FALSE(fsum_partials(std::vector<double>{1.0, INFINITY}).has_value());
  EXPECT_FALSE(fsum_partials(std::vector<double>{1e308, 1e308}).has_value());
}

// Most partials come from a fixed-point accumulator that carries between its limbs every 65,536
// values: long runs of samples (a node's hundreds of thousands), values that cancel across those
// carries, negative totals, subnormals and the edge of its range (2^960, beyond which Shewchuk's
// partials take over) must all give fsum's bits.
TEST(FsumPartials, LongRunsAcrossCarriesAndTheRangeEdge) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> lat(-8.0, 2.0);
  auto check = [](const std::vector<double>& v, const char* what) {
    const auto partials = fsum_partials(v);
    ASSERT_TRUE(partials.has_value()) << what;
    const double want = fsum(v), got = fsum(*partials);
    ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << what << ": " << want << " vs " << got;
  };
  std::vector<double> latencies(300000);
  for (auto& x : latencies) x = lat(rng);
  check(latencies, "latencies");
  std::vector<double> cancelling;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(lat(rng), static_cast<int>(rng() % 200) - 100);
    cancelling.push_back(x);
    cancelling.push_back(i % 3 ? -x : -x * (1 + 0x1p-52));
  }
  cancelling.push_back(0x1p-1074);
  check(cancelling, "cancelling, negative total");
  check({0x1p-1074, 0x1p-1060, -0x1p-1070, 0x1.8p-1022}, "subnormals");
  check({0x1.fffffffffffffp959, 0x1.fffffffffffffp959, -1.0, 0x1p-1074}, "just below 2^960");
  check({0x1p960, -0x1p960, 1.0}, "from 2^960: Shewchuk's partials");
  check({1e288, 1e287, -1e288}, "large, inside the range");
  check({1e300, 1e299, -1e300}, "1e300: Shewchuk's partials");
}

}  // namespace
}  // namespace fleet::stats
