// The miss verdict against a baseline (docs/causal-pacing.md "Miss attribution"): a run with the
// baseline's hit rate whose baseline's reads lost more to its own environment (a load still
// running on a backend slower than the recorded one) kept the answer; the same counts without
// the baseline's own blame, or with prefetch misses this run added, read as a changed answer.
#include <gtest/gtest.h>

#include "fleet/insight/report/miss_text.h"

namespace fleet::report {
namespace {

using stats::MissClass;
using stats::MissWhere;

uint64_t& at(stats::MissCounts& c, MissWhere w, MissClass k) {
  return c[static_cast<size_t>(w)][static_cast<size_t>(k)];
}

// A sped-up run of `misses` misses (all of class `cls` at `where`) paired with runs/1x, `both`
// of them the baseline's too; the only-here and only-there counts are the test's to set.
stats::MissSummary paired_run(MissWhere where, MissClass cls, uint64_t misses, uint64_t both) {
  stats::MissSummary m;
  m.sped_up = true;
  at(m.counts, where, cls) = misses;
  m.baseline = stats::MissPairing{};
  m.baseline->baseline = "runs/1x";
  m.baseline->both = both;
  return m;
}

// 1,000 misses in both runs, 3 only here, 168 only in the baseline (160 reads that found their
// load still running, 8 evictions at lookup).
stats::MissSummary causal_run_against_a_slow_1x() {
  stats::MissSummary m = paired_run(MissWhere::Prefetch, MissClass::Cold, 1003, 1000);
  at(m.baseline->only_this_run, MissWhere::Prefetch, MissClass::Cold) = 3;
  at(m.baseline->only_baseline, MissWhere::Read, MissClass::LoadRunning) = 160;
  at(m.baseline->only_baseline, MissWhere::Prefetch, MissClass::Evicted) = 8;
  return m;
}

TEST(MissVerdict, ABaselineThatLostMissesToItsOwnEnvironmentDoesNotMakeTheSpeedUpWrong) {
  stats::MissSummary m = causal_run_against_a_slow_1x();
  // The baseline's own run (1x, not sped up) blames timing and capacity misses on its environment.
  stats::MissSummary baseline_flags;
  baseline_flags.counts = m.baseline->only_baseline;
  m.baseline->only_baseline_blame = baseline_flags.blame();
  ASSERT_EQ((*m.baseline->only_baseline_blame)[static_cast<size_t>(stats::MissBlame::Environment)],
            168u);
  const auto v = miss_verdict(m);
  ASSERT_TRUE(v.has_value());
  EXPECT_FALSE(v->warn);
  EXPECT_EQ(v->title, "Speed-up kept the answer");
  EXPECT_NE(v->text.find("The same hit rate as the baseline runs/1x (prefetch misses -5); its "
                         "reads missed 160 more, and 160 of the reads only it missed found their "
                         "load still running or queued"),
            std::string::npos)
      << v->text;
  // The terminal's row carries the baseline's own blame beside its classes.
  const stats::MetricSection s = miss_section(m);
  bool found = false;
  for (const auto& row : s.rows) {
    if (row.key != "only_baseline") continue;
    found = true;
    EXPECT_EQ(std::get<std::string>(row.value),
              "168 (load_running 160, evicted 8); its own run's blame: compression 0, "
              "environment 168, trace 0, follows 0");
  }
  EXPECT_TRUE(found);
}

TEST(MissVerdict, WithoutTheBaselinesBlameOrWithMissesAddedTheAnswerChanged) {
  stats::MissSummary unknown = causal_run_against_a_slow_1x();  // no summary beside misses.csv
  ASSERT_TRUE(miss_verdict(unknown).has_value());
  EXPECT_TRUE(miss_verdict(unknown)->warn);
  EXPECT_EQ(miss_verdict(unknown)->title, "Speed-up changed the answer");

  stats::MissSummary added = causal_run_against_a_slow_1x();
  at(added.baseline->only_this_run, MissWhere::Prefetch, MissClass::StoreNotLanded) = 40;
  added.baseline->only_baseline_blame = std::array<uint64_t, stats::kMissBlameCount>{0, 168, 0, 0};
  // Prefetch misses +35 against 1 % of 1,003: the hit rate moved.
  EXPECT_EQ(miss_verdict(added)->title, "Speed-up changed the answer");

  // 160 environment-blamed timing reads explain a surplus of 170 only with a tolerance of 10:
  // the read tolerance (twice the two baselines' read gap of 5) takes what noise explains.
  stats::MissSummary surplus = causal_run_against_a_slow_1x();
  at(surplus.baseline->only_baseline, MissWhere::Read, MissClass::NotLoaded) = 10;
  surplus.baseline->only_baseline_blame =
      std::array<uint64_t, stats::kMissBlameCount>{0, 178, 0, 0};
  EXPECT_EQ(miss_verdict(surplus)->title, "Speed-up changed the answer");
  surplus.baseline->noise = stats::MissNoise{"runs/1x-b", 0, 5, 30};
  EXPECT_EQ(miss_verdict(surplus)->title, "Speed-up kept the answer")
      << miss_verdict(surplus)->text;

  // A second 1x run against the first: no speed-up to name.
  stats::MissSummary rerun = causal_run_against_a_slow_1x();
  rerun.sped_up = false;
  EXPECT_EQ(miss_verdict(rerun)->title, "Answer differs from the baseline");
  rerun.baseline->only_baseline_blame = std::array<uint64_t, stats::kMissBlameCount>{0, 168, 0, 0};
  EXPECT_EQ(miss_verdict(rerun)->title, "Kept the baseline's answer");

  stats::MissSummary trace_blamed = causal_run_against_a_slow_1x();
  trace_blamed.baseline->only_baseline_blame =
      std::array<uint64_t, stats::kMissBlameCount>{0, 60, 108, 0};  // most not its environment's
  EXPECT_EQ(miss_verdict(trace_blamed)->title, "Speed-up changed the answer");
}

// Two runs of one trace trade keys (measured: 7.6 % of two 1x runs' misses) while their counts
// agree: within 1 % net at lookup and at read the answer is the same, whatever the churn; beyond
// it, it changed.
TEST(MissVerdict, TheSameCountOfMissesOnOtherKeysIsTheSameAnswer) {
  stats::MissSummary m = paired_run(MissWhere::Read, MissClass::NotLoaded, 28032, 26361);
  at(m.baseline->only_this_run, MissWhere::Read, MissClass::NotLoaded) = 1671;
  at(m.baseline->only_baseline, MissWhere::Read, MissClass::NotLoaded) = 1881;  // net -210
  auto v = miss_verdict(m);
  ASSERT_TRUE(v.has_value());
  EXPECT_FALSE(v->warn);
  EXPECT_EQ(v->title, "Same answer as the baseline");
  EXPECT_NE(v->text.find("The same misses within 1 % as the baseline runs/1x (prefetch +0, read "
                         "-210)"),
            std::string::npos)
      << v->text;
  at(m.baseline->only_baseline, MissWhere::Read, MissClass::NotLoaded) = 2000;  // net -329
  v = miss_verdict(m);
  EXPECT_TRUE(v->warn);
  EXPECT_EQ(v->title, "Speed-up changed the answer");
}

// With a second reference run (--noise-baseline) the tolerance is twice how far the two are
// apart, when that is more than 1 %: a short trace's 1x runs differ by more than 1 % of their
// misses (measured: every verdict of a 5.4k-record bench run, 1x against 1x included, read
// "changed" at 1 %), and a verdict below that noise cannot tell a speed-up from a rerun.
TEST(MissVerdict, ASecondBaselineWidensTheToleranceToTwiceTheRunToRunNoise) {
  stats::MissSummary m = paired_run(MissWhere::Read, MissClass::NotLoaded, 2800, 2500);
  at(m.baseline->only_this_run, MissWhere::Read, MissClass::NotLoaded) = 300;
  at(m.baseline->only_baseline, MissWhere::Read, MissClass::NotLoaded) = 220;  // net +80
  EXPECT_EQ(miss_verdict(m)->title, "Speed-up changed the answer");            // 1 %: 28
  EXPECT_NE(miss_verdict(m)->text.find("prefetch +0, read +80, not within 1 %"), std::string::npos)
      << miss_verdict(m)->text;

  m.baseline->noise = stats::MissNoise{"runs/1x-b", 3, 45, 400};  // tolerance read 90
  auto v = miss_verdict(m);
  EXPECT_FALSE(v->warn);
  EXPECT_EQ(v->title, "Same answer as the baseline");
  EXPECT_NE(v->text.find("The same misses within ±6 prefetch, ±90 read (twice how far runs/1x is "
                         "from runs/1x-b, at least 1 %) as the baseline runs/1x (prefetch +0, "
                         "read +80)"),
            std::string::npos)
      << v->text;
  bool row = false;
  for (const auto& r : miss_section(m).rows)
    if (r.key == "noise") {
      row = true;
      EXPECT_EQ(std::get<std::string>(r.value),
                "runs/1x-b: prefetch misses 3 apart, read 45; 400 misses only one of the two had");
    }
  EXPECT_TRUE(row);

  m.baseline->noise->read = 39;  // tolerance 78 < 80
  EXPECT_EQ(miss_verdict(m)->title, "Speed-up changed the answer");
  m.baseline->noise->read = 5;  // twice the noise below 1 %: 1 % stays the floor
  at(m.baseline->only_baseline, MissWhere::Read, MissClass::NotLoaded) = 280;  // net +20
  EXPECT_EQ(miss_verdict(m)->title, "Same answer as the baseline");
}

}  // namespace
}  // namespace fleet::report
