// The miss verdict against a baseline (docs/causal-pacing.md "Miss attribution"): a run that
// added no misses while the 1x baseline lost many to its own environment (a load still running
// on a backend slower than the recorded one) kept the answer; the same counts without the
// baseline's own blame, or with misses this run added, still read as a changed answer.
#include <gtest/gtest.h>

#include "fleet/insight/report/miss_text.h"

namespace fleet::report {
namespace {

using stats::MissClass;
using stats::MissWhere;

uint64_t& at(stats::MissCounts& c, MissWhere w, MissClass k) {
  return c[static_cast<size_t>(w)][static_cast<size_t>(k)];
}

// 1,000 misses in both runs, 3 only here, 180 only in the baseline (160 reads that found their
// load still running, 20 evictions).
stats::MissSummary causal_run_against_a_slow_1x() {
  stats::MissSummary m;
  m.sped_up = true;
  at(m.counts, MissWhere::Prefetch, MissClass::Cold) = 1003;
  stats::MissPairing p;
  p.baseline = "runs/1x";
  p.both = 1000;
  at(p.only_this_run, MissWhere::Prefetch, MissClass::Cold) = 3;
  at(p.only_baseline, MissWhere::Read, MissClass::LoadRunning) = 160;
  at(p.only_baseline, MissWhere::Prefetch, MissClass::Evicted) = 20;
  m.baseline = p;
  return m;
}

TEST(MissVerdict, ABaselineThatLostMissesToItsOwnEnvironmentDoesNotMakeTheSpeedUpWrong) {
  stats::MissSummary m = causal_run_against_a_slow_1x();
  // The baseline's own run (1x, not sped up) blames timing and capacity misses on its environment.
  stats::MissSummary baseline_flags;
  baseline_flags.counts = m.baseline->only_baseline;
  m.baseline->only_baseline_blame = baseline_flags.blame();
  ASSERT_EQ((*m.baseline->only_baseline_blame)[static_cast<size_t>(stats::MissBlame::Environment)],
            180u);
  const auto v = miss_verdict(m);
  ASSERT_TRUE(v.has_value());
  EXPECT_FALSE(v->warn);
  EXPECT_EQ(v->title, "Speed-up kept the answer");
  EXPECT_NE(v->text.find("the baseline missed 180 more (load_running 160, evicted 20), 180 of "
                         "them blamed by its own run on its environment"),
            std::string::npos)
      << v->text;
  // The terminal's row carries the baseline's own blame beside its classes.
  const stats::MetricSection s = miss_section(m);
  bool found = false;
  for (const auto& row : s.rows) {
    if (row.key != "only_baseline") continue;
    found = true;
    EXPECT_EQ(std::get<std::string>(row.value),
              "180 (load_running 160, evicted 20); its own run's blame: compression 0, "
              "environment 180, trace 0, follows 0");
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
  added.baseline->only_baseline_blame = std::array<uint64_t, stats::kMissBlameCount>{0, 180, 0, 0};
  EXPECT_EQ(miss_verdict(added)->title, "Speed-up changed the answer");  // 43 added > 1 % of 1,043

  stats::MissSummary trace_blamed = causal_run_against_a_slow_1x();
  trace_blamed.baseline->only_baseline_blame =
      std::array<uint64_t, stats::kMissBlameCount>{0, 60, 120, 0};  // most not its environment's
  EXPECT_EQ(miss_verdict(trace_blamed)->title, "Speed-up changed the answer");
}

}  // namespace
}  // namespace fleet::report
