// CutEdgeCounter: the edges a sharding cuts, derived by hand — a write on one node and the
// prefetch that reads it on another cut the read_after_write edge, charged to the prefetch's
// node; the same records on one node cut nothing.
#include "fleet/causal/cut_edge_counter.h"

#include <gtest/gtest.h>

namespace fleet::causal {
namespace {

trace::Op op(trace::OpKind kind, double t, char k) {
  trace::ObjectKey key;
  key.chunk_hash = std::string(1, k);
  key.model_name = "m";
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  if (kind == trace::OpKind::SubmitPrefetch)
    o.spec.keys = {key};
  else
    o.keys = {key};
  return o;
}

constexpr size_t kRaw = static_cast<size_t>(EdgeKind::ReadAfterWrite);
constexpr size_t kWrite = static_cast<size_t>(EdgeKind::WriteLifecycle);

TEST(CutEdgeCounter, AnEdgeWhoseParentRanOnAnotherNodeIsChargedToTheChildsNode) {
  CutEdgeCounter c({}, 3);
  c.add(op(trace::OpKind::ReserveWrite, 1.000, 'a'), 0);
  c.add(op(trace::OpKind::FinishWrite, 1.002, 'a'), 0);     // write lifecycle, same node
  c.add(op(trace::OpKind::SubmitPrefetch, 1.010, 'a'), 2);  // reads the write from node 0
  c.add(op(trace::OpKind::ReserveWrite, 2.000, 'b'), 1);
  c.add(op(trace::OpKind::FinishWrite, 2.002, 'b'), 2);  // a lifecycle split across nodes
  EXPECT_EQ(c.whole().found[kWrite], 2u);
  EXPECT_EQ(c.whole().found[kRaw], 1u);
  EXPECT_EQ(c.cut_of(0), CutEdgeCounter::PerKind{});
  EXPECT_EQ(c.cut_of(1), CutEdgeCounter::PerKind{});
  CutEdgeCounter::PerKind two{};
  two[kRaw] = 1;
  two[kWrite] = 1;
  EXPECT_EQ(c.cut_of(2), two);
  EXPECT_EQ(c.whole().cut[kRaw], 1u);
  EXPECT_EQ(c.cut_of(7), CutEdgeCounter::PerKind{});  // out of range: nothing
}

TEST(CutEdgeCounter, OneNodeCutsNothing) {
  CutEdgeCounter c({}, 1);
  c.add(op(trace::OpKind::ReserveWrite, 1.000, 'a'), 0);
  c.add(op(trace::OpKind::FinishWrite, 1.002, 'a'), 0);
  c.add(op(trace::OpKind::SubmitPrefetch, 1.010, 'a'), 0);
  EXPECT_EQ(c.whole().found[kRaw], 1u);
  EXPECT_EQ(c.cut_of(0), CutEdgeCounter::PerKind{});
}

}  // namespace
}  // namespace fleet::causal
