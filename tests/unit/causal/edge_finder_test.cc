// The edge rules of docs/causal-pacing.md derived by hand on small traces: each edge kind, what
// consumes it, the TTL rule, and that state older than the TTL is forgotten.
#include "fleet/causal/edge_finder.h"

#include <gtest/gtest.h>

namespace fleet::causal {
namespace {

trace::ObjectKey key(char c) {
  trace::ObjectKey k;
  k.chunk_hash = std::string(1, c);
  k.model_name = "m";
  return k;
}

std::vector<trace::ObjectKey> keys(std::string_view cs) {
  std::vector<trace::ObjectKey> out;
  for (char c : cs) out.push_back(key(c));
  return out;
}

trace::Op op(trace::OpKind kind, double t, std::string_view ks) {
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  if (kind == trace::OpKind::SubmitPrefetch) {
    o.spec.keys = keys(ks);
  } else {
    o.keys = keys(ks);
  }
  return o;
}

constexpr int64_t kMs = 1'000'000;

// Feeds the records with each one issued at `issue_ns[i]`; returns each record's hold.
std::vector<Hold> run(EdgeFinder& f, const std::vector<trace::Op>& ops,
                      const std::vector<int64_t>& issue_ns) {
  std::vector<Hold> holds;
  for (size_t i = 0; i < ops.size(); ++i) {
    holds.push_back(f.before_issue(ops[i]));
    f.after_issue(ops[i], issue_ns[i]);
  }
  return holds;
}

TEST(EdgeFinder, WriteLifecycleKeepsTheRecordedGapFromTheReserve) {
  EdgeFinder f;
  auto h = run(
      f, {op(trace::OpKind::ReserveWrite, 10.0, "a"), op(trace::OpKind::FinishWrite, 10.004, "a")},
      {100 * kMs, 0});
  EXPECT_FALSE(h[0].held());
  ASSERT_TRUE(h[1].held());
  EXPECT_EQ(h[1].binding, EdgeKind::WriteLifecycle);
  EXPECT_EQ(h[1].binding_gap_ns, 4 * kMs);
  EXPECT_EQ(h[1].not_before_ns, 104 * kMs);  // the parent's actual issue + the recorded gap
  EXPECT_EQ(f.counts()[EdgeKind::WriteLifecycle], 1u);
}

// The plan preview of a time-sharded run tags each record with its node: an edge whose parent
// ran on another node is cut (the child's node never sees it); one on the same node is not.
TEST(EdgeFinder, AnEdgeToAParentOnAnotherNodeIsCountedCut) {
  EdgeFinder f;
  const std::vector<std::pair<uint32_t, trace::Op>> tagged = {
      {0, op(trace::OpKind::ReserveWrite, 0.0, "a")},
      {0, op(trace::OpKind::FinishWrite, 0.001, "a")},     // same node: kept
      {1, op(trace::OpKind::SubmitPrefetch, 0.002, "a")},  // write on node 0: cut
      {1, op(trace::OpKind::ReadEnter, 0.003, "a")},       // its prefetch on node 1: kept
  };
  for (const auto& [node, o] : tagged) {
    f.set_node(node);
    (void)f.before_issue(o);
    f.after_issue(o, 0);
  }
  const EdgeCounts& c = f.counts();
  EXPECT_EQ(c[EdgeKind::WriteLifecycle], 1u);
  EXPECT_EQ(c.cut[static_cast<size_t>(EdgeKind::WriteLifecycle)], 0u);
  EXPECT_EQ(c[EdgeKind::ReadAfterWrite], 1u);
  EXPECT_EQ(c.cut[static_cast<size_t>(EdgeKind::ReadAfterWrite)], 1u);
  EXPECT_EQ(c[EdgeKind::ReadLifecycle], 1u);
  EXPECT_EQ(c.cut[static_cast<size_t>(EdgeKind::ReadLifecycle)], 0u);
}

TEST(EdgeFinder, AbortClosesTheWriteLifecycleToo) {
  EdgeFinder f;
  auto h =
      run(f,
          {op(trace::OpKind::ReserveWrite, 0.0, "a"), op(trace::OpKind::AbortWrite, 0.002, "a"),
           op(trace::OpKind::FinishWrite, 0.003, "a")},
          {0, 2 * kMs, 3 * kMs});
  EXPECT_EQ(h[1].binding, EdgeKind::WriteLifecycle);
  EXPECT_FALSE(h[2].held());  // the reserve was used up by the abort
}

TEST(EdgeFinder, PrefetchWaitsForTheLastFinishedWriteOfItsKeysOnce) {
  EdgeFinder f;
  auto h =
      run(f,
          {op(trace::OpKind::ReserveWrite, 0.0, "ab"), op(trace::OpKind::FinishWrite, 0.001, "ab"),
           op(trace::OpKind::SubmitPrefetch, 0.011, "bc"),
           op(trace::OpKind::SubmitPrefetch, 0.020, "b")},
          {0, 1 * kMs, 5 * kMs, 6 * kMs});
  ASSERT_TRUE(h[2].held());
  EXPECT_EQ(h[2].binding, EdgeKind::ReadAfterWrite);
  EXPECT_EQ(h[2].binding_gap_ns, 10 * kMs);
  EXPECT_EQ(h[2].not_before_ns, 11 * kMs);
  EXPECT_FALSE(h[3].held());  // only the next prefetch
  EXPECT_EQ(f.counts()[EdgeKind::ReadAfterWrite], 1u);
}

TEST(EdgeFinder, EnterMatchesTheNewestUnmatchedPrefetchHoldingItsWholeTuple) {
  EdgeFinder f;
  auto h =
      run(f,
          {op(trace::OpKind::SubmitPrefetch, 1.000, "abc"),
           op(trace::OpKind::SubmitPrefetch, 1.001, "abc"),
           op(trace::OpKind::SubmitPrefetch, 1.002, "ab"),  // newest, but lacks c
           op(trace::OpKind::ReadEnter, 1.005, "ac"), op(trace::OpKind::ReadEnter, 1.006, "ac"),
           op(trace::OpKind::ReadEnter, 1.007, "ac")},
          {0, 1 * kMs, 2 * kMs, 3 * kMs, 4 * kMs, 5 * kMs});
  ASSERT_TRUE(h[3].held());
  EXPECT_EQ(h[3].binding, EdgeKind::ReadLifecycle);
  EXPECT_EQ(h[3].binding_gap_ns, 4 * kMs);  // from the 1.001 prefetch
  EXPECT_EQ(h[3].not_before_ns, 1 * kMs + 4 * kMs);
  EXPECT_EQ(h[4].binding_gap_ns, 6 * kMs);  // then the 1.000 one
  EXPECT_EQ(h[4].not_before_ns, 0 + 6 * kMs);
  EXPECT_FALSE(h[5].held());  // "ab" never covers the tuple
  EXPECT_EQ(f.counts()[EdgeKind::ReadLifecycle], 2u);
}

TEST(EdgeFinder, AGapEdgeKeepsAtMostTheHorizon) {
  EdgeFinderOptions o;
  o.horizon_s = 0.050;
  EdgeFinder f(o);
  auto h =
      run(f,
          {op(trace::OpKind::ReserveWrite, 0.0, "a"), op(trace::OpKind::FinishWrite, 0.001, "a"),
           op(trace::OpKind::SubmitPrefetch, 3.0, "a")},
          {0, 1 * kMs, 300 * kMs});
  ASSERT_TRUE(h[2].held());
  EXPECT_EQ(h[2].binding_gap_ns, 2999 * kMs);         // recorded: think time
  EXPECT_EQ(h[2].not_before_ns, 1 * kMs + 50 * kMs);  // kept: the horizon
}

TEST(EdgeFinder, OrderEdgesAreCountedButHoldNothingBelowTheTtl) {
  EdgeFinder f;
  auto h = run(f,
               {op(trace::OpKind::ReadEnter, 0.0, "a"), op(trace::OpKind::ReadExit, 0.1, "a"),
                op(trace::OpKind::FinishRead, 0.2, "a"), op(trace::OpKind::ReserveWrite, 0.3, "a")},
               {0, 1, 2, 3});
  for (const Hold& x : h) EXPECT_FALSE(x.held());
  EXPECT_EQ(f.counts()[EdgeKind::EnterExit], 1u);
  EXPECT_EQ(f.counts()[EdgeKind::ExitFinish], 1u);
  EXPECT_EQ(f.counts()[EdgeKind::AccessWrite], 1u);
  EXPECT_EQ(f.counts().gap_edges(), 0u);
}

TEST(EdgeFinder, AnOrderEdgeAsLongAsTheLockTtlKeepsItsWholeGap) {
  EdgeFinderOptions ttl;
  ttl.read_ttl_s = 2.0;
  ttl.write_ttl_s = 4.0;
  EdgeFinder f(ttl);
  auto h = run(f,
               {op(trace::OpKind::ReadEnter, 0.0, "a"), op(trace::OpKind::ReadExit, 2.5, "a"),
                op(trace::OpKind::FinishRead, 3.0, "a"), op(trace::OpKind::ReserveWrite, 6.5, "a")},
               {0, 10 * kMs, 20 * kMs, 30 * kMs});
  ASSERT_TRUE(h[1].held());  // 2.5 s >= the 2 s read TTL
  EXPECT_EQ(h[1].binding, EdgeKind::EnterExit);
  EXPECT_EQ(h[1].not_before_ns, 2500 * kMs);
  EXPECT_FALSE(h[2].held());  // 0.5 s: order only
  EXPECT_FALSE(h[3].held());  // 3.5 s < the 4 s write TTL
  EXPECT_EQ(f.counts().ttl_kept[static_cast<size_t>(EdgeKind::EnterExit)], 1u);
  EXPECT_EQ(f.counts().gap_edges(), 1u);
}

TEST(EdgeFinder, ForgetsWhatIsOlderThanTheTtl) {
  EdgeFinderOptions ttl;
  ttl.read_ttl_s = 1.0;
  ttl.write_ttl_s = 1.0;
  EdgeFinder f(ttl);
  auto h =
      run(f,
          {op(trace::OpKind::ReserveWrite, 0.0, "a"), op(trace::OpKind::SubmitPrefetch, 0.1, "b"),
           op(trace::OpKind::ReserveWrite, 0.2, "cdefghijklmnop"),
           op(trace::OpKind::FinishWrite, 5.0, "a"), op(trace::OpKind::ReadEnter, 5.0, "b")},
          {0, 0, 0, 0, 0});
  EXPECT_FALSE(h[3].held());  // the reserve expired with its lock
  EXPECT_FALSE(h[4].held());  // so did the prefetch
  EXPECT_EQ(f.open_prefetches(), 0u);
  EXPECT_EQ(f.tracked_keys(), 2u);  // a and b, as the last records touched them: c..p are gone
}

TEST(EdgeFinder, TheLatestOfSeveralEdgesBinds) {
  EdgeFinder f;
  auto h =
      run(f,
          {op(trace::OpKind::ReserveWrite, 0.0, "a"), op(trace::OpKind::ReserveWrite, 0.001, "b"),
           op(trace::OpKind::FinishWrite, 0.010, "ab")},
          {0, 50 * kMs, 60 * kMs});
  ASSERT_TRUE(h[2].held());
  EXPECT_EQ(h[2].not_before_ns, 50 * kMs + 9 * kMs);    // b's reserve issued late: it binds
  EXPECT_EQ(f.counts()[EdgeKind::WriteLifecycle], 1u);  // once per record and kind
}

TEST(EdgeFinder, TimeThatGoesBackMakesAZeroGap) {
  EdgeFinder f;
  auto h =
      run(f, {op(trace::OpKind::ReserveWrite, 1.0, "a"), op(trace::OpKind::FinishWrite, 0.9, "a")},
          {7, 8});
  EXPECT_EQ(h[1].binding_gap_ns, 0);
  EXPECT_EQ(h[1].not_before_ns, 7);
}

}  // namespace
}  // namespace fleet::causal
