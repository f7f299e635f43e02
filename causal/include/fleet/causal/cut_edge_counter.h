// The dependency edges a sharding cuts (docs/causal-pacing.md, "Across the fleet"): run over the
// whole trace in recorded order with each record's node, it finds the edges as one node would
// and charges each edge whose parent runs on another node to the child's node. That node never
// sees the parent, so the child keeps its scaled instant. The plan preview prints the counts;
// a time-sharded run reports them in its pacing section (the coordinator counts them when it
// routes, each self-routing worker the ones charged to itself).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fleet/causal/edge.h"
#include "fleet/causal/edge_finder.h"
#include "fleet/trace/record.h"

namespace fleet::causal {

class CutEdgeCounter {
 public:
  using PerKind = std::array<uint64_t, kEdgeKindCount>;

  CutEdgeCounter(EdgeFinderOptions ttl, size_t nodes);

  // One record of the trace, in recorded order, and the node that replays it. A record the
  // replay would skip (it does not decode) has no edges, as in the replay.
  void add(const trace::RecordView& rec, uint32_t node);
  void add(const trace::Op& op, uint32_t node);

  // The edges cut whose child runs on `node`, by kind (zeros for a node out of range).
  PerKind cut_of(size_t node) const;
  // Over the whole trace: every edge found and every edge cut.
  const EdgeCounts& whole() const { return finder_.counts(); }

 private:
  EdgeFinder finder_;
  std::vector<PerKind> per_node_;
};

}  // namespace fleet::causal
