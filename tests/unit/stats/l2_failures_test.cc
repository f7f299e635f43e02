// The per-adapter L2 failure record (count, op kind, first and latest time and text, bounded
// texts), its merge over nodes and JSON, and the log lines about it at a bounded rate.
#include "fleet/stats/l2_failures.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fleet/stats/l2_failure_log.h"
#include "fleet/stats/l2_failures_json.h"

namespace fleet::stats {
namespace {

constexpr size_t kStore = 0, kLookup = 1, kLoad = 2;
constexpr int64_t kSecond = 1'000'000'000;

L2FailureRecord resp(int adapter = 0) {
  L2FailureRecord r;
  r.adapter = adapter;
  r.type = "resp";
  return r;
}

TEST(L2FailureRecord, CountsKindsAndKeepsTheFirstAndTheLatestError) {
  L2FailureRecord r = resp();
  r.record(kStore, 3 * kSecond, "SET refused by 127.0.0.1:6379: OOM command not allowed");
  r.record(kLookup, 5 * kSecond, "connect 127.0.0.1:6379: Connection refused");
  r.record(kStore, 4 * kSecond, "late delivery of an earlier failure");
  r.record(kLoad, 2 * kSecond, "the earliest, delivered last");
  EXPECT_EQ(r.failed, 4u);
  EXPECT_EQ(r.by_op[kStore], 2u);
  EXPECT_EQ(r.by_op[kLookup], 1u);
  EXPECT_EQ(r.by_op[kLoad], 1u);
  EXPECT_EQ(r.first_ns, 2 * kSecond);
  EXPECT_EQ(r.first_error, "the earliest, delivered last");
  EXPECT_EQ(r.last_ns, 5 * kSecond);
  EXPECT_EQ(r.last_error, "connect 127.0.0.1:6379: Connection refused");
  EXPECT_EQ(r.ops_text(), "store 2, lookup 1, load 1");
}

TEST(L2FailureRecord, ErrorTextsAreBoundedPrintableAscii) {
  L2FailureRecord r = resp();
  r.record(kStore, 1, std::string(5000, 'x'));
  EXPECT_EQ(r.first_error.size(), kMaxL2ErrorBytes);
  EXPECT_EQ(r.first_error.substr(kMaxL2ErrorBytes - 3), "...");
  EXPECT_EQ(bounded_error_text("line\nbreak\x01\xff\xc3\xa9"), "line?break????");
  EXPECT_EQ(bounded_error_text(std::string(kMaxL2ErrorBytes, 'y')),
            std::string(kMaxL2ErrorBytes, 'y'));
}

TEST(L2FailureRecord, MergesNodesByAdapter) {
  L2FailureRecord a = resp(), b = resp(), fs;
  a.record(kStore, 3 * kSecond, "a first");
  a.record(kStore, 9 * kSecond, "a last");
  b.record(kLookup, 2 * kSecond, "b first");
  b.record(kLookup, 4 * kSecond, "b last");
  fs.adapter = 1;
  fs.type = "fs";
  fs.record(kStore, 1 * kSecond, "write /l2/x.tmp: No space left on device");
  const std::vector<L2FailureRecord> n0 = {a, fs}, n1 = {b};
  const std::vector<L2FailureRecord> m = merge_l2_failures({&n0, &n1});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].type, "resp");
  EXPECT_EQ(m[0].failed, 4u);
  EXPECT_EQ(m[0].by_op[kStore], 2u);
  EXPECT_EQ(m[0].by_op[kLookup], 2u);
  EXPECT_EQ(m[0].first_ns, 2 * kSecond);
  EXPECT_EQ(m[0].first_error, "b first");
  EXPECT_EQ(m[0].last_error, "a last");
  EXPECT_EQ(m[0].nodes, 2u);
  EXPECT_EQ(m[1].type, "fs");
  EXPECT_EQ(m[1].nodes, 1u);
}

TEST(L2FailureRecord, JsonRoundTripsAndRefusesOtherShapes) {
  L2FailureRecord r = resp(2);
  r.record(kStore, 1'250'000'000, "first");
  r.record(kLoad, 3'500'000'000, "latest");
  const nlohmann::json j = l2_failures_json({r});
  EXPECT_EQ(j[0]["ops"], nlohmann::json({{"store", 1}, {"load", 1}}));
  EXPECT_DOUBLE_EQ(j[0]["first_s"].get<double>(), 1.25);
  EXPECT_FALSE(j[0].contains("nodes"));
  const auto back =
      l2_failures_from_json(nlohmann::json::from_msgpack(nlohmann::json::to_msgpack(j)));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].adapter, 2);
  EXPECT_EQ(back[0].failed, 2u);
  EXPECT_EQ(back[0].by_op, r.by_op);
  EXPECT_EQ(back[0].first_ns, r.first_ns);
  EXPECT_EQ(back[0].last_ns, r.last_ns);
  EXPECT_EQ(back[0].first_error, "first");
  EXPECT_EQ(back[0].last_error, "latest");

  auto bad = [&](auto edit) {
    nlohmann::json b = j;
    edit(b);
    return b;
  };
  EXPECT_THROW(l2_failures_from_json(nlohmann::json::object()), std::invalid_argument);
  EXPECT_THROW(l2_failures_from_json(bad([](auto& b) { b[0]["failed"] = 3; })),
               std::invalid_argument);  // ops do not add up
  EXPECT_THROW(l2_failures_from_json(bad([](auto& b) { b[0]["ops"]["flush"] = 1; })),
               std::invalid_argument);
  EXPECT_THROW(l2_failures_from_json(bad([](auto& b) { b[0]["first_error"] = 7; })),
               std::invalid_argument);
  EXPECT_THROW(l2_failures_from_json(bad([](auto& b) { b[0]["first_s"] = "soon"; })),
               std::invalid_argument);
  EXPECT_THROW(l2_failures_from_json(bad([](auto& b) { b[0].erase("last_s"); })),
               std::invalid_argument);
  nlohmann::json many = nlohmann::json::array();
  for (size_t i = 0; i <= kMaxL2FailureRecords; ++i) many.push_back(j[0]);
  EXPECT_THROW(l2_failures_from_json(many), std::invalid_argument);
  // A peer's long text is cut on arrival.
  const auto cut =
      l2_failures_from_json(bad([](auto& b) { b[0]["last_error"] = std::string(100'000, 'z'); }));
  EXPECT_EQ(cut[0].last_error.size(), kMaxL2ErrorBytes);
}

TEST(L2FailureLog, FirstFailureAtOnceWithItsTextThenOneLinePerInterval) {
  const int64_t t0 = 100 * kSecond;
  L2FailureLog log(t0, "worker w1: ", 10 * kSecond);
  L2FailureRecord r = resp();
  std::vector<std::string> lines;
  // A dead Redis: a failure every millisecond for 25 s of real time.
  for (int64_t ms = 0; ms < 25'000; ++ms) {
    const int64_t now = t0 + 1'230'000'000 + ms * 1'000'000;
    r.record(ms % 3 == 0 ? kLookup : kStore, now,
             ms == 0 ? "connect 127.0.0.1:6379: Connection refused" : "connection lost");
    if (auto line = log.on_failure(r, now)) lines.push_back(*line);
  }
  ASSERT_EQ(lines.size(), 3u) << "the first, then one per 10 s: never one per failure";
  EXPECT_EQ(lines[0],
            "worker w1: L2 adapter 0 (resp): lookup 1 failed at +1.23 s: connect 127.0.0.1:6379: "
            "Connection refused (further failures: one line per 10 s)");
  EXPECT_EQ(lines[1],
            "worker w1: L2 adapter 0 (resp): 10000 more failed in 10.0 s (store 6667, lookup "
            "3333); 10001 since +1.23 s; latest: connection lost");
  EXPECT_NE(lines[2].find("10000 more failed in 10.0 s"), std::string::npos) << lines[2];
  // The end of the run reports what no line did: the last 4999 failures.
  const auto last = log.finish(r);
  ASSERT_TRUE(last);
  EXPECT_EQ(*last,
            "worker w1: L2 adapter 0 (resp): 4999 more failed by the end of the run (store 3332, "
            "lookup 1667); 25000 in all from +1.23 s; first error: connect 127.0.0.1:6379: "
            "Connection refused; latest: connection lost");
  EXPECT_FALSE(log.finish(r)) << "nothing new: no line";
}

TEST(L2FailureLog, AdaptersAreLoggedApartAndAQuietAdapterNotAtAll) {
  L2FailureLog log(0, "", 10 * kSecond);
  L2FailureRecord a = resp(0), b = resp(1), quiet = resp(2);
  a.record(kStore, kSecond, "a");
  b.record(kLoad, kSecond, "b");
  EXPECT_TRUE(log.on_failure(a, kSecond));
  EXPECT_TRUE(log.on_failure(b, kSecond)) << "another adapter's first failure is news";
  a.record(kStore, 2 * kSecond, "a");
  EXPECT_FALSE(log.on_failure(a, 2 * kSecond));
  EXPECT_FALSE(log.finish(b)) << "its only failure was logged";
  EXPECT_FALSE(log.finish(quiet));
  const auto line = log.finish(a);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("1 more failed by the end of the run (store 1); 2 in all"),
            std::string::npos)
      << *line;
}

TEST(L2FailureLog, FailuresNobodyLoggedAreSummedUpAtTheEnd) {
  L2FailureLog log(0);
  L2FailureRecord r = resp();
  r.record(kStore, 2 * kSecond, "boom");
  r.record(kStore, 3 * kSecond, "boom");
  const auto line = log.finish(r);
  ASSERT_TRUE(line);
  EXPECT_EQ(*line,
            "L2 adapter 0 (resp): 2 failed by the end of the run (store 2); 2 in all from +2.00 s; "
            "first error: boom; latest: boom");
}

}  // namespace
}  // namespace fleet::stats
