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

TEST(LateCause, TheFirstStepPastDuePlusSlackIsTheCause) {
  EXPECT_EQ(late_cause(kDue, kSlack, {kPast, kPast, kPast, kPast}), LateCause::PreviousCall);
  EXPECT_EQ(late_cause(kDue, kSlack, {kOnTime, kPast, kPast, kPast}), LateCause::BetweenCalls);
  EXPECT_EQ(late_cause(kDue, kSlack, {kOnTime, kOnTime, kPast, kPast}), LateCause::EngineEvents);
  EXPECT_EQ(late_cause(kDue, kSlack, {kOnTime, kOnTime, kOnTime, kPast}), LateCause::WokeLate);
  EXPECT_EQ(late_cause(kDue, kSlack, {kOnTime, kOnTime, kOnTime, kOnTime}), LateCause::AfterWaking);
  // Exactly at due + slack is still in time (the slack is inclusive, as for lateness itself).
  const int64_t edge = kDue + kSlack;
  EXPECT_EQ(late_cause(kDue, kSlack, {edge, edge, edge, kPast}), LateCause::WokeLate);
}

// PacingStats charges each late edge (and only late ones) to its cause; the counts sum to the
// late edges, survive the DONE message's JSON and add up across nodes.
TEST(LateCause, PacingStatsCountsLateEdgesByCause) {
  PacingStats p;
  p.pacing = Pacing::Causal;
  const Hold hold{kDue, EdgeKind::ReadLifecycle, 5};
  const int64_t late_start = kDue + 200'000;
  p.count_issue(hold, kDue, kDue, late_start, {kPast, kPast, kPast, kPast});
  p.count_issue(hold, kDue, kDue, late_start, {kOnTime, kOnTime, kOnTime, kPast});
  p.count_issue(hold, kDue, kDue, late_start, {kOnTime, kOnTime, kOnTime, kPast});
  p.count_issue(hold, kDue, kDue, kDue + 10, {kPast, kPast, kPast, kPast});  // on time: none
  EXPECT_EQ(p.edges_late_over_slack, 3u);
  EXPECT_EQ(p.late_by_cause[static_cast<size_t>(LateCause::PreviousCall)], 1u);
  EXPECT_EQ(p.late_by_cause[static_cast<size_t>(LateCause::WokeLate)], 2u);
  const PacingStats back = PacingStats::from_json(p.to_json());
  EXPECT_EQ(back.late_by_cause, p.late_by_cause);
  EXPECT_EQ(p.to_json()["edges_late_by_cause"]["woke_late"], 2u);
  PacingStats merged = back;
  merged.merge(p);
  EXPECT_EQ(merged.late_by_cause[static_cast<size_t>(LateCause::WokeLate)], 4u);
  auto bad = p.to_json();
  bad["edges_late_by_cause"]["woke_late"] = -1;
  EXPECT_THROW(PacingStats::from_json(bad), std::invalid_argument);
}

}  // namespace
}  // namespace fleet::causal
