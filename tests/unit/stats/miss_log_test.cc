// misses.csv and the pairing of two runs' misses (docs/causal-pacing.md "Miss attribution").
#include "fleet/stats/miss_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fleet/stats/miss_summary.h"
#include "scratch_dir.h"

namespace fleet::stats {
namespace {

std::string temp_path(const char* name) { return fleet::test::test_scratch_dir() / name; }

MissEvent ev(double t, uint64_t key, MissWhere w, MissClass c) { return {t, key, w, c}; }

TEST(MissLog, RoundTripsEveryFieldExactly) {
  const std::string path = temp_path("fleet_misses.csv");
  const std::vector<MissEvent> in = {
      ev(1733500000.1234567, 0xfedcba9876543210ull, MissWhere::Prefetch, MissClass::Cold),
      ev(0.1 + 0.2, 1, MissWhere::Read, MissClass::PrefetchQueued)};
  ASSERT_TRUE(write_miss_log(path, in).ok());
  const auto out = read_miss_log(path);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out.value()[i].record, in[i].record);  // bit for bit: %.17g
    EXPECT_EQ(out.value()[i].key, in[i].key);
    EXPECT_EQ(out.value()[i].where, in[i].where);
    EXPECT_EQ(out.value()[i].cls, in[i].cls);
  }
  std::filesystem::remove(path);
}

TEST(MissLog, ABadLineIsRefusedNamingTheFileAndLine) {
  const std::string path = temp_path("fleet_misses_bad.csv");
  std::ofstream(path) << "t_wall,key,where,class\n1.5,00000000000000ff,prefetch,cold\n"
                         "2.5,00000000000000ff,prefetch,sideways\n";
  const auto out = read_miss_log(path);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), path + ":3: unknown class 'sideways'");
  std::ofstream(path) << "offset,key\n";
  EXPECT_NE(read_miss_log(path).status().message().find(path + ":1: not a miss log"),
            std::string::npos);
  std::filesystem::remove(path);
}

// A baseline's misses.csv someone else handed over: a FIFO is refused unopened (it hung), and a
// line without an end is refused after its first 257 bytes (a 400-MB one took 592 MB first).
TEST(MissLog, AFifoOrAnEndlessLineIsRefusedWithoutReadingIt) {
  const fleet::test::ScratchDir scratch;
  const std::string fifo = (scratch.path() / "misses.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(read_miss_log(fifo).status().message().find("not a regular file"), std::string::npos)
      << read_miss_log(fifo).status().message();
  const std::string path = temp_path("fleet_misses_long.csv");
  std::ofstream(path) << "t_wall,key,where,class\n" << std::string(1 << 20, '1');
  EXPECT_EQ(read_miss_log(path).status().message(), path + ":2: line longer than 256 bytes");
  std::ofstream(path) << "t_wall,key,where,class\n1.5,00000000000000ff,prefetch,cold";  // no \n
  ASSERT_TRUE(read_miss_log(path).ok()) << read_miss_log(path).status().message();
  EXPECT_EQ(read_miss_log(path)->size(), 1u);
  std::filesystem::remove(path);
}

// Misses pair by (record, key, where) as multisets: the class may differ between the runs.
TEST(MissPairing, SplitsMissesIntoBothOnlyThisRunAndOnlyTheBaseline) {
  const std::vector<MissEvent> run = {
      ev(1, 10, MissWhere::Prefetch, MissClass::Cold),
      ev(2, 10, MissWhere::Prefetch, MissClass::StoreNotLanded),  // only here
      ev(3, 11, MissWhere::Read, MissClass::LoadRunning),         // only here (baseline: prefetch)
      ev(4, 12, MissWhere::Prefetch, MissClass::Evicted),
      ev(4, 12, MissWhere::Prefetch, MissClass::Evicted)};  // twice here, once in the baseline
  const std::vector<MissEvent> baseline = {ev(4, 12, MissWhere::Prefetch, MissClass::Cold),
                                           ev(3, 11, MissWhere::Prefetch, MissClass::Cold),
                                           ev(1, 10, MissWhere::Prefetch, MissClass::Cold)};
  const MissPairing p = pair_misses(run, baseline);
  EXPECT_EQ(p.both, 2u);
  EXPECT_EQ(p.only_this_run_total(), 3u);
  EXPECT_EQ(p.only_baseline_total(), 1u);
  const auto at = [](const MissCounts& c, MissWhere w, MissClass k) {
    return c[static_cast<size_t>(w)][static_cast<size_t>(k)];
  };
  EXPECT_EQ(at(p.only_this_run, MissWhere::Prefetch, MissClass::StoreNotLanded), 1u);
  EXPECT_EQ(at(p.only_this_run, MissWhere::Read, MissClass::LoadRunning), 1u);
  EXPECT_EQ(at(p.only_this_run, MissWhere::Prefetch, MissClass::Evicted), 1u);
  EXPECT_EQ(at(p.only_baseline, MissWhere::Prefetch, MissClass::Cold), 1u);
}

TEST(MissSummary, BlamesTimingOnTheSpeedUpOnlyWhenSpedUpAndRoundTripsThroughJson) {
  MissSummary s;
  s.add(ev(1, 1, MissWhere::Read, MissClass::LoadRunning));
  s.add(ev(2, 2, MissWhere::Prefetch, MissClass::Cold));
  s.add(ev(3, 3, MissWhere::Prefetch, MissClass::WriteRefused));
  const auto idx = [](MissBlame b) { return static_cast<size_t>(b); };
  EXPECT_EQ(s.blame()[idx(MissBlame::Environment)], 2u);  // at 1x: the backend, the config
  s.sped_up = true;
  EXPECT_EQ(s.blame()[idx(MissBlame::Compression)], 2u);  // uniform: the tick did not speed up
  s.engine_follows_trace = true;
  EXPECT_EQ(s.blame()[idx(MissBlame::Compression)], 1u);  // causal: L1 kept its ticks
  EXPECT_EQ(s.blame()[idx(MissBlame::Trace)], 1u);
  s.partial_schedule = true;  // lifecycles overlap S times as much: L1 refusals are the speed-up's
  EXPECT_EQ(s.blame()[idx(MissBlame::Compression)], 2u);
  s.baseline = MissPairing{};
  s.baseline->baseline = "runs/1x";
  s.baseline->both = 7;
  const MissSummary back = MissSummary::from_json(s.to_json());
  EXPECT_EQ(back.counts, s.counts);
  EXPECT_TRUE(back.sped_up && back.engine_follows_trace && back.partial_schedule);
  ASSERT_TRUE(back.baseline.has_value());
  EXPECT_EQ(back.baseline->baseline, "runs/1x");
  EXPECT_EQ(back.baseline->both, 7u);
  // The baseline's pace: absent when unknown (no summary, unpaced), else its p99 and verdict.
  EXPECT_FALSE(s.to_json()["baseline"].contains("lateness_p99_us"));
  EXPECT_FALSE(back.baseline->baseline_lateness_p99_us.has_value());
  EXPECT_FALSE(back.baseline->baseline_fell_behind);
  s.baseline->baseline_lateness_p99_us = 3512.25;
  s.baseline->baseline_fell_behind = true;
  const MissSummary behind = MissSummary::from_json(s.to_json());
  EXPECT_EQ(behind.baseline->baseline_lateness_p99_us, 3512.25);
  EXPECT_TRUE(behind.baseline->baseline_fell_behind);
  // The baseline's own blame of the misses only it had: absent unless its summary gave it.
  EXPECT_FALSE(behind.baseline->only_baseline_blame.has_value());
  EXPECT_FALSE(s.to_json()["baseline"].contains("only_baseline_blame"));
  s.baseline->only_baseline_blame = std::array<uint64_t, kMissBlameCount>{1, 250, 3, 4};
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["baseline"]["only_baseline_blame"]["environment"], 250);
  const MissSummary blamed = MissSummary::from_json(j);
  ASSERT_TRUE(blamed.baseline->only_baseline_blame.has_value());
  EXPECT_EQ(*blamed.baseline->only_baseline_blame,
            (std::array<uint64_t, kMissBlameCount>{1, 250, 3, 4}));
}

// --noise-baseline: two reference runs' misses apart per where (net, either sign), and the
// misses only one of them had; the JSON carries it and reads it back.
TEST(MissNoise, CountsHowFarTwoReferenceRunsAreApartAndRoundTripsThroughJson) {
  const std::vector<MissEvent> a = {ev(1, 10, MissWhere::Prefetch, MissClass::Cold),
                                    ev(2, 11, MissWhere::Prefetch, MissClass::Cold),
                                    ev(3, 12, MissWhere::Read, MissClass::LoadRunning),
                                    ev(4, 13, MissWhere::Read, MissClass::LoadRunning)};
  const std::vector<MissEvent> b = {ev(1, 10, MissWhere::Prefetch, MissClass::Cold),
                                    ev(5, 14, MissWhere::Read, MissClass::NotLoaded),
                                    ev(6, 15, MissWhere::Read, MissClass::NotLoaded),
                                    ev(7, 16, MissWhere::Read, MissClass::NotLoaded),
                                    ev(3, 12, MissWhere::Read, MissClass::Evicted)};
  const MissNoise n = miss_noise(a, b, "runs/1x-b");
  EXPECT_EQ(n.run, "runs/1x-b");
  EXPECT_EQ(n.prefetch, 1u);  // a: 2, b: 1
  EXPECT_EQ(n.read, 2u);      // a: 2, b: 4
  EXPECT_EQ(n.traded, 5u);    // a alone: (2,11) and (4,13); b alone: (5..7)
  EXPECT_EQ(miss_noise(b, a, "x").read, 2u);

  MissSummary s;
  s.baseline = MissPairing{};
  EXPECT_FALSE(s.to_json()["baseline"].contains("noise"));
  s.baseline->noise = n;
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["baseline"]["noise"]["read"], 2);
  const MissSummary back = MissSummary::from_json(j);
  ASSERT_TRUE(back.baseline->noise.has_value());
  EXPECT_EQ(back.baseline->noise->run, "runs/1x-b");
  EXPECT_EQ(back.baseline->noise->prefetch, 1u);
  EXPECT_EQ(back.baseline->noise->read, 2u);
  EXPECT_EQ(back.baseline->noise->traded, 5u);
}

}  // namespace
}  // namespace fleet::stats
