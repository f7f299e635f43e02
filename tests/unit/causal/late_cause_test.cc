// late_cause: a late edge is charged to the first step of the replay loop that was already past
// its record's due instant plus the slack; each case below places exactly one step past it.
#include "fleet/causal/late_cause.h"

#include <gtest/gtest.h>

#include "fleet/causal/pacing_stats.h"

namespace fleet::causal {
namespace {

constexpr int64_t kDue = 1'000'000;
constexpr int64_t kSlack = 50'000;
constexpr int64_t kOnTime = kDue - 10'000;  // before due: that step was in time
constexpr int64_t kPast = kDue + kSlack + 1;

// IssueTimes in the loop's order: previous call end, bookkeeping done, arrived, events done, woke.
IssueTimes times(int64_t call, int64_t books, int64_t arrived, int64_t events, int64_t woke) {
  return {call, books, arrived, events, woke};
}

TEST(LateCause, TheFirstStepPastDuePlusSlackIsTheCause) {
  const int64_t t = kOnTime, p = kPast;
  EXPECT_EQ(late_cause(kDue, kSlack, times(p, p, p, p, p)), LateCause::PreviousCall);
  EXPECT_EQ(late_cause(kDue, kSlack, times(t, p, p, p, p)), LateCause::BetweenCalls);
  EXPECT_EQ(late_cause(kDue, kSlack, times(t, t, p, p, p)), LateCause::NextRecord);
  EXPECT_EQ(late_cause(kDue, kSlack, times(t, t, t, p, p)), LateCause::EngineEvents);
  EXPECT_EQ(late_cause(kDue, kSlack, times(t, t, t, t, p)), LateCause::WokeLate);
  EXPECT_EQ(late_cause(kDue, kSlack, times(t, t, t, t, t)), LateCause::AfterWaking);
  // Exactly at due + slack is still in time (the slack is inclusive, as for lateness itself).
  const int64_t edge = kDue + kSlack;
  EXPECT_EQ(late_cause(kDue, kSlack, times(edge, edge, edge, edge, p)), LateCause::WokeLate);
}

// PacingStats charges each late edge (and only late ones) to its cause; the counts sum to the
// late edges, survive the DONE message's JSON and add up across nodes.
TEST(LateCause, PacingStatsCountsLateEdgesByCause) {
  PacingStats p;
  p.pacing = Pacing::Causal;
  const Hold hold{kDue, EdgeKind::ReadLifecycle, 5};
  const int64_t late_start = kDue + 200'000;
  const int64_t t = kOnTime, x = kPast;
  p.count_issue(hold, kDue, kDue, late_start, times(x, x, x, x, x));
  p.count_issue(hold, kDue, kDue, late_start, times(t, t, t, t, x));
  p.count_issue(hold, kDue, kDue, late_start, times(t, t, t, t, x));
  p.count_issue(hold, kDue, kDue, late_start, times(t, t, x, x, x));
  p.count_issue(hold, kDue, kDue, kDue + 10, times(x, x, x, x, x));  // on time: none
  EXPECT_EQ(p.edges_late_over_slack, 4u);
  EXPECT_EQ(p.late_by_cause[static_cast<size_t>(LateCause::PreviousCall)], 1u);
  EXPECT_EQ(p.late_by_cause[static_cast<size_t>(LateCause::WokeLate)], 2u);
  EXPECT_EQ(p.late_by_cause[static_cast<size_t>(LateCause::NextRecord)], 1u);
  const PacingStats back = PacingStats::from_json(p.to_json());
  EXPECT_EQ(back.late_by_cause, p.late_by_cause);
  EXPECT_EQ(p.to_json()["edges_late_by_cause"]["woke_late"], 2u);
  EXPECT_EQ(p.to_json()["edges_late_by_cause"]["next_record"], 1u);
  // A run written before next_record was counted reads as 0 of it.
  auto older = p.to_json();
  older["edges_late_by_cause"].erase("next_record");
  EXPECT_EQ(PacingStats::from_json(older).late_by_cause[static_cast<size_t>(LateCause::NextRecord)],
            0u);
  PacingStats merged = back;
  merged.merge(p);
  EXPECT_EQ(merged.late_by_cause[static_cast<size_t>(LateCause::WokeLate)], 4u);
  auto bad = p.to_json();
  bad["edges_late_by_cause"]["woke_late"] = -1;
  EXPECT_THROW(PacingStats::from_json(bad), std::invalid_argument);
}

}  // namespace
}  // namespace fleet::causal
