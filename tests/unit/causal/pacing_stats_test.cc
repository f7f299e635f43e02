// PacingStats: what one record's hold counts, the merge of two nodes, and its JSON both ways
// (the DONE message and fleet_summary.json carry it).
#include "fleet/causal/pacing_stats.h"

#include <gtest/gtest.h>

namespace fleet::causal {
namespace {

Hold hold_at(int64_t not_before, EdgeKind k) { return Hold{not_before, k, 5}; }

TEST(PacingStats, CausalCountsHoldsAndEdgeLateness) {
  PacingStats p;
  p.pacing = Pacing::Causal;
  p.count_issue(Hold{}, 100, 100, 100);                                 // no edge: nothing
  p.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 300, 310);  // held 200 ns, 10 ns late
  p.count_issue(hold_at(50, EdgeKind::WriteLifecycle), 100, 100, 100'100);  // 100 us late
  EXPECT_EQ(p.held_records, 1u);
  EXPECT_EQ(p.hold_ns, 200);
  EXPECT_EQ(p.edge_lateness.count(), 2u);
  EXPECT_EQ(p.edge_lateness.early_count(), 0u);
  EXPECT_EQ(p.edges_late_over_slack, 1u);
  EXPECT_EQ(p.raced_total(), 0u);
}

// An edge whose record the schedule itself placed later (behind a held record in recorded
// order, or waiting for L2 to land) was stretched on purpose: it is never a late edge. If its
// call still started more than 50 us after that causal instant, the record lagged behind the
// one that held it (the in-order dispatcher), counted apart. Each binding edge is in at most
// one of late and stretched, and the late ones alone are charged to a cause.
TEST(PacingStats, AnEdgeTheScheduleStretchedIsNotLate) {
  PacingStats p;
  p.pacing = Pacing::Causal;
  p.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 200'000, 200'010);  // stretched
  p.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 200'000, 400'000);  // and lagging
  p.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 300, 100'000);      // late: ours
  p.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 50'300, 150'000);   // 50 us: not
  EXPECT_EQ(p.edges_stretched, 2u);
  EXPECT_EQ(p.stretched_late_over_slack, 1u);
  EXPECT_EQ(p.edges_late_over_slack, 2u);
  uint64_t charged = 0;
  for (uint64_t n : p.late_by_cause) charged += n;
  EXPECT_EQ(charged, 2u);
  const PacingStats back = PacingStats::from_json(p.to_json());
  EXPECT_EQ(back.edges_stretched, 2u);
  EXPECT_EQ(back.stretched_late_over_slack, 1u);
  PacingStats merged = back;
  merged.merge(p);
  EXPECT_EQ(merged.stretched_late_over_slack, 2u);
  auto older = p.to_json();  // a run written before the split reads as none lagging
  older.erase("edges_stretched_late_over_50us");
  EXPECT_EQ(PacingStats::from_json(older).stretched_late_over_slack, 0u);
  PacingStats u;  // uniform pacing stretches nothing
  u.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 200'000, 200'000, 200'010);
  EXPECT_EQ(u.edges_stretched, 0u);
  EXPECT_EQ(u.edges_late_over_slack, 1u);
}

TEST(PacingStats, UniformCountsRacedEdgesByKind) {
  PacingStats p;
  p.pacing = Pacing::Uniform;
  p.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 100, 120);   // before the gap
  p.count_issue(hold_at(300, EdgeKind::ReadAfterWrite), 400, 400, 400);  // after: kept
  EXPECT_EQ(p.held_records, 0u);
  EXPECT_EQ(p.raced[static_cast<size_t>(EdgeKind::ReadLifecycle)], 1u);
  EXPECT_EQ(p.raced_total(), 1u);
  EXPECT_EQ(p.edge_lateness.early_count(), 1u);
}

TEST(PacingStats, JsonRoundTripAndMerge) {
  PacingStats a;
  a.pacing = Pacing::Causal;
  a.speed = 10;
  a.engine_time_scale = 10;
  a.engine_follows_trace = true;
  a.edges.found = {1, 2, 3, 4, 5, 6};
  a.edges.ttl_kept[3] = 1;
  a.count_issue(hold_at(300, EdgeKind::ReadLifecycle), 100, 300, 400);
  const PacingStats b = PacingStats::from_json(a.to_json());
  EXPECT_EQ(b.to_json(), a.to_json());
  EXPECT_EQ(a.to_json()["mode"], "causal");
  EXPECT_EQ(a.to_json()["engine_time"], "trace");
  EXPECT_EQ(PacingStats().to_json()["engine_time"], "wall");
  EXPECT_EQ(a.to_json()["gap_edges"], 1 + 2 + 3 + 1);
  PacingStats m = a;
  m.merge(b);
  EXPECT_EQ(m.edges.found[5], 12u);
  EXPECT_EQ(m.held_records, 2u);
  EXPECT_EQ(m.edge_lateness.count(), 2u);
}

// The edges a time sharding cut: absent unless counted, per kind and in total when counted, and
// summed over the nodes.
TEST(PacingStats, CutEdgesAppearOnlyWhenCountedAndMergeBySum) {
  PacingStats a;
  EXPECT_FALSE(a.to_json().contains("edges_cut"));
  EXPECT_FALSE(a.to_json()["edges"]["read_after_write"].contains("cut"));
  a.cut_counted = true;
  a.edges.cut[static_cast<size_t>(EdgeKind::ReadAfterWrite)] = 5;
  EXPECT_EQ(a.to_json()["edges_cut"], 5);
  EXPECT_EQ(a.to_json()["edges"]["read_after_write"]["cut"], 5);
  const PacingStats b = PacingStats::from_json(a.to_json());
  EXPECT_TRUE(b.cut_counted);
  EXPECT_EQ(b.to_json(), a.to_json());
  PacingStats m;  // a node that counted none merged with one that did
  m.merge(b);
  m.merge(b);
  EXPECT_TRUE(m.cut_counted);
  EXPECT_EQ(m.to_json()["edges_cut"], 10);
}

TEST(PacingStats, FromJsonNamesTheBadField) {
  nlohmann::json j = PacingStats().to_json();
  j["mode"] = "sideways";
  try {
    (void)PacingStats::from_json(j);
    FAIL() << "accepted a bad mode";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pacing.mode"), std::string::npos);
  }
}

}  // namespace
}  // namespace fleet::causal
